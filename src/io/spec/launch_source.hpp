#pragma once

#include <string>

#include "io/spec/megatron_args_reader.hpp"
#include "options/job_settings.hpp"

namespace distsim::io {

//! Where a job's launch settings come from, as `--megatron-args`, `--torchtitan` and
//! `--megatron-bridge` (or Python's `Job(megatron_args=..., torchtitan=..., megatron_bridge=...)`)
//! name them: at most one of them.
struct LaunchSource {
  std::string megatron_args;    //!< a launch script or arguments file, or the argument text itself
  std::string torchtitan;       //!< a torchtitan job TOML file
  std::string megatron_bridge;  //!< a Megatron-Bridge ConfigContainer YAML file
  bool empty() const { return megatron_args.empty() && torchtitan.empty() && megatron_bridge.empty(); }
};

//! Reads the launch `source` names; `given` are the settings given beside it: their model names
//! the vocabulary of the model Megatron arguments describe (they have none of their own) and the
//! recipe model a Megatron-Bridge config changes, their nodes the world that a torchtitan
//! data_parallel_shard_degree of -1 fills and that a Bridge config splits. Empty settings for an
//! empty source; InputError when two are given or one cannot be read.
LaunchJob read_launch(const LaunchSource& source, const options::JobSettings& given);

//! A job's settings: `given` over the launch's over the job file's. Where the launch gives a model,
//! the given one gave only its vocabulary or the shape the launch changed: the launch's is the model.
options::JobSettings launch_job_settings(const LaunchSource& source, options::JobSettings given,
                                         const LaunchJob& launch, const options::JobSettings& file);

}  // namespace distsim::io
