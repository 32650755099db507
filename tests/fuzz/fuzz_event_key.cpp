// Event keys, the text a profile stores per measured event. A key that parses must read back
// exactly as distsim writes it: parse_event_key refuses every other spelling.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/input_error.hpp"
#include "events/event_key.hpp"
#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const auto key = distsim::fuzz::as_text(data, size);
    const std::string written = distsim::events::format_event_key(distsim::events::parse_event_key(key));
    if (written != key) {
      std::fprintf(stderr, "event key \"%.*s\" was accepted but is written \"%s\"\n", static_cast<int>(key.size()),
                   key.data(), written.c_str());
      std::abort();
    }
  } catch (const distsim::InputError&) {
    // A refusal with a message is the expected answer to bad input; anything else escapes and
    // the fuzzer reports it (the command line would exit 70 on it).
  }
  return 0;
}
