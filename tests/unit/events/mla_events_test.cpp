#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "built_rank_work.hpp"
#include "catalog/builtin_clusters.hpp"
#include "catalog/builtin_models.hpp"
#include "events/job_events.hpp"
#include "schedule/pipeline_schedule.hpp"

namespace distsim::events {

namespace {

// DeepSeek-V3's first layer (latent attention, dense MLP): h 7168, 128 heads, q_lora 1536,
// kv_lora 512, qk_nope 128, qk_rope 64, v_head 128, sequences of 4096, one sequence per
// micro-batch, bf16, one rank (the MTP module left out: this test is about one layer).
strategy::JobSpec mla_job() {
  strategy::JobSpec job;
  job.model = catalog::find_model("deepseek-v3");
  job.model.num_layers = 1;
  job.model.mtp_layers = 0;
  job.model.seq_length = 4096;
  job.cluster = catalog::find_cluster("dgx-h100");
  job.cluster.num_hosts = 1;
  job.cluster.gpus_per_host = 1;
  job.strategy.micro_batch_size = 1;
  job.strategy.global_batch_size = 1;
  return job;
}

std::vector<std::string> attention_labels(const std::vector<TaskTemplate>& list) {
  std::vector<std::string> labels;
  for (const auto& step : list) {
    if (step.layer != 0) continue;
    labels.emplace_back(step.label);
    if (step.label == "bias dropout add") break;
  }
  return labels;
}

}  // namespace

// Megatron-Core MLASelfAttention's order (get_query_key_value_tensors): both down-projections of
// the normalized input, the latent norms, then qkv_up_proj_and_rope_apply (the up-projections and
// RoPE), the fused core, the output projection.
TEST(MlaEvents, ForwardRunsDownNormUpRopeCoreOut) {
  const Built built = build(mla_job());
  const std::vector<std::string> expected = {"norm",  "q down", "kv down",   "q norm",        "kv norm",         "q up",
                                             "kv up", "rope",   "attention", "attention out", "bias dropout add"};
  EXPECT_EQ(attention_labels(built.chunk().forward), expected);
}

// T = 4096 tokens.
//   q down  4096 x 1536 x 7168:         2·4096·1536·7168  =  90194313216 FLOPs
//   kv down 4096 x (512 + 64) x 7168:   2·4096·576·7168   =  33822867456
//   q up    4096 x 128·192 x 1536:      2·4096·24576·1536 = 309237645312
//   kv up   4096 x 128·(128+128) x 512: 2·4096·32768·512  = 137438953472
//   out     4096 x 7168 x 128·128:      2·4096·7168·16384 = 962072674304
// Their sum, 1532766453760, is 2 x tokens x the attention's weights (DeepSeek-V3's
// 11010048 + 37748736 + 4128768 + 16777216 + 117440512 = 187105280 per layer): 2·4096·187105280.
TEST(MlaEvents, ProjectionShapesAndFlops) {
  const Built built = build(mla_job());
  EXPECT_EQ(built.forward("q down").key(), "gemm m=4096 n=1536 k=7168 bf16");
  EXPECT_EQ(built.forward("kv down").key(), "gemm m=4096 n=576 k=7168 bf16");
  EXPECT_EQ(built.forward("q up").key(), "gemm m=4096 n=24576 k=1536 bf16");
  EXPECT_EQ(built.forward("kv up").key(), "gemm m=4096 n=32768 k=512 bf16");
  EXPECT_EQ(built.forward("attention out").key(), "gemm m=4096 n=7168 k=16384 bf16");
  const double sum = built.forward("q down").flops + built.forward("kv down").flops + built.forward("q up").flops +
                     built.forward("kv up").flops + built.forward("attention out").flops;
  EXPECT_DOUBLE_EQ(built.forward("q down").flops, 90194313216.0);
  EXPECT_DOUBLE_EQ(built.forward("kv down").flops, 33822867456.0);
  EXPECT_DOUBLE_EQ(built.forward("q up").flops, 309237645312.0);
  EXPECT_DOUBLE_EQ(built.forward("kv up").flops, 137438953472.0);
  EXPECT_DOUBLE_EQ(sum, 2.0 * 4096 * 187105280);
  // The latent norms run over the rank's 4096 rows of q_lora and kv_lora; RoPE over 128 query
  // parts and the one shared key part of 64: 129·64 = 8256 columns.
  EXPECT_EQ(built.forward("q norm").key(), "rmsnorm rows=4096 cols=1536 bf16");
  EXPECT_EQ(built.forward("kv norm").key(), "rmsnorm rows=4096 cols=512 bf16");
  EXPECT_EQ(built.forward("rope").key(), "rope rows=4096 cols=8256 bf16");
}

// Causal core, 128 heads, s = 4096, dqk = 192, dv = 128:
//   forward  2·128·4096·4096·0.5·(192 + 128)   = 2147483648·320 = 687194767360 FLOPs
//   backward 2·128·4096·4096·0.5·(3·192 + 2·128) = 2147483648·832 = 1786706395136
// Bytes, forward: Q and K 4096·128·192 = 100663296 elements each, V and O 4096·128·128 =
// 67108864 each: 2·(2·100663296 + 2·67108864) = 671088640. Backward: 2·(2·(Q + K + V) + 4·O) =
// 2·(2·268435456 + 268435456) = 1610612736.
TEST(MlaEvents, LatentAttentionCoreUsesSeparateHeadDims) {
  const Built built = build(mla_job());
  const Event& forward = built.forward("attention");
  EXPECT_EQ(forward.key(), "mla_attention_fwd b=1 heads=128 sq=4096 skv=4096 dqk=192 dv=128 causal=1 bf16");
  EXPECT_DOUBLE_EQ(forward.flops, 687194767360.0);
  EXPECT_DOUBLE_EQ(forward.bytes_moved, 671088640.0);
  const Event& backward = built.backward("attention");
  EXPECT_EQ(backward.key(), "mla_attention_bwd b=1 heads=128 sq=4096 skv=4096 dqk=192 dv=128 causal=1 bf16");
  EXPECT_DOUBLE_EQ(backward.flops, 1786706395136.0);
  EXPECT_DOUBLE_EQ(backward.bytes_moved, 1610612736.0);
}

// Backward: each of the five projections runs its input-gradient and weight-gradient GEMMs, so
// the layer's attention GEMMs in backward are twice the forward's 1532766453760 FLOPs.
TEST(MlaEvents, BackwardRunsBothGradientsOfEveryProjection) {
  const Built built = build(mla_job());
  double forward = 0;
  double backward = 0;
  for (const auto& step : built.chunk().forward) {
    const Event& event = built.table.at(step.event);
    if (step.layer == 0 && event.op == Operator::gemm && step.label != "fc1" && step.label != "fc2") {
      forward += event.flops;
    }
  }
  int weight_gradients = 0;
  for (const auto& step : built.chunk().backward) {
    const Event& event = built.table.at(step.event);
    if (step.layer == 0 && event.op == Operator::gemm && step.label != "fc1" && step.label != "fc2") {
      backward += event.flops;
      weight_gradients += step.weight_gradient ? 1 : 0;
    }
  }
  EXPECT_DOUBLE_EQ(forward, 1532766453760.0);
  EXPECT_DOUBLE_EQ(backward, 2 * 1532766453760.0);
  EXPECT_EQ(weight_gradients, 5);
}

// Tensor parallel 2 with sequence parallelism: the down-projections stay whole and run on the
// rank's 2048-row shard; the up-projections and the core take 64 heads; each up-projection
// first gathers its latent, not the hidden states: q 4096·1536·2 = 12582912 bytes, keys and
// values with the shared RoPE key 4096·(512 + 64)·2 = 4718592 bytes.
TEST(MlaEvents, TensorParallelSplitsHeadsAndGathersTheLatents) {
  auto job = mla_job();
  job.cluster.gpus_per_host = 2;
  job.strategy.tensor_parallel = 2;
  job.strategy.sequence_parallel = true;
  const Built built = build(job);
  EXPECT_EQ(built.forward("q down").key(), "gemm m=2048 n=1536 k=7168 bf16");
  EXPECT_EQ(built.forward("kv down").key(), "gemm m=2048 n=576 k=7168 bf16");
  EXPECT_EQ(built.forward("q up").key(), "gemm m=4096 n=12288 k=1536 bf16");
  EXPECT_EQ(built.forward("kv up").key(), "gemm m=4096 n=16384 k=512 bf16");
  EXPECT_EQ(built.forward("attention").key(),
            "mla_attention_fwd b=1 heads=64 sq=4096 skv=4096 dqk=192 dv=128 causal=1 bf16");
  std::vector<std::string> gathers;
  for (const auto& step : built.chunk().forward) {
    if (step.layer == 0 && step.stream == StreamKind::tp_comm) gathers.push_back(built.table.at(step.event).key());
    if (step.layer == 0 && step.label == "attention") break;
  }
  const std::vector<std::string> expected = {"all_gather bytes=12582912 group=2 intra",
                                             "all_gather bytes=4718592 group=2 intra"};
  EXPECT_EQ(gathers, expected);
}

}  // namespace distsim::events

