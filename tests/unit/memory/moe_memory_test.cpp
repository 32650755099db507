#include <gtest/gtest.h>

#include "catalog/builtin_clusters.hpp"
#include "catalog/builtin_models.hpp"
#include "memory/activation_memory.hpp"
#include "memory/memory_estimate.hpp"
#include "memory/model_state_memory.hpp"

namespace distsim::memory {

namespace {

// Two Mixtral-shaped layers: h 256, 8 heads of 32, 4 KV heads, 8 experts of FFN 512, top-2,
// SwiGLU, RMSNorm, no biases, vocabulary 1024 (already a multiple of 128), untied head, 128
// tokens; one stage of tp 1 x dp 8 with ep 4 (2 experts per rank, expert data parallel 2).
strategy::JobSpec moe_job() {
  strategy::JobSpec job;
  job.model = catalog::find_model("mixtral-8x7b");
  job.model.num_layers = 2;
  job.model.hidden_size = 256;
  job.model.num_attention_heads = 8;
  job.model.num_kv_heads = 4;
  job.model.ffn_hidden_size = 512;
  job.model.vocab_size = 1024;
  job.model.seq_length = 128;
  job.model.moe.expert_ffn_hidden_size = 512;
  job.cluster = catalog::find_cluster("dgx-h100");
  job.cluster.num_hosts = 1;
  job.strategy.data_parallel = 8;
  job.strategy.expert_parallel = 4;
  job.strategy.micro_batch_size = 1;
  job.strategy.global_batch_size = 8;
  return job;
}

}  // namespace

// Per layer: attention 256·(256 + 2·128) + 256·256 = 196608, two norms 512, router 256·8 = 2048,
// routed experts 8·3·256·512 = 3145728 of which a rank holds 2 of 8: 786432.
// Embedding 1024·256 = 262144; head: final norm 256 + output 262144.
// Experts: 2·786432 = 1572864; the rest: 262144 + 262400 + 2·199168 = 922880; in all 2495744.
TEST(MoeMemory, ExpertParametersAreDividedByEp) {
  const auto job = moe_job();
  EXPECT_EQ(stage_expert_parameters(job.model, job.strategy, 0), 1572864);
  EXPECT_EQ(stage_parameters(job.model, job.strategy, 0), 2495744);
}

// The distributed optimizer shards the dense Adam states (12 B) over dp·cp = 8 ranks and the
// experts' over expert-DP = 8 / 4 = 2: 12·922880/8 + 12·1572864/2 = 1384320 + 9437184 = 10821504.
// Weights 2 B and gradients 4 B per parameter are not sharded: 4991488 and 9982976.
TEST(MoeMemory, DistributedOptimizerShardsExpertStatesOverExpertDataParallel) {
  auto job = moe_job();
  job.strategy.distributed_optimizer = true;
  const StageMemory stage = estimate_memory(job).stages.front();
  EXPECT_EQ(stage.optimizer_states, 10821504);
  EXPECT_EQ(stage.weights, 4991488);
  EXPECT_EQ(stage.gradients, 9982976);
}

// One MoE layer's stored activations, t = 128 tokens, 2-byte elements, h = 256:
// attention block (as for a dense layer): (2 + 2 + 1)·t·h = 163840 replicated, plus q, k, v and
// the output projection's input 2·(2·128·256 + 2·128·128) = 196608;
// MoE block: norm input, router input and dropout mask (2 + 2 + 1)·t·h = 163840; routing
// buffers (4 + 1)·t·E = 5·128·8 = 5120; the busiest rank's 128·2 = 256 routed copies (2 experts
// of 128) each keep FC1's input 2·256, the SwiGLU input 2·1024, FC2's input 2·512 and the expert
// output 2·256: 256·4096 = 1048576. Total 1577984.
TEST(MoeMemory, MoeLayerActivationsByHand) {
  const auto job = moe_job();
  EXPECT_EQ(layer_activation_bytes(job.model, job.strategy, 0), 1577984);
}

// The same layer with ep 2 and etp 2: a rank holds 8 / 2 = 4 experts on half of each FFN (256)
// and computes its expert tensor group's 2·256 = 512 routed copies, each keeping FC1's input
// 2·256, the SwiGLU input 2·512, FC2's input 2·256 and the output 2·256, 2560 bytes:
// 512·2560 = 1310720 in place of 1048576. Total 1577984 − 1048576 + 1310720 = 1840128.
TEST(MoeMemory, ExpertTensorParallelismKeepsTheGroupsRowsOnASliceOfTheFfn) {
  auto job = moe_job();
  job.strategy.expert_parallel = 2;
  job.strategy.expert_tensor_parallel = 2;
  EXPECT_EQ(layer_activation_bytes(job.model, job.strategy, 0), 1840128);
}

}  // namespace distsim::memory

namespace distsim::memory {

// Qwen3-style per-head query/key norms keep their inputs, the query (8 heads x 32 = 256 wide) and
// the key (4 x 32 = 128) of each of the 128 tokens at 2 bytes: 2·128·(256 + 128) = 98304 bytes on
// top of the 1577984 of MoeLayerActivationsByHand, 1676288.
TEST(MoeMemory, QkNormKeepsTheQueryAndKeyBeforeTheNorm) {
  auto job = moe_job();
  job.model.qk_norm = true;
  EXPECT_EQ(layer_activation_bytes(job.model, job.strategy, 0), 1676288);
}

}  // namespace distsim::memory

namespace distsim::memory {

// Llama 4's scale-free QK norm keeps the same inputs as Qwen3's, 98304 bytes, but only in the
// layers that rotate positions: with a NoPE layer every 4th, layers 0-2 keep 1676288 as above and
// layer 3 the 1577984 of a layer without QK norm.
TEST(MoeMemory, Llama4QkNormKeepsItsInputsOnlyInRopeLayers) {
  auto job = moe_job();
  job.model.position_embedding = model::PositionEmbedding::rope;
  job.model.qk_l2_norm = true;
  job.model.nope_layer_interval = 4;
  job.model.num_layers = 4;
  EXPECT_EQ(layer_activation_bytes(job.model, job.strategy, 2), 1676288);
  EXPECT_EQ(layer_activation_bytes(job.model, job.strategy, 3), 1577984);
}

}  // namespace distsim::memory
