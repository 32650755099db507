#include "events/job_events.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "catalog/builtin_clusters.hpp"
#include "catalog/builtin_models.hpp"

namespace distsim::events {

namespace {

strategy::JobSpec gpt2_job(int tp, int pp, int dp) {
  strategy::JobSpec job;
  job.model = catalog::find_model("gpt2-345m");  // 24 layers, h 1024, 16 heads, ffn 4096, s 1024
  job.cluster = catalog::find_cluster("dgx-a100");
  job.cluster.num_nodes = std::max(1, tp * pp * dp / 8);
  job.strategy.tensor_parallel = tp;
  job.strategy.pipeline_parallel = pp;
  job.strategy.data_parallel = dp;
  job.strategy.micro_batch_size = 4;
  job.strategy.global_batch_size = 4 * dp * 8;
  return job;
}

struct Built {
  EventTable table;
  RankWork work;
};

Built build(const strategy::JobSpec& job, strategy::RankCoord coord) {
  Built built;
  const strategy::RankLayout layout(job.strategy, job.cluster.gpus_per_node);
  built.work = build_rank_work(job, layout, coord, built.table);
  return built;
}

int count(const std::vector<TaskTemplate>& list, std::string_view label) {
  return static_cast<int>(std::count_if(list.begin(), list.end(), [&](const auto& t) { return t.label == label; }));
}

const Event& first_with_label(const Built& built, const std::vector<TaskTemplate>& list, std::string_view label) {
  const auto found = std::find_if(list.begin(), list.end(), [&](const auto& t) { return t.label == label; });
  return built.table.at(found->event);
}

}  // namespace

TEST(StageLayers, SplitsEvenlyWithTheRemainderFirst) {
  EXPECT_EQ(stage_layers(24, 4, 0).count, 6);
  EXPECT_EQ(stage_layers(10, 4, 0).count, 3);  // 3, 3, 2, 2
  EXPECT_EQ(stage_layers(10, 4, 1).first, 3);
  EXPECT_EQ(stage_layers(10, 4, 2).first, 6);
  EXPECT_EQ(stage_layers(10, 4, 3).count, 2);
}

TEST(PaddedVocab, RoundsUpToAMultipleOf128TimesTp) {
  EXPECT_EQ(padded_vocab(50257, 1), 50304);  // formats.md §5.1
  EXPECT_EQ(padded_vocab(50257, 8), 51200);
}

TEST(RankWork, SplitsGemmsAcrossTensorParallelRanks) {
  // tp = 2: QKV is (s·b) x h · h x 3h/2 = 4096 x 1024 · 1024 x 1536; FC1 h x 4h/2 = 2048.
  const Built built = build(gpt2_job(2, 1, 1), {0, 0, 0});
  EXPECT_EQ(first_with_label(built, built.work.forward, "qkv").key(), "gemm m=4096 n=1536 k=1024 bf16");
  EXPECT_EQ(first_with_label(built, built.work.forward, "fc1").key(), "gemm m=4096 n=2048 k=1024 bf16");
  EXPECT_EQ(first_with_label(built, built.work.forward, "fc2").key(), "gemm m=4096 n=1024 k=2048 bf16");
  // Attention: 16/2 = 8 heads per rank, causal.
  EXPECT_EQ(first_with_label(built, built.work.forward, "attention").key(),
            "flash_attention_fwd b=4 heads=8 kv_heads=8 sq=1024 skv=1024 d=64 causal=1 bf16");
}

TEST(RankWork, HasTwoTensorAllReducesPerLayerEachWay) {
  // One stage holds all 24 layers, the embedding (1 all-reduce) and the loss (3 small ones).
  const Built built = build(gpt2_job(2, 1, 1), {0, 0, 0});
  EXPECT_EQ(count(built.work.forward, "tp all_reduce"), 2 * 24 + 1 + 3);
  // Backward: QKV and FC1 input gradients per layer, plus the LM head's input gradient.
  EXPECT_EQ(count(built.work.backward, "tp all_reduce"), 2 * 24 + 1);
  const Event& reduce = first_with_label(built, built.work.forward, "tp all_reduce");
  EXPECT_EQ(reduce.bytes, 4096 * 1024 * 2);  // [s, b, h] in bf16
  EXPECT_TRUE(reduce.intra_node);
}

TEST(RankWork, HasNoTensorCollectivesWithoutTensorParallelism) {
  const Built built = build(gpt2_job(1, 1, 1), {0, 0, 0});
  EXPECT_EQ(count(built.work.forward, "tp all_reduce"), 0);
  EXPECT_EQ(count(built.work.backward, "tp all_reduce"), 0);
}

TEST(RankWork, PutsEmbeddingFirstAndHeadLast) {
  const auto job = gpt2_job(1, 4, 1);
  const Built first = build(job, {0, 0, 0});
  const Built middle = build(job, {0, 0, 1});
  const Built last = build(job, {0, 0, 3});
  EXPECT_EQ(count(first.work.forward, "embedding"), 1);
  EXPECT_EQ(count(first.work.forward, "lm head"), 0);
  EXPECT_EQ(count(middle.work.forward, "embedding") + count(middle.work.forward, "lm head"), 0);
  EXPECT_EQ(count(last.work.forward, "lm head"), 1);
  EXPECT_EQ(count(last.work.backward, "lm head"), 2);  // dgrad and wgrad
  EXPECT_EQ(middle.work.num_layers, 6);
  EXPECT_EQ(middle.work.first_layer, 6);
  // Transfers: none forward from the last stage, none backward from the first.
  EXPECT_TRUE(first.work.send_activation && !first.work.send_gradient);
  EXPECT_TRUE(last.work.send_gradient && !last.work.send_activation);
  EXPECT_EQ(first.table.at(*first.work.send_activation).bytes, 1024 * 4 * 1024 * 2);  // [s, b, h] bf16
  // GPT-2 ties its embedding: first and last stage reduce its gradient between them.
  EXPECT_TRUE(first.work.embedding_reduction && last.work.embedding_reduction);
  EXPECT_FALSE(middle.work.embedding_reduction);
}

TEST(RankWork, BucketsTheDataParallelGradients) {
  // dp = 2, one stage: the whole model's ~355M parameters in 40M-parameter fp32 buckets.
  const auto job = gpt2_job(1, 1, 2);
  const Built built = build(job, {0, 0, 0});
  const std::int64_t params = built.work.parameters;
  EXPECT_EQ(static_cast<std::int64_t>(built.work.gradient_buckets.size()), (params + 39'999'999) / 40'000'000);
  const Event& bucket = built.table.at(built.work.gradient_buckets.front());
  EXPECT_EQ(bucket.bytes, 40'000'000LL * 4);
  EXPECT_EQ(bucket.group_size, 2);
}

TEST(RankWork, UsesGroupedQueryAttentionAndSwiglu) {
  strategy::JobSpec job = gpt2_job(8, 1, 1);
  job.model = catalog::find_model("llama-3.1-8b");  // h 4096, 32 heads, 8 KV heads, d 128, ffn 14336
  job.strategy.micro_batch_size = 1;
  const Built built = build(job, {0, 0, 0});
  // QKV per rank: (32 + 2·8)·128 / 8 = 768 columns; FC1 gate+up: 2·14336/8 = 3584.
  EXPECT_EQ(first_with_label(built, built.work.forward, "qkv").dim("n"), 768);
  EXPECT_EQ(first_with_label(built, built.work.forward, "fc1").dim("n"), 3584);
  EXPECT_EQ(count(built.work.forward, "swiglu"), 32);
  EXPECT_EQ(count(built.work.forward, "rope"), 32);
}

TEST(RankWork, AddsCrossAttentionToEncoderDecoderLayers) {
  strategy::JobSpec job = gpt2_job(1, 1, 1);
  job.model = catalog::find_model("t5-large");
  const Built built = build(job, {0, 0, 0});
  EXPECT_EQ(count(built.work.forward, "cross attention"), job.model.decoder_num_layers);
  EXPECT_EQ(count(built.work.forward, "attention"), job.model.num_layers + job.model.decoder_num_layers);
}

}  // namespace distsim::events
