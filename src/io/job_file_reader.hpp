#pragma once

#include <optional>
#include <string>

namespace distsim::io {

//! What a job file says, key for key: the keys are the job flags of `distsim simulate` with
//! underscores (`micro_batch_size` for --micro-batch-size), and a key the file leaves out keeps
//! the flag's default. Names are not resolved here: model, gpu and cluster stay what the file
//! wrote, except that a relative path is made relative to the job file's folder.
struct JobFile {
  std::string path;
  std::optional<std::string> model;
  std::optional<std::string> gpu;
  std::optional<std::string> cluster;
  std::optional<int> nodes;
  std::optional<int> gpus_per_node;
  std::optional<std::string> strategy;
  std::optional<int> tp;
  std::optional<int> pp;
  std::optional<int> dp;
  std::optional<int> cp;
  std::optional<int> micro_batch_size;
  std::optional<int> global_batch_size;
  std::optional<int> seq_length;
  std::optional<std::string> schedule;
  std::optional<std::string> dtype;
  std::optional<bool> sequence_parallel;
  std::optional<std::string> recompute;
  std::optional<bool> distributed_optimizer;
  std::optional<bool> overlap_grad_reduce;
  std::optional<bool> p2p_scatter_gather;
  std::optional<int> virtual_stages;
  std::optional<bool> fp8;
};

//! Reads a YAML or JSON job file. Unknown keys (with the closest known one), values of the wrong
//! type, dtype and recompute values that are not one of theirs, and `strategy` given with tp, pp
//! or dp are all reported in one InputError, one problem per line with the file and line.
JobFile read_job_file(const std::string& path);

}  // namespace distsim::io
