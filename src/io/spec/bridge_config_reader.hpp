#pragma once

#include <optional>
#include <string>

#include "io/spec/megatron_args_reader.hpp"
#include "model/model_spec.hpp"

namespace distsim::io {

//! What the Megatron-Bridge reader needs from the rest of the command line.
struct BridgeContext {
  //! GPUs of the job (--nodes x GPUs per node): a Bridge config does not hold its world, which
  //! the launcher (torchrun, Slurm) sets; the data-parallel size is what tp x pp x cp leave of it.
  std::optional<long long> world;
  //! The model --model names: the recipe's model, whose shape a config that overrides some
  //! fields (or none) of `model` starts from.
  std::optional<model::ModelSpec> recipe_model;
  //! Whether --dp is given, so that a config without a world needs no word about it.
  bool dp_given = false;
};

//! Reads a Megatron-Bridge ConfigContainer YAML (megatron/bridge/training/config.py), as Bridge
//! writes it at run time (every field, Python objects as `_target_` mappings) or as an override
//! file of a recipe (some fields), the whole under `ConfigContainer:` or at the top level.
//!
//! Bridge's rule (its guide docs/megatron-lm-to-megatron-bridge.md) says a field `section.name` is
//! Megatron-LM's argument `--name` with dashes, save for the renamed fields of bridge_fields.hpp;
//! so each field is read as that argument by the Megatron-LM reader, with its vocabulary and its
//! refusals. A field that is null, false, 0.0, empty or "none" is unset, as an absent argument is;
//! a field that means something only beside another one (fp8_recipe beside fp8, tp_comm_* beside
//! tp_comm_overlap, moe_* beside num_moe_experts) is read only when that one is set. When
//! sections give one field, the one Bridge applies last wins: comm_overlap and mixed_precision
//! over the model, ddp and train over the optimizer. Sections that change no step's time
//! (checkpoint, logger, scheduler, ...) are named as ignored; `peft` set is refused. Every problem
//! is reported in one InputError naming `origin`, the line and the field.
LaunchJob read_bridge_config(const std::string& path, const BridgeContext& context);

}  // namespace distsim::io
