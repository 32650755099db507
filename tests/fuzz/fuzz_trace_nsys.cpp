// Nsight Systems SQLite exports, the measured side of `distsim compare`.
#include <cstddef>
#include <cstdint>

#include "core/input_error.hpp"
#include "fuzz_input.hpp"
#include "io/trace/trace_reader_formats.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    namespace format = distsim::io::trace_format;
    format::read_nsys_trace(distsim::fuzz::write_input(distsim::fuzz::as_text(data, size), "rank.sqlite"), 0);
  } catch (const distsim::InputError&) {
    // A refusal with a message is the expected answer to bad input; anything else escapes and
    // the fuzzer reports it (the command line would exit 70 on it).
  }
  return 0;
}
