#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "strategy/job_spec.hpp"

namespace distsim::cli {

//! The flags that describe a job, shared by `simulate` and `events`. The defaults are the
//! built-in default job: GPT-2 345M on 4 nodes x 4 A40, 2M2P4D, micro-batch 4, global batch 64.
struct JobOptions {
  std::string model = "gpt2-345m";
  std::string gpu;
  std::string cluster;
  int nodes = 0;
  int gpus_per_node = 0;
  std::string strategy;
  int tp = 0;
  int pp = 0;
  int dp = 0;
  int cp = 0;  //!< context parallel size; 0 keeps the strategy's (1 unless --strategy has a C part)
  int micro_batch_size = 4;
  int global_batch_size = 64;
  int seq_length = 0;
  std::string schedule = "1f1b";
  std::string dtype = "bf16";
  bool sequence_parallel = false;
  std::string recompute = "none";
  bool distributed_optimizer = false;
  bool overlap_grad_reduce = false;
  bool p2p_scatter_gather = false;
  int virtual_stages = 1;
  std::string attention = "flash";
  bool fp8 = false;
  //! How a rejected fp8 request is named in the error: the flag, or a job file's key.
  std::string fp8_origin = "--fp8";

  void add_to(CLI::App& command);
  //! Resolves names and files and assembles the job; throws InputError on bad values.
  strategy::JobSpec to_job() const;
};

}  // namespace distsim::cli
