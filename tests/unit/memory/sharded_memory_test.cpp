#include <gtest/gtest.h>

#include "catalog/builtin_models.hpp"
#include "memory/memory_estimate.hpp"
#include "memory/model_state_memory.hpp"

namespace distsim::memory {

namespace {

using strategy::Sharding;

// bf16: 2 bytes of weights, 4 of fp32 gradients, 12 of optimizer states per parameter (ZeRO
// §5), each column divided by the shard group d from its stage on, rounded up.
TEST(ShardedModelState, EachStageShardsOneMoreColumn) {
  const auto zero1 = model_state_bytes(1000, Dtype::bf16, Sharding::optimizer, 8);
  EXPECT_EQ(zero1.weights, 2000);
  EXPECT_EQ(zero1.gradients, 4000);
  EXPECT_EQ(zero1.optimizer_states, 1500);  // 12,000 / 8
  const auto zero2 = model_state_bytes(1000, Dtype::bf16, Sharding::gradients, 8);
  EXPECT_EQ(zero2.weights, 2000);
  EXPECT_EQ(zero2.gradients, 500);  // 4,000 / 8
  EXPECT_EQ(zero2.optimizer_states, 1500);
  const auto zero3 = model_state_bytes(1000, Dtype::bf16, Sharding::full, 8);
  EXPECT_EQ(zero3.weights, 250);  // 2,000 / 8
  EXPECT_EQ(zero3.gradients, 500);
  EXPECT_EQ(zero3.optimizer_states, 1500);
  // 1001 parameters: 2002 / 8 = 250.25 → 251; 4004 / 8 = 500.5 → 501.
  const auto uneven = model_state_bytes(1001, Dtype::bf16, Sharding::full, 8);
  EXPECT_EQ(uneven.weights, 251);
  EXPECT_EQ(uneven.gradients, 501);
}

// The running unit and the prefetched one gathered in bf16 (2 x 2 bytes), the running unit's
// fp32 gradient (4 bytes).
TEST(ShardedModelState, GatheredUnitsAreTwoWeightCopiesAndOneGradient) {
  const auto gathered = gathered_unit_bytes(1000, Dtype::bf16);
  EXPECT_EQ(gathered.weights, 4000);
  EXPECT_EQ(gathered.gradients, 4000);
  EXPECT_EQ(gathered.optimizer_states, 0);
}

// Llama 3.1 8B (32 layers, h 4096, GQA 8 KV heads of 128, FFN 14336, vocab 128256, untied, RMSNorm):
// a layer has attention 4096·(4096 + 2·1024) + 4096·4096 = 41,943,040, MLP 3·4096·14336 =
// 176,160,768, two norms 8192: 218,112,000. Embedding 128256·4096 = 525,336,576 (128256 is a
// multiple of 128: no padding); head 525,336,576 + final norm 4096 = 525,340,672, the largest
// unit. P = 32·218,112,000 + 525,336,576 + 525,340,672 = 8,030,261,248.
// zero3 over 8 ranks, one stage, t = 1:
//   weights   2P/8 = 2,007,565,312 + 2·2·525,340,672 = 2,101,362,688 → 4,108,928,000
//   gradients 4P/8 = 4,015,130,624 + 4·525,340,672 = 2,101,362,688 → 6,116,493,312
//   optimizer 12P/8 = 12,045,391,872
TEST(ShardedMemoryEstimate, Llama8bZero3OnEightRanks) {
  strategy::JobSpec job;
  job.model = catalog::find_model("llama-3.1-8b");
  job.strategy.data_parallel = 8;
  job.strategy.micro_batch_size = 1;
  job.strategy.global_batch_size = 8;
  job.strategy.sharding = Sharding::full;
  job.cluster.gpu.memory_gb = 80;
  const StageMemory stage = estimate_memory(job).stages.at(0);
  EXPECT_EQ(stage.parameters, 8'030'261'248);
  EXPECT_EQ(stage.weights, 4'108'928'000);
  EXPECT_EQ(stage.gradients, 6'116'493'312);
  EXPECT_EQ(stage.optimizer_states, 12'045'391'872);
}

// zero2 over 8 ranks gathers no weights (2P = 16,060,522,496) but holds the running unit's whole
// fp32 gradients until they are reduce-scattered: 4P/8 = 4,015,130,624 + 4·525,340,672 (the
// head, the largest unit) = 2,101,362,688 → 6,116,493,312, as zero3's. zero3 on one rank (dp 1)
// shards over a group of one and gathers and reduces nothing: the replicas' 2P, 4P =
// 32,121,044,992 and 12P = 96,363,134,976.
TEST(ShardedMemoryEstimate, OnlyZero3OverSeveralRanksHoldsGatheredUnits) {
  strategy::JobSpec job;
  job.model = catalog::find_model("llama-3.1-8b");
  job.strategy.data_parallel = 8;
  job.strategy.micro_batch_size = 1;
  job.strategy.global_batch_size = 8;
  job.strategy.sharding = Sharding::gradients;
  job.cluster.gpu.memory_gb = 80;
  const StageMemory zero2 = estimate_memory(job).stages.at(0);
  EXPECT_EQ(zero2.weights, 16'060'522'496);
  EXPECT_EQ(zero2.gradients, 6'116'493'312);
  job.strategy.data_parallel = 1;
  job.strategy.global_batch_size = 1;
  job.strategy.sharding = Sharding::full;
  const StageMemory alone = estimate_memory(job).stages.at(0);
  EXPECT_EQ(alone.weights, 16'060'522'496);
  EXPECT_EQ(alone.gradients, 32'121'044'992);
  EXPECT_EQ(alone.optimizer_states, 96'363'134'976);
}

// HSDP: shard groups of 2 among dp 8 divide by 2, not 8: 12P/2 = 48,181,567,488.
TEST(ShardedMemoryEstimate, HsdpShardsOverItsGroupOnly) {
  strategy::JobSpec job;
  job.model = catalog::find_model("llama-3.1-8b");
  job.strategy.data_parallel = 8;
  job.strategy.micro_batch_size = 1;
  job.strategy.global_batch_size = 8;
  job.strategy.sharding = Sharding::full;
  job.strategy.shard_group = 2;
  job.cluster.gpu.memory_gb = 80;
  EXPECT_EQ(estimate_memory(job).stages.at(0).optimizer_states, 48'181'567'488);
}

}  // namespace

}  // namespace distsim::memory
