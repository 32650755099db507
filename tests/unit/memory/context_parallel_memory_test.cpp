#include <gtest/gtest.h>

#include "catalog/builtin_models.hpp"
#include "memory/activation_memory.hpp"
#include "memory/memory_estimate.hpp"

namespace distsim::memory {

namespace {

//! GPT-2 345M (h 1024, s 1024, 24 layers) on 4 stages, micro-batch 4, dp 2, eight micro-batches,
//! 1F1B, bf16, flash attention, with the distributed optimizer.
strategy::JobSpec cp_gpt2_job(int cp) {
  strategy::JobSpec job;
  job.model = catalog::find_model("gpt2-345m");
  job.cluster.gpu.name = "test-gpu";
  job.cluster.gpu.memory_gb = 80;
  job.strategy.context_parallel = cp;
  job.strategy.pipeline_parallel = 4;
  job.strategy.data_parallel = 2;
  job.strategy.micro_batch_size = 4;
  job.strategy.global_batch_size = 64;
  job.strategy.distributed_optimizer = true;
  return job;
}

}  // namespace

// A layer keeps 34·s·b·h bytes with FlashAttention and t = 1 (Korthikanti et al. Table 2 without
// the 5as/h score term): with cp = 2 each rank holds s/2 = 512 of the 1024 tokens, so
// 34 · 512 · 4 · 1024 = 71,303,168 bytes, half of 142,606,336.
TEST(ContextParallelMemory, EachRankKeepsTheActivationsOfItsTokens) {
  EXPECT_EQ(layer_activation_bytes(cp_gpt2_job(2).model, cp_gpt2_job(2).strategy, 0), 71'303'168);
  EXPECT_EQ(layer_activation_bytes(cp_gpt2_job(1).model, cp_gpt2_job(1).strategy, 0), 142'606'336);
}

// Every stored term (layers, embedding, head, pipeline buffers) is linear in the tokens, and the
// micro-batches in flight do not change (cp leaves the number of micro-batches at 64 / (4·2)):
// every stage's activations and buffers halve. The model state does not: weights (2 B) and
// gradients (4 B) per parameter stay, and the optimizer's 12 B shard over dp·cp = 4 ranks
// instead of 2.
TEST(ContextParallelMemory, HalvesActivationsButNotTheModelState) {
  const auto without = estimate_memory(cp_gpt2_job(1));
  const auto with = estimate_memory(cp_gpt2_job(2));
  for (size_t stage = 0; stage < 4; ++stage) {
    SCOPED_TRACE(stage);
    const auto& a = without.stages[stage];
    const auto& b = with.stages[stage];
    EXPECT_EQ(b.activations * 2, a.activations);
    EXPECT_EQ(b.pipeline_buffers * 2, a.pipeline_buffers);
    EXPECT_EQ(b.parameters, a.parameters);
    EXPECT_EQ(b.weights, 2 * b.parameters);
    EXPECT_EQ(b.gradients, 4 * b.parameters);
    EXPECT_EQ(b.optimizer_states, (12 * b.parameters + 3) / 4);
    EXPECT_EQ(a.optimizer_states, (12 * a.parameters + 1) / 2);
  }
}

}  // namespace distsim::memory
