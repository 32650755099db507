// Megatron-LM launch scripts and argument strings as `--megatron-args` reads them: shell words,
// variables and arrays, then every flag through the option table.
#include <cstddef>
#include <cstdint>

#include "core/input_error.hpp"
#include "fuzz_input.hpp"
#include "io/spec/megatron_args_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    distsim::io::read_megatron_args(distsim::fuzz::as_text(data, size), "launch");
  } catch (const distsim::InputError&) {
    // A refusal with a message is the expected answer to bad input.
  }
  return 0;
}
