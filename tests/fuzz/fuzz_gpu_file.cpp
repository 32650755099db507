// GPU files as `--gpu PATH` reads them.
#include <cstddef>
#include <cstdint>

#include "core/input_error.hpp"
#include "fuzz_input.hpp"
#include "io/spec/spec_resolver.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    distsim::io::resolve_gpu(distsim::fuzz::write_input(distsim::fuzz::as_text(data, size), "gpu"));
  } catch (const distsim::InputError&) {
    // A refusal with a message is the expected answer to bad input; anything else escapes and
    // the fuzzer reports it (the command line would exit 70 on it).
  }
  return 0;
}
