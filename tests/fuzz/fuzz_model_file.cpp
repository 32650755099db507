// Model files as `--model PATH` reads them: distsim's schema (with base: chains) or a Hugging
// Face config recognised by its keys.
#include <cstddef>
#include <cstdint>

#include "core/input_error.hpp"
#include "fuzz_input.hpp"
#include "io/spec/spec_resolver.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    distsim::io::resolve_model(distsim::fuzz::write_input(distsim::fuzz::as_text(data, size), "model"));
  } catch (const distsim::InputError&) {
    // A refusal with a message is the expected answer to bad input; anything else escapes and
    // the fuzzer reports it (the command line would exit 70 on it).
  }
  return 0;
}
