// Measured per-rank step timelines, the input of `distsim whatif`, read and replayed.
#include <cstddef>
#include <cstdint>

#include "core/input_error.hpp"
#include "fuzz_input.hpp"
#include "io/trace/step_timeline_reader.hpp"
#include "whatif/straggler_analysis.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const auto trace =
        distsim::io::read_step_timeline(distsim::fuzz::write_input(distsim::fuzz::as_text(data, size), "timeline"));
    distsim::whatif::analyze_stragglers(trace);
  } catch (const distsim::InputError&) {
    // A refusal with a message is the expected answer to bad input; anything else escapes and
    // the fuzzer reports it (the command line would exit 70 on it).
  }
  return 0;
}
