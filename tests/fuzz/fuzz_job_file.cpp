// Job files as `--job PATH` reads them: every key through the option table's rules.
#include <cstddef>
#include <cstdint>

#include "core/input_error.hpp"
#include "fuzz_input.hpp"
#include "io/spec/job_file_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    distsim::io::read_job_file(distsim::fuzz::write_input(distsim::fuzz::as_text(data, size), "job"));
  } catch (const distsim::InputError&) {
    // A refusal with a message is the expected answer to bad input; anything else escapes and
    // the fuzzer reports it (the command line would exit 70 on it).
  }
  return 0;
}
