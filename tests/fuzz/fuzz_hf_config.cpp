// Hugging Face config.json files, read as such even when no key marks them as one, so that
// mutations that drop model_type still reach the Hugging Face reader.
#include <cstddef>
#include <cstdint>

#include "core/input_error.hpp"
#include "fuzz_input.hpp"
#include "io/document/diagnostics.hpp"
#include "io/document/document.hpp"
#include "io/document/mapping_reader.hpp"
#include "io/spec/hf_config_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const distsim::io::Document document = distsim::io::load_document(
        distsim::fuzz::write_input(distsim::fuzz::as_text(data, size), "config.json"), "model file");
    distsim::io::Diagnostics diagnostics(document.path);
    distsim::io::MappingReader reader(document.root, "", diagnostics);
    distsim::io::read_hf_config(reader, document.path);
    diagnostics.throw_if_any();
  } catch (const distsim::InputError&) {
    // A refusal with a message is the expected answer to bad input; anything else escapes and
    // the fuzzer reports it (the command line would exit 70 on it).
  }
  return 0;
}
