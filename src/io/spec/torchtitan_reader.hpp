#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "io/spec/megatron_args_reader.hpp"

namespace distsim::io {

//! What the torchtitan reader needs from the rest of the command line.
struct TorchtitanContext {
  //! GPUs of the job (--nodes x GPUs per node), which data_parallel_shard_degree = -1 fills.
  std::optional<int> world;
  //! Whether --model names the model, so that [model] need not name a built-in one.
  bool model_given = false;
};

//! Reads a torchtitan job TOML (torchtitan/config/job_config.py) as a job:
//! - [model] name and flavor: the built-in model "<name> <flavor>" names by the catalog's names
//!   and aliases (torchtitan's llama3 8B is llama-3.1-8b; mixtral 8x7B is mixtral-8x7b); converters
//!   "float8" or "mx" ask for low-precision GEMMs;
//! - [parallelism]: data_parallel_shard_degree (-1: what the others leave of the world), _replicate,
//!   tensor, pipeline, context and expert degrees; FSDP2 (fully_shard) over dp_shard x cp ranks is
//!   sharding zero3 with that shard group, replicated over dp_replicate (HSDP); the pipeline
//!   schedule and its micro-batch size, layers per stage;
//! - [training] local_batch_size (batch_size), global_batch_size, seq_len, mixed_precision_param;
//! - [activation_checkpoint] mode none, full or selective (every layer: full; "op" is refused);
//! - [float8] recipe_name, [compile] enable (torch.compile's fusion is refused, as in validate).
//! Sections that do not change a step's time ([job], [metrics], [optimizer], [checkpoint], ...)
//! are named as ignored; an unknown section or key is refused with the closest known one. Every
//! problem is reported in one InputError naming `origin` and the key.
LaunchJob read_torchtitan_toml(std::string_view text, const std::string& origin, const TorchtitanContext& context);

}  // namespace distsim::io
