#include <gtest/gtest.h>

#include <algorithm>

#include "built_rank_work.hpp"
#include "catalog/builtin_clusters.hpp"
#include "catalog/builtin_models.hpp"
#include "events/event_factory.hpp"
#include "events/job_events.hpp"
#include "schedule/pipeline_schedule.hpp"

namespace distsim::events {

namespace {

// GPT-2 345M (24 layers, h 1024, 16 heads, ffn 4096, LayerNorm, vocabulary 50257) with
// TransformerEngine's fp8 GEMMs on two H100s, tp = 2, micro-batch 4 of 1024 tokens: every rank
// sees 4096 tokens, 8 heads (q width 512), FC1 and FC2 of width 2048.
strategy::JobSpec fp8_job() {
  strategy::JobSpec job;
  job.model = catalog::find_model("gpt2-345m");
  job.cluster = catalog::find_cluster("dgx-h100");
  job.cluster.num_hosts = 1;
  job.cluster.gpus_per_host = 2;
  job.strategy.tensor_parallel = 2;
  job.strategy.micro_batch_size = 4;
  job.strategy.global_batch_size = 4;
  job.strategy.gemm_format = distsim::strategy::GemmFormat::fp8;
  return job;
}

//! The keys of the steps of layer `layer`, in order.
std::vector<std::string> fp8_layer_keys(const Built& built, const std::vector<TaskTemplate>& list, int layer) {
  std::vector<std::string> keys;
  for (const auto& step : list) {
    if (step.layer == layer) keys.push_back(built.table.at(step.event).key());
  }
  return keys;
}

}  // namespace

// 2mnk FLOPs as in bf16; the inputs A (m×k) and B (k×n) at 1 byte, the output at bf16's 2:
// 8192² · (1 + 1 + 2) = 268,435,456 bytes.
TEST(Fp8Gemm, ReadsFp8InputsAndWritesBf16) {
  const Event event = EventFactory(Dtype::bf16).fp8_gemm(8192, 8192, 8192);
  EXPECT_EQ(event.key(), "gemm m=8192 n=8192 k=8192 fp8");
  EXPECT_EQ(event.event_class, EventClass::gemm);
  EXPECT_DOUBLE_EQ(event.flops, 2.0 * 8192.0 * 8192.0 * 8192.0);
  EXPECT_DOUBLE_EQ(event.bytes_moved, 268'435'456.0);
}

// Reads the bf16 tensor once (2 bytes) and writes its fp8 copy and the copy's transpose (1 + 1):
// 8192 · 4096 · 4 = 134,217,728 bytes. The fused norm moves the same bytes.
TEST(Fp8Gemm, CastTransposeReadsBf16AndWritesTwoFp8Copies) {
  const EventFactory factory(Dtype::bf16);
  const Event cast = factory.fp8_cast_transpose(8192, 4096);
  EXPECT_EQ(cast.key(), "fp8_cast_transpose rows=8192 cols=4096 bf16");
  EXPECT_EQ(cast.event_class, EventClass::memory_bound);
  EXPECT_DOUBLE_EQ(cast.bytes_moved, 134'217'728.0);
  const Event norm = factory.norm_to_fp8(Operator::rmsnorm, 8192, 4096);
  EXPECT_EQ(norm.key(), "rmsnorm_fp8 rows=8192 cols=4096 bf16");
  EXPECT_DOUBLE_EQ(norm.bytes_moved, 134'217'728.0);
}

// Forward of one layer as TransformerEngine runs it: the norms write the fp8 inputs of QKV and
// FC1 (LayerNormLinear), the attention output and the GELU output are cast before the
// row-parallel GEMMs, attention stays bf16. QKV: [4096 × 1024] · [1024 × 3·512].
TEST(Fp8Gemm, RunsTheLayersLinearGemmsInFp8AndAttentionInBf16) {
  const Built built = build(fp8_job());
  const std::vector<std::string> expected = {
      "layernorm_fp8 rows=4096 cols=1024 bf16",
      "gemm m=4096 n=1536 k=1024 fp8",
      "flash_attention_fwd b=4 heads=8 kv_heads=8 sq=1024 skv=1024 d=64 causal=1 bf16",
      "fp8_cast_transpose rows=4096 cols=512 bf16",
      "gemm m=4096 n=1024 k=512 fp8",
      "all_reduce bytes=8388608 group=2 intra",
      "bias_dropout_add rows=4096 cols=1024 bf16",
      "layernorm_fp8 rows=4096 cols=1024 bf16",
      "gemm m=4096 n=2048 k=1024 fp8",
      "gelu rows=4096 cols=2048 bf16",
      "fp8_cast_transpose rows=4096 cols=2048 bf16",
      "gemm m=4096 n=1024 k=2048 fp8",
      "all_reduce bytes=8388608 group=2 intra",
      "bias_dropout_add rows=4096 cols=1024 bf16",
  };
  EXPECT_EQ(fp8_layer_keys(built, built.chunk().forward, 0), expected);
}

// Backward of FC2 (row parallel), the layer's first: its output gradient [4096 × 1024] is cast
// and transposed, then dgrad [4096 × 1024]·[1024 × 2048] and wgrad [2048 × 4096]·[4096 × 1024].
TEST(Fp8Gemm, CastsEachOutputGradientBeforeTheBackwardGemms) {
  const Built built = build(fp8_job());
  const auto keys = fp8_layer_keys(built, built.chunk().backward, 0);
  const auto cast = std::find(keys.begin(), keys.end(), "fp8_cast_transpose rows=4096 cols=1024 bf16");
  ASSERT_NE(cast, keys.end());
  ASSERT_GE(keys.end() - cast, 3);
  EXPECT_EQ(cast[1], "gemm m=4096 n=2048 k=1024 fp8");
  EXPECT_EQ(cast[2], "gemm m=2048 n=1024 k=4096 fp8");
  // Forward: two casts per layer (attention output, FC2 input); backward: one per linear layer.
  EXPECT_EQ(count(built.chunk().forward, "fp8 cast"), 2 * 24);
  EXPECT_EQ(count(built.chunk().backward, "fp8 cast"), 4 * 24);
}

// TransformerEngine keeps the output layer in higher precision: the LM head's three GEMMs (padded
// vocabulary 50432 / 2 = 25216 per rank) and the final norm stay bf16, as does every GEMM without
// --fp8.
TEST(Fp8Gemm, KeepsTheLmHeadAndTheFinalNormInBf16) {
  const Built built = build(fp8_job());
  for (const auto* list : {&built.chunk().forward, &built.chunk().backward}) {
    for (const auto& step : *list) {
      const Event& event = built.table.at(step.event);
      const bool linear =
          step.label == "qkv" || step.label == "attention out" || step.label == "fc1" || step.label == "fc2";
      if (event.event_class == EventClass::gemm) {
        EXPECT_EQ(event.dtype, linear ? Dtype::fp8 : Dtype::bf16) << event.key() << " (" << step.label << ")";
      } else {
        EXPECT_NE(event.dtype, Dtype::fp8) << event.key();
      }
    }
  }
  const auto& forward = built.chunk().forward;
  const auto head = std::find_if(forward.begin(), forward.end(), [](const auto& t) { return t.label == "lm head"; });
  ASSERT_NE(head, forward.end());
  EXPECT_EQ(built.table.at(head->event).key(), "gemm m=4096 n=25216 k=1024 bf16");
  const auto norm = std::find_if(forward.begin(), forward.end(), [](const auto& t) { return t.label == "final norm"; });
  ASSERT_NE(norm, forward.end());
  EXPECT_EQ(built.table.at(norm->event).key(), "layernorm rows=4096 cols=1024 bf16");

  strategy::JobSpec bf16 = fp8_job();
  bf16.strategy.gemm_format = distsim::strategy::GemmFormat::none;
  const Built plain = build(bf16);
  for (events::EventId id = 0; id < plain.table.size(); ++id) {
    EXPECT_NE(plain.table.at(id).dtype, Dtype::fp8) << plain.table.at(id).key();
  }
  EXPECT_EQ(count(plain.chunk().forward, "fp8 cast"), 0);
}

}  // namespace distsim::events
