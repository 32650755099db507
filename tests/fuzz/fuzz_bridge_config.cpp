// Megatron-Bridge ConfigContainer YAMLs as `--megatron-bridge` reads them, on a job of 64 GPUs;
// inputs of odd length change a recipe's model (llama-3.1-8b), as an override file with --model.
#include <cstddef>
#include <cstdint>

#include "catalog/builtin_models.hpp"
#include "core/input_error.hpp"
#include "fuzz_input.hpp"
#include "io/spec/bridge_config_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  constexpr long long kWorld = 64;
  distsim::io::BridgeContext context;
  context.world = kWorld;
  if (size % 2 == 1) context.recipe_model = distsim::catalog::find_model("llama-3.1-8b");
  try {
    distsim::io::read_bridge_config(distsim::fuzz::write_input(distsim::fuzz::as_text(data, size), "bridge"), context);
  } catch (const distsim::InputError&) {
    // A refusal with a message is the expected answer to bad input.
  }
  return 0;
}
