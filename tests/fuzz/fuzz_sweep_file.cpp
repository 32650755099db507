// Sweep files as `distsim sweep FILE` reads them: the lists, the search mapping and its flags.
#include <cstddef>
#include <cstdint>

#include "core/input_error.hpp"
#include "fuzz_input.hpp"
#include "io/spec/sweep_file_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    distsim::io::read_sweep_file(distsim::fuzz::write_input(distsim::fuzz::as_text(data, size), "sweep"));
  } catch (const distsim::InputError&) {
    // A refusal with a message is the expected answer to bad input; anything else escapes and
    // the fuzzer reports it (the command line would exit 70 on it).
  }
  return 0;
}
