#include <gtest/gtest.h>

#include "catalog/builtin_models.hpp"
#include "memory/activation_memory.hpp"
#include "schedule/pipeline_schedule.hpp"

namespace distsim::memory {

// DeepSeek-V3's first layer (latent attention and a dense SwiGLU MLP of 18432), one 4096-token
// sequence, bf16, tp 1.
// Latent attention: hidden-wide norm input, down-projection input and dropout mask
// (2 + 2 + 1)·4096·7168 = 146800640; the latents (q 1536 + kv 512) as norm inputs and
// up-projection inputs (2 + 2)·4096·2048 = 33554432; per head the query and key of 192 and the
// value and output of 128: 2·4096·128·(2·192 + 2·128) = 671088640. Sum 851443712.
// MLP: (2 + 2 + 1)·4096·7168 = 146800640, SwiGLU input 2·4096·36864 = 301989888, FC2 input
// 2·4096·18432 = 150994944. Sum 599785472. Layer: 1451229184 bytes.
TEST(MlaMemory, LatentAttentionLayerActivationsByHand) {
  model::ModelSpec model = catalog::find_model("deepseek-v3");
  model.seq_length = 4096;
  strategy::Strategy strategy;
  strategy.micro_batch_size = 1;
  EXPECT_EQ(layer_activation_bytes(model, strategy, 0), 1451229184);
}

// Tensor parallel 8 with sequence parallelism: the hidden-wide tensors and the latents are split
// over the sequence, (146800640 + 33554432) / 8 = 22544384, the heads over the ranks,
// 671088640 / 8 = 83886080; the MLP 146800640 / 8 + (301989888 + 150994944) / 8 = 74973184.
// Sum 181403648.
TEST(MlaMemory, TensorAndSequenceParallelSplitTheLatentLayer) {
  model::ModelSpec model = catalog::find_model("deepseek-v3");
  model.seq_length = 4096;
  strategy::Strategy strategy;
  strategy.micro_batch_size = 1;
  strategy.tensor_parallel = 8;
  strategy.sequence_parallel = true;
  EXPECT_EQ(layer_activation_bytes(model, strategy, 0), 181403648);
}

// Recomputing the up-projections (mla_up_proj) drops the query and key of 192 and the value of
// 128 per head, 2·4096·128·(192 + 192 + 128) = 536870912, keeping the attention output:
// 1451229184 − 536870912 = 914358272.
TEST(MlaMemory, UpProjectionRecomputationDropsQueriesKeysAndValues) {
  model::ModelSpec model = catalog::find_model("deepseek-v3");
  model.seq_length = 4096;
  strategy::Strategy strategy;
  strategy.micro_batch_size = 1;
  strategy.recompute = strategy::Recompute::mla_up_proj;
  EXPECT_EQ(layer_activation_bytes(model, strategy, 0), 914358272);
}

// Two such layers on one stage with one micro-batch in flight: recomputation saves 536870912 on
// each, and the layer being rebuilt holds its queries, keys and values again while its backward
// runs: the stage needs 2·536870912 − 536870912 = 536870912 bytes less than without it.
TEST(MlaMemory, TheRebuiltLayerHoldsItsQueriesKeysAndValuesAgain) {
  model::ModelSpec model = catalog::find_model("deepseek-v3");
  model.seq_length = 4096;
  model.num_layers = 2;
  model.mtp_layers = 0;
  strategy::Strategy strategy;
  strategy.micro_batch_size = 1;
  strategy.global_batch_size = 1;
  const auto& schedule = schedule::find_schedule(strategy.schedule);
  const std::int64_t kept_all =
      stage_activation_bytes(model, strategy, schedule.stage_chunk_placements(model, strategy, 0),
                             schedule.stage_microbatches_in_flight(strategy, 0));
  strategy.recompute = strategy::Recompute::mla_up_proj;
  EXPECT_EQ(kept_all - stage_activation_bytes(model, strategy, schedule.stage_chunk_placements(model, strategy, 0),
                                              schedule.stage_microbatches_in_flight(strategy, 0)),
            536870912);
}

// DeepSeek-V3 cut to one decoder layer: its MTP module's layer (numbered 1) is a dense latent
// layer like the one above, 1451229184 bytes. Besides it, per micro-batch: the shifted token ids
// 8·4096 = 32768; the two norms' inputs 2·2·4096·7168 = 117440512 and eh_proj's 2h-wide input
// 2·4096·14336 = 117440512; the second pass through the head, its norm's input and output
// 2·2·4096·7168 = 117440512 and the fp32 softmax 4·4096·129280 = 2118123520. Sum 3921707008.
TEST(MtpMemory, ModuleActivationsByHand) {
  model::ModelSpec model = catalog::find_model("deepseek-v3");
  model.num_layers = 1;
  model.seq_length = 4096;
  strategy::Strategy strategy;
  strategy.micro_batch_size = 1;
  EXPECT_EQ(mtp_activation_bytes(model, strategy), 3921707008);
}

}  // namespace distsim::memory
