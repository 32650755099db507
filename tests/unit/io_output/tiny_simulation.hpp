#pragma once

#include <memory>

#include "api/simulation.hpp"
#include "cost/fixed_cost_model.hpp"

namespace distsim::io::testing {

//! A 2-layer model on a made-up GPU: small enough that every number of its run is hand-computable.
inline strategy::JobSpec tiny_job(int tp, int pp, int dp, int gpus_per_node, int num_nodes, int global_batch) {
  strategy::JobSpec job;
  job.model.name = "tiny";
  job.model.num_layers = 2;
  job.model.hidden_size = 64;
  job.model.num_attention_heads = 4;
  job.model.num_kv_heads = 4;
  job.model.ffn_hidden_size = 256;
  job.model.vocab_size = 128;
  job.model.seq_length = 32;
  auto& gpu = job.cluster.gpu;
  gpu.name = "test-gpu";
  gpu.peak_fp16_tflops = 100;
  gpu.peak_bf16_tflops = 100;
  gpu.peak_fp8_tflops = 200;
  gpu.peak_fp32_tflops = 20;
  gpu.memory_gb = 40;
  gpu.memory_bandwidth_gbps = 1000;
  gpu.sm_count = 100;
  gpu.gemm_efficiency = 0.8;
  gpu.fp8_gemm_efficiency = 0.7;
  gpu.memory_efficiency = 0.8;
  gpu.kernel_launch_us = 5;
  job.cluster.name = "test-cluster";
  job.cluster.num_hosts = num_nodes;
  job.cluster.gpus_per_host = gpus_per_node;
  job.cluster.intra_node = {"test-switch", 100, 50, 1};
  job.cluster.inter_node = {"test-net", 1, 10, 5};
  job.strategy.tensor_parallel = tp;
  job.strategy.pipeline_parallel = pp;
  job.strategy.data_parallel = dp;
  job.strategy.micro_batch_size = 1;
  job.strategy.global_batch_size = global_batch;
  job.strategy.schedule = "gpipe";
  return job;
}

//! 1M2P1D on one node of two GPUs, two micro-batches.
inline strategy::JobSpec two_stage_job() { return tiny_job(1, 2, 1, 2, 1, 2); }

//! Only embedding, attention and transfers take time; everything else is free. With gpipe and two
//! micro-batches on 1M2P1D the timeline is (ns):
//!   stage 0: F0 [0, 3500) F1 [3500, 7000)                         B0 [12500, 15500) B1 [16000, 19000)
//!   stage 1:        F0 [4000, 5500)    F1 [7500, 9000) B0 [9000, 12000) B1 [12000, 15000)
//!   transfers: activations [3500, 4000) and [7000, 7500); gradients [12000, 12500) and [15500, 16000).
inline api::SimulationOptions fixed_costs(bool all_ranks = false) {
  api::SimulationOptions options;
  options.all_ranks = all_ranks;
  options.preferred_costs = std::make_shared<cost::FixedCostModel>(
      std::map<std::string, SimTime>{
          {"embedding", 2000}, {"flash_attention_fwd", 1500}, {"flash_attention_bwd", 3000}, {"send_recv", 500}},
      0, 0);
  return options;
}

}  // namespace distsim::io::testing