namespace distsim::events {

// The rank's parameters, which its gradient buckets reduce over data parallelism: at tp 2 the
// down-projections and latent norms (15,140,864) are whole and the rest of the one-layer model's
// 2,436,848,640 is halved, 1,225,994,752 (worked in tests/unit/memory/model_state_memory_test.cpp,
// LatentDownProjectionsStayWholeUnderTensorParallelism). With dp 2 the buckets hold them all, as
// fp32 main gradients: 4 bytes each.
TEST(MlaEvents, GradientBucketsHoldTheWholeDownProjections) {
  auto job = mla_job();
  job.cluster.gpus_per_host = 4;
  job.strategy.tensor_parallel = 2;
  job.strategy.data_parallel = 2;
  job.strategy.global_batch_size = 2;
  job.strategy.sequence_parallel = true;
  const Built built = build(job);
  EXPECT_EQ(built.chunk().parameters, 1'225'994'752);
  std::int64_t bucketed = 0;
  for (const auto& bucket : built.chunk().gradient_buckets) {
    bucketed += built.table.at(bucket.reduction.value()).bytes;
  }
  EXPECT_EQ(bucketed, 4 * std::int64_t{1'225'994'752});
}

}  // namespace distsim::events

namespace distsim::events {

// --recompute mla_up_proj: Megatron-Core reruns qkv_up_proj_and_rope_apply when the gradient
// reaches the attention's output, so right after the output projection's backward GEMMs and
// before the core's backward: q up, kv up and RoPE again, as recompute steps with the forward's
// shapes (4096 x 24576 x 1536 and 4096 x 32768 x 512). Without it nothing is recomputed.
TEST(MlaEvents, UpProjectionRecomputationRerunsUpAndRopeBeforeTheCore) {
  auto job = mla_job();
  job.strategy.recompute = strategy::Recompute::mla_up_proj;
  const Built built = build(job);
  std::vector<std::string> order;
  for (const auto& step : built.chunk().backward) {
    if (step.layer != 0 || step.stream != StreamKind::compute) continue;
    order.push_back(std::string(step.label) + (step.phase == Phase::recompute ? " (R)" : ""));
    if (step.label == "attention") break;
  }
  ASSERT_GE(order.size(), 4U);
  const std::vector<std::string> tail(order.end() - 4, order.end());
  const std::vector<std::string> expected = {"q up (R)", "kv up (R)", "rope (R)", "attention"};
  EXPECT_EQ(tail, expected);
  EXPECT_EQ(order[order.size() - 5], "attention out");
  std::vector<std::string> recomputed;
  for (const auto& step : built.chunk().backward) {
    if (step.phase == Phase::recompute) recomputed.push_back(built.table.at(step.event).key());
  }
  const std::vector<std::string> keys = {"gemm m=4096 n=24576 k=1536 bf16", "gemm m=4096 n=32768 k=512 bf16",
                                         "rope rows=4096 cols=8256 bf16"};
  EXPECT_EQ(recomputed, keys);
  const Built plain = build(mla_job());
  for (const auto& step : plain.chunk().backward) EXPECT_NE(step.phase, Phase::recompute);
}

}  // namespace distsim::events
