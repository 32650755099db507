#pragma once

#include <string>

#include "core/dtype.hpp"

namespace distsim::strategy {

//! How a job is parallelized and batched. Sizes follow Megatron-LM: tensor (model) parallel,
//! pipeline parallel and data parallel degrees, micro-batch and global batch in sequences.
struct Strategy {
  int tensor_parallel = 1;
  int pipeline_parallel = 1;
  int data_parallel = 1;
  int micro_batch_size = 1;
  int global_batch_size = 1;
  std::string schedule = "1f1b";
  Dtype dtype = Dtype::bf16;  //!< activations, weights and GEMM inputs
  int dp_bucket_params = 0;   //!< gradient bucket size in parameters; 0 means Megatron's default

  int world_size() const { return tensor_parallel * pipeline_parallel * data_parallel; }
  int num_microbatches() const { return global_batch_size / (micro_batch_size * data_parallel); }
  //! Megatron's default bucket: max(40M, 1M·dp) parameters (distributed_data_parallel.py).
  int bucket_params() const {
    if (dp_bucket_params > 0) {
      return dp_bucket_params;
    }
    const int scaled = 1'000'000 * data_parallel;
    return scaled > 40'000'000 ? scaled : 40'000'000;
  }
  //! The paper's notation: 2M2P4D.
  std::string notation() const {
    return std::to_string(tensor_parallel) + "M" + std::to_string(pipeline_parallel) + "P" +
           std::to_string(data_parallel) + "D";
  }
};

//! Parses the paper's xMyPzD notation (any order of the three parts, each at most once).
//! Throws InputError naming the text and the expected form.
Strategy parse_strategy_notation(const std::string& text);

}  // namespace distsim::strategy
