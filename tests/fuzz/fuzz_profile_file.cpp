// Profile interchange files as `distsim db import` reads them: structure, then values.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/input_error.hpp"
#include "fuzz_input.hpp"
#include "profile_db/profile_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const std::string text(distsim::fuzz::as_text(data, size));
    const auto file = distsim::profile_db::parse_profile_file(text, "fuzz.json");
    distsim::profile_db::check_profile_records(file, "fuzz.json");
  } catch (const distsim::InputError&) {
    // A refusal with a message is the expected answer to bad input; anything else escapes and
    // the fuzzer reports it (the command line would exit 70 on it).
  }
  return 0;
}
