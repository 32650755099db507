#include "memory/activation_memory.hpp"

#include <gtest/gtest.h>

#include "catalog/builtin_models.hpp"
#include "schedule/pipeline_schedule.hpp"

namespace distsim::memory {

namespace {

using strategy::Recompute;

strategy::Strategy parallel(int tp, int pp, bool sequence_parallel = false, Recompute recompute = Recompute::none) {
  strategy::Strategy strategy;
  strategy.tensor_parallel = tp;
  strategy.pipeline_parallel = pp;
  strategy.sequence_parallel = sequence_parallel;
  strategy.recompute = recompute;
  return strategy;
}

// GPT-2 345M with micro-batch 1: s = 1024, h = 1024, a = 16, so s·b·h = 1,048,576 and the
// score term 5·a·s/h = 80.
constexpr std::int64_t sbh = 1024 * 1024;

model::ModelSpec gpt2() { return catalog::find_model("gpt2-345m"); }

}  // namespace

// Korthikanti et al. 2022 Table 2, no parallelism: s·b·h·(34 + 5·a·s/h) = 114·sbh unfused.
// FlashAttention never stores the scores: 34·sbh.
TEST(LayerActivationBytes, KorthikantiTable2WithoutParallelism) {
  EXPECT_EQ(layer_activation_bytes(gpt2(), parallel(1, 1), 0, AttentionKernel::unfused), 114 * sbh);
  EXPECT_EQ(layer_activation_bytes(gpt2(), parallel(1, 1), 0), 34 * sbh);
}

// Table 2, tensor parallel t = 2: s·b·h·(10 + 24/t + 5·a·s/(h·t)) = (10 + 12 + 40)·sbh = 62·sbh;
// fused 22·sbh.
TEST(LayerActivationBytes, KorthikantiTable2TensorParallel) {
  EXPECT_EQ(layer_activation_bytes(gpt2(), parallel(2, 1), 0, AttentionKernel::unfused), 62 * sbh);
  EXPECT_EQ(layer_activation_bytes(gpt2(), parallel(2, 1), 0), 22 * sbh);
}

// Table 2, tensor + sequence parallel: s·b·h/t·(34 + 5·a·s/h) = 114/2·sbh = 57·sbh; fused 17·sbh.
TEST(LayerActivationBytes, SequenceParallelShardsEverything) {
  EXPECT_EQ(layer_activation_bytes(gpt2(), parallel(2, 1, true), 0, AttentionKernel::unfused), 57 * sbh);
  EXPECT_EQ(layer_activation_bytes(gpt2(), parallel(2, 1, true), 0), 17 * sbh);
}

// Selective recomputation drops the 5·a·s²·b/t scores: (10 + 24/2)·sbh = 22·sbh, the same as
// what FlashAttention stores without it.
TEST(LayerActivationBytes, SelectiveRecomputeDropsTheScores) {
  const auto selective = parallel(2, 1, false, Recompute::selective);
  EXPECT_EQ(layer_activation_bytes(gpt2(), selective, 0, AttentionKernel::unfused), 22 * sbh);
  EXPECT_EQ(layer_activation_bytes(gpt2(), selective, 0), 22 * sbh);
}

// Full recomputation keeps the 16-bit layer input, 2·sbh; sharded with SP, 2·sbh/2.
TEST(LayerActivationBytes, FullRecomputeKeepsOnlyTheInput) {
  EXPECT_EQ(layer_activation_bytes(gpt2(), parallel(2, 1, false, Recompute::full), 0), 2 * sbh);
  EXPECT_EQ(layer_activation_bytes(gpt2(), parallel(2, 1, true, Recompute::full), 0), sbh);
}

// fp32 jobs store 4-byte activations, masks stay 1 byte: 2 blocks × (2·4 + 1)·sbh = 18·sbh
// replicated; q, k, v, out-proj input 4·(2h + 2h)·sbh/h = 16·sbh; GeLU and FC2 inputs
// 4·(4h + 4h)/h = 32·sbh: 66·sbh.
TEST(LayerActivationBytes, Fp32DoublesTheTensorsButNotTheMasks) {
  auto strategy = parallel(1, 1);
  strategy.dtype = Dtype::fp32;
  EXPECT_EQ(layer_activation_bytes(gpt2(), strategy, 0), 66 * sbh);
}

// The generalization of docs/memory_model.md, s·b·(10h + (4·(q + kv) + c·f)/t) with q = a·d,
// kv = g·d, c = 6 for SwiGLU: a tiny GQA model, h 64, 8 heads of 8, 2 groups, f 160, s 16,
// b 1, t 2: 16·(640 + (4·(64 + 16) + 6·160)/2) = 16·(640 + 640) = 20,480.
// With SP, s·b·(10h + 4·(q + kv) + c·f)/t = 16·(640 + 320 + 960)/2 = 15,360.
TEST(LayerActivationBytes, GeneralizesToGroupedQueryAttentionAndSwiGLU) {
  model::ModelSpec model;
  model.num_layers = 2;
  model.hidden_size = 64;
  model.num_attention_heads = 8;
  model.num_kv_heads = 2;
  model.ffn_hidden_size = 160;
  model.ffn_type = model::FfnType::swiglu;
  model.seq_length = 16;
  model.vocab_size = 256;
  EXPECT_EQ(layer_activation_bytes(model, parallel(2, 1), 0), 20'480);
  EXPECT_EQ(layer_activation_bytes(model, parallel(2, 1, true), 0), 15'360);
}

// Megatron-LM's theoretical_memory_usage.py: 8 bytes of token id per token and a 1-byte
// dropout mask per element: 8·1024 + 1024·1024 = 1,056,768; with SP over 2, 528,384.
TEST(EmbeddingActivationBytes, TokenIdsAndDropoutMask) {
  EXPECT_EQ(embedding_activation_bytes(gpt2(), parallel(1, 1)), 1'056'768);
  EXPECT_EQ(embedding_activation_bytes(gpt2(), parallel(2, 1, true)), 528'384);
}

// Final norm input and LM head input, 2 · 2·sbh = 4,194,304, plus the fp32 softmax over the
// vocabulary shard, 4 · 1024 · 50304 = 206,045,184: 210,239,488. With t = 2, SP: the vocabulary
// pads to 50432, 4·1024·25216 = 103,284,736, plus 4,194,304/2: 105,381,888 — docs/reference/formats.md §6.5's
// 4·s·b·h·(1 + V/h)/t = 4·sbh·(1 + 50432/1024)/2.
TEST(HeadActivationBytes, NormTensorsAndFp32Softmax) {
  EXPECT_EQ(head_activation_bytes(gpt2(), parallel(1, 1)), 210'239'488);
  EXPECT_EQ(head_activation_bytes(gpt2(), parallel(2, 1, true)), 105'381'888);
}

//! stage_activation_bytes of a stage with the chunks and the micro-batches in flight that the
//! strategy's schedule gives it.
std::int64_t bytes_at_schedule_peak(const strategy::Strategy& strategy, int stage) {
  const auto& schedule = schedule::find_schedule(strategy.schedule);
  return stage_activation_bytes(gpt2(), strategy, schedule.stage_chunk_placements(gpt2(), strategy, stage),
                                schedule.stage_microbatches_in_flight(strategy, stage));
}

// GPT-2 345M, t = 1, p = 4, m = 8, b = 1, fused attention: 6 layers · 34·sbh = 213,909,504.
//   1F1B stage 0: (213,909,504 + embedding 1,056,768) · 4 = 859,865,088
//   1F1B stage 3: (213,909,504 + head 210,239,488) · 1 = 424,148,992
//   GPipe stage 0: 214,966,272 · 8 = 1,719,730,176
TEST(StageActivationBytes, ScalesWithTheMicrobatchesInFlight) {
  auto strategy = parallel(1, 4);
  strategy.micro_batch_size = 1;
  strategy.global_batch_size = 8;
  strategy.schedule = "1f1b";
  EXPECT_EQ(bytes_at_schedule_peak(strategy, 0), 859'865'088);
  EXPECT_EQ(bytes_at_schedule_peak(strategy, 3), 424'148'992);
  strategy.schedule = "gpipe";
  EXPECT_EQ(bytes_at_schedule_peak(strategy, 0), 1'719'730'176);
}

// Full recompute, 1F1B stage 1 (3 in flight): 3 · 6 · 2·sbh = 37,748,736, plus one layer
// rebuilt with all its activations, 34·sbh = 35,651,584: 73,400,320.
TEST(StageActivationBytes, FullRecomputeAddsOneRebuiltLayer) {
  auto strategy = parallel(1, 4, false, Recompute::full);
  strategy.micro_batch_size = 1;
  strategy.global_batch_size = 8;
  strategy.schedule = "1f1b";
  EXPECT_EQ(bytes_at_schedule_peak(strategy, 1), 73'400'320);
}

// A job that runs the unfused attention core stores Table 2's scores without being asked:
// t = 2 gives the 62·sbh above; selective recomputation drops them again (22·sbh), and the layer
// rebuilt under full recomputation holds them while its backward runs (stage_activation_bytes).
TEST(LayerActivationBytes, FollowsTheJobsAttentionImplementation) {
  strategy::Strategy unfused = parallel(2, 1);
  unfused.attention = strategy::Attention::unfused;
  EXPECT_EQ(layer_activation_bytes(gpt2(), unfused, 0), 62 * sbh);
  unfused.recompute = Recompute::selective;
  EXPECT_EQ(layer_activation_bytes(gpt2(), unfused, 0), 22 * sbh);
}

}  // namespace distsim::memory

namespace distsim::memory {

// A Mamba-2 layer of h 256 with 8 heads of 32 (inner 256), 2 groups of state 16, on 128 tokens in
// bf16: the norm input, the in_proj input and the 1-byte residual mask, (2 + 2 + 1)·128·256 =
// 163,840; the in_proj output z, x, B, C, dt of 256 + (256 + 2·2·16) + 8 = 584, the scan's output
// before the gate and the gated output the norm keeps, 256 each, and out_proj's input 256, at 2
// bytes: 2·128·(584 + 3·256) = 346,112. With tp 2 and sequence parallelism the first part is
// sequence-sharded and the rest split by heads: 163,840 / 2 + 346,112 / 2 = 254,976.
TEST(LayerActivationBytes, MambaBlockByHand) {
  // One layer of a Mamba-only pattern: the catalog's pattern cut to its first symbol, 'M'.
  model::ModelSpec model = catalog::find_model("nemotron-h-8b");
  model.hybrid_pattern.resize(1);
  model.num_layers = 1;
  model.hidden_size = 256;
  model.seq_length = 128;
  model.mamba = {.num_heads = 8, .head_dim = 32, .state_size = 16, .groups = 2, .conv_kernel = 4, .chunk_size = 64};
  EXPECT_EQ(layer_activation_bytes(model, parallel(1, 1), 0), 163'840 + 346'112);
  EXPECT_EQ(layer_activation_bytes(model, parallel(2, 1, true), 0), 254'976);
}

}  // namespace distsim::memory
