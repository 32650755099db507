#include <gtest/gtest.h>

#include "catalog/builtin_models.hpp"
#include "memory/activation_memory.hpp"
#include "memory/memory_estimate.hpp"
#include "memory/model_state_memory.hpp"

namespace distsim::memory {

namespace {

// GPT-2 345M, micro-batch 1: s = h = 1024 (s·b·h = 1,048,576), q = k = v = 1024 wide, GELU FFN
// f = 4096. With bf16 a layer keeps 34·fp8_sbh (Korthikanti Table 2 without the scores): per block
// 2·fp8_sbh norm input, 2·fp8_sbh GEMM input, 1·fp8_sbh mask; q, k, v, attention output 8·fp8_sbh; GELU input and
// FC2 input 16·fp8_sbh.
constexpr std::int64_t fp8_sbh = 1024 * 1024;

strategy::Strategy split(int tp, bool fp8, bool sequence_parallel = false) {
  strategy::Strategy strategy;
  strategy.tensor_parallel = tp;
  strategy.sequence_parallel = sequence_parallel;
  strategy.gemm_format = fp8 ? distsim::strategy::GemmFormat::fp8 : distsim::strategy::GemmFormat::none;
  return strategy;
}

model::ModelSpec fp8_gpt2() { return catalog::find_model("gpt2-345m"); }

}  // namespace

// TransformerEngine keeps QKV's and FC1's inputs in fp8 (−1·fp8_sbh each), FC2's fp8 input instead
// of the bf16 GELU output (−1 byte · 4·fp8_sbh), and an fp8 copy of the attention output next to the
// bf16 one FlashAttention keeps (+1·fp8_sbh): 34 − 1 − 1 − 4 + 1 = 29·fp8_sbh.
TEST(Fp8Memory, KeepsTheGemmInputsInFp8) {
  EXPECT_EQ(layer_activation_bytes(fp8_gpt2(), split(1, false), 0), 34 * fp8_sbh);
  EXPECT_EQ(layer_activation_bytes(fp8_gpt2(), split(1, true), 0), 29 * fp8_sbh);
}

// t = 2: the replicated part (norm inputs, GEMM inputs, masks) goes from 10 to 8·fp8_sbh; the split
// part from 12·fp8_sbh (q, k, v, output 4; GELU input 4, FC2 input 4) to 4 + 0.5 (output copy) + 4 + 2
// = 10.5·fp8_sbh: 18.5·fp8_sbh. Sequence parallelism halves the replicated part: 4 + 10.5 = 14.5·fp8_sbh.
TEST(Fp8Memory, TensorAndSequenceParallelismSplitTheFp8Copies) {
  EXPECT_EQ(layer_activation_bytes(fp8_gpt2(), split(2, true), 0), 37 * fp8_sbh / 2);
  EXPECT_EQ(layer_activation_bytes(fp8_gpt2(), split(2, true, true), 0), 29 * fp8_sbh / 2);
}

// The linear GEMMs of a GPT-2 layer hold 3h² (QKV) + h² (output) + 4h² (FC1) + 4h² (FC2) = 12h²
// = 12,582,912 weights; their fp8 copy and its transpose take 2 bytes each. 24 layers on one
// stage: 603,979,776 bytes; the first of two stages holds 12 layers, split over t = 2: 12 ·
// 12,582,912 / 2 · 2 = 150,994,944 bytes.
TEST(Fp8Memory, KeepsAnFp8WeightAndItsTransposePerGemmWeight) {
  strategy::Strategy one_stage = split(1, true);
  EXPECT_EQ(low_precision_weight_copy_bytes(fp8_gpt2(), one_stage, 0), 603'979'776);
  strategy::Strategy two_stages = split(2, true);
  two_stages.pipeline_parallel = 2;
  EXPECT_EQ(low_precision_weight_copy_bytes(fp8_gpt2(), two_stages, 0), 150'994'944);
  EXPECT_EQ(low_precision_weight_copy_bytes(fp8_gpt2(), split(1, false), 0), 0);
}

// A three-layer toy with latent attention (h 8, 2 heads, q_lora 4, kv_lora 3, nope 2, rope 1,
// v 2; SwiGLU FFN 16): per layer the attention GEMMs hold W_DQ 32 + W_UQ 24 + W_DKV 32 + W_UKV 24
// + W_O 32 = 144 weights and the MLP 3·8·16 = 384. At t = 2 the down-projections (64) stay whole:
// 64 + (528 − 64)/2 = 296 per layer, 3 layers, 2 one-byte copies: 1,776 bytes.
TEST(Fp8Memory, LatentDownProjectionCopiesAreWholeOnEveryTensorRank) {
  model::ModelSpec model;
  model.num_layers = 3;
  model.hidden_size = 8;
  model.num_attention_heads = 2;
  model.num_kv_heads = 2;
  model.ffn_hidden_size = 16;
  model.ffn_type = model::FfnType::swiglu;
  model.norm = model::NormType::rmsnorm;
  model.vocab_size = 10;
  model.seq_length = 32;
  model.mla = {.q_lora_rank = 4, .kv_lora_rank = 3, .qk_nope_head_dim = 2, .qk_rope_head_dim = 1, .v_head_dim = 2};
  EXPECT_EQ(low_precision_weight_copy_bytes(model, split(2, true), 0), 1'776);
}

// One stage, one micro-batch in flight: the estimate's weights grow by the fp8 copies and its
// activations shrink by 5·fp8_sbh per layer, 24 · 5,242,880 = 125,829,120 bytes; gradients and
// optimizer states do not change.
TEST(Fp8Memory, EstimateAddsTheCopiesAndSavesActivations) {
  strategy::JobSpec job;
  job.model = fp8_gpt2();
  job.cluster.gpu.name = "test-gpu";
  job.cluster.gpu.memory_gb = 80;
  job.strategy = split(1, false);
  job.strategy.global_batch_size = 1;
  const StageMemory bf16 = estimate_memory(job).stages.at(0);
  job.strategy.gemm_format = distsim::strategy::GemmFormat::fp8;
  const StageMemory fp8 = estimate_memory(job).stages.at(0);
  EXPECT_EQ(fp8.weights - bf16.weights, 603'979'776);
  EXPECT_EQ(bf16.activations - fp8.activations, 24 * 5 * fp8_sbh);
  EXPECT_EQ(fp8.gradients, bf16.gradients);
  EXPECT_EQ(fp8.optimizer_states, bf16.optimizer_states);
}

}  // namespace distsim::memory
