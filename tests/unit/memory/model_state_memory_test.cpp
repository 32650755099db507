#include "memory/model_state_memory.hpp"

#include <gtest/gtest.h>

#include "catalog/builtin_models.hpp"

namespace distsim::memory {

namespace {

strategy::Strategy split(int tp, int pp) {
  strategy::Strategy strategy;
  strategy.tensor_parallel = tp;
  strategy.pipeline_parallel = pp;
  return strategy;
}

}  // namespace

// Megatron-LM dist_optimizer.md (docs/reference/formats.md §6.6): bf16 params, fp32 grads, Adam = 2 + 4 + 12.
TEST(ModelStateBytes, Bf16IsEighteenBytesPerParameter) {
  const auto bytes = model_state_bytes(1000, Dtype::bf16, strategy::Sharding::none, 8);
  EXPECT_EQ(bytes.weights, 2000);
  EXPECT_EQ(bytes.gradients, 4000);
  EXPECT_EQ(bytes.optimizer_states, 12000);
  EXPECT_EQ(bytes.total(), 18 * 1000);
}

// The distributed optimizer shards only the 12 optimizer bytes: 6 + 12/d; d = 4 gives 9.
TEST(ModelStateBytes, DistributedOptimizerIsSixPlusTwelveOverD) {
  const auto bytes = model_state_bytes(1000, Dtype::bf16, strategy::Sharding::optimizer, 4);
  EXPECT_EQ(bytes.weights, 2000);
  EXPECT_EQ(bytes.gradients, 4000);
  EXPECT_EQ(bytes.optimizer_states, 3000);
  EXPECT_EQ(bytes.total(), 9 * 1000);
}

// fp8 GEMMs keep bf16 weights with fp32 master copies: the bf16 row.
TEST(ModelStateBytes, Fp8TrainsWithTheBf16Row) {
  EXPECT_EQ(model_state_bytes(1000, Dtype::fp8, strategy::Sharding::none, 1).total(), 18 * 1000);
}

// fp16: 2 + 2 + 16 = 20; distributed 4 + 16/d, with d = 8: 6. fp32: 16; distributed 8 + 8/d.
TEST(ModelStateBytes, Fp16AndFp32FollowMegatronsTable) {
  EXPECT_EQ(model_state_bytes(1000, Dtype::fp16, strategy::Sharding::none, 8).total(), 20 * 1000);
  EXPECT_EQ(model_state_bytes(1000, Dtype::fp16, strategy::Sharding::optimizer, 8).total(), 6 * 1000);
  EXPECT_EQ(model_state_bytes(1000, Dtype::fp32, strategy::Sharding::none, 8).total(), 16 * 1000);
  EXPECT_EQ(model_state_bytes(1000, Dtype::fp32, strategy::Sharding::optimizer, 8).total(), 9 * 1000);
}

// 12 bytes × 1001 parameters over 8 ranks = 1501.5: a shard holds the rounded-up 1502.
TEST(ModelStateBytes, UnevenShardsRoundUp) {
  EXPECT_EQ(model_state_bytes(1001, Dtype::bf16, strategy::Sharding::optimizer, 8).optimizer_states, 1502);
}

// GPT-2 345M (24 layers, h 1024, vocab 50304, s 1024, tied, LayerNorm): a layer has
// 12h² + 13h = 12,582,912 + 13,312 = 12,596,224; the embedding 50304·1024 + 1024·1024 =
// 51,511,296 + 1,048,576 = 52,559,872; the head the final norm, 2h = 2048.
// 24 · 12,596,224 + 52,559,872 + 2048 = 354,871,296 (the "345M" model has ~355M).
TEST(StageParameters, OneStageHoldsTheWholeModel) {
  const auto model = catalog::find_model("gpt2-345m");
  EXPECT_EQ(stage_parameters(model, split(1, 1), 0), 354'871'296);
}

// tp 2, pp 4: six layers a stage, 6 · 12,596,224 = 75,577,344. The vocabulary pads to a
// multiple of 256: 50432 · 1024 = 51,642,368.
//   stage 0: 75,577,344 + 51,642,368 + 1,048,576 = 128,268,288, / 2 = 64,134,144
//   stage 1: 75,577,344 / 2 = 37,788,672
//   stage 3: 75,577,344 + 2048 + 51,642,368 (its copy of the tied table) = 127,221,760, / 2 = 63,610,880
TEST(StageParameters, EmbeddingFirstHeadAndTiedCopyLast) {
  const auto model = catalog::find_model("gpt2-345m");
  EXPECT_EQ(stage_parameters(model, split(2, 4), 0), 64'134'144);
  EXPECT_EQ(stage_parameters(model, split(2, 4), 1), 37'788'672);
  EXPECT_EQ(stage_parameters(model, split(2, 4), 3), 63'610'880);
}

// Untied on one stage: a second 50304 · 1024 table, 354,871,296 + 51,511,296 = 406,382,592.
TEST(StageParameters, UntiedHeadAddsItsOwnTable) {
  auto model = catalog::find_model("gpt2-345m");
  model.tie_embeddings = false;
  EXPECT_EQ(stage_parameters(model, split(1, 1), 0), 406'382'592);
}

// DeepSeek-V3 cut to its first layer (dense MLP, no MTP): attention GEMMs 187,105,280 (worked in
// tests/unit/events/mla_events_test.cpp) and latent norms 1536 + 512, SwiGLU MLP 3 · 7168 · 18432
// = 396,361,728, two norms 14,336, embedding 129280 · 7168 = 926,679,040 (129280 is a multiple of
// 256: no padding at tp 1 or 2), the head its final norm 7168 and an untied table 926,679,040:
// 2,436,848,640 on one rank. At tp 2 the down-projections W_DQ 7168 · 1536 = 11,010,048 and
// W_DKV 7168 · 576 = 4,128,768 and the latent norms 1536 + 512 stay whole (Megatron-Core's
// TELinear 'duplicated'): 15,140,864 whole plus (2,436,848,640 − 15,140,864) / 2 = 1,210,853,888,
// 1,225,994,752.
TEST(StageParameters, LatentDownProjectionsStayWholeUnderTensorParallelism) {
  auto model = catalog::find_model("deepseek-v3");
  model.num_layers = 1;
  model.mtp_layers = 0;
  EXPECT_EQ(stage_parameters(model, split(1, 1), 0), 2'436'848'640);
  EXPECT_EQ(stage_parameters(model, split(2, 1), 0), 1'225'994'752);
}

// A checkpoint holds every parameter once (GPT-2 345M: 354,871,296, worked out above) in its working
// dtype with Adam's three fp32 states: bf16 2 + 12 = 14 bytes, 4,968,198,144; fp16 the same 14,
// its fp32 master gradients (the 4 of its 16 optimizer bytes that are no state) left out; fp32
// 4 + 8 = 12 bytes (the weights are the master copy), 4,258,455,552.
TEST(CheckpointBytes, EveryParameterOnceWithItsOptimizerStates) {
  const auto model = catalog::find_model("gpt2-345m");
  EXPECT_EQ(checkpoint_bytes(model, Dtype::bf16), 4'968'198'144);
  EXPECT_EQ(checkpoint_bytes(model, Dtype::fp16), 4'968'198'144);
  EXPECT_EQ(checkpoint_bytes(model, Dtype::fp32), 4'258'455'552);
}

}  // namespace distsim::memory
