// torchtitan job TOMLs as `--torchtitan` reads them, on a job of 64 GPUs.
#include <cstddef>
#include <cstdint>

#include "core/input_error.hpp"
#include "fuzz_input.hpp"
#include "io/spec/torchtitan_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  constexpr int kWorld = 64;
  try {
    distsim::io::read_torchtitan_toml(distsim::fuzz::as_text(data, size), "job", {kWorld, false});
  } catch (const distsim::InputError&) {
    // A refusal with a message is the expected answer to bad input.
  }
  return 0;
}
