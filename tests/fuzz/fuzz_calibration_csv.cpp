// Calibration CSV files as `distsim validate --csv FILE` reads them (the CSV table and the
// published-column vocabulary).
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/input_error.hpp"
#include "fuzz_input.hpp"
#include "io/calibration/calibration_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    distsim::io::read_calibration_runs(distsim::fuzz::as_text(data, size), "fuzz.csv");
  } catch (const distsim::InputError&) {
    // A refusal with a message is the expected answer to bad input; anything else escapes and
    // the fuzzer reports it (the command line would exit 70 on it).
  }
  return 0;
}
