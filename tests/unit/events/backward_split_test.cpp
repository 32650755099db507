#include "events/backward_split.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "catalog/builtin_clusters.hpp"
#include "catalog/builtin_models.hpp"
#include "events/job_events.hpp"
#include "schedule/pipeline_schedule.hpp"

namespace distsim::events {

namespace {

// GPT-2 345M (24 layers, h 1024, FFN 4096, s 1024) on one DGX A100 node, b = 2, pp = 2 (12 layers
// a stage), with tp = 2 and sequence parallelism so that backward has tensor collectives.
strategy::JobSpec job(int dp) {
  strategy::JobSpec spec;
  spec.model = catalog::find_model("gpt2-345m");
  spec.cluster = catalog::find_cluster("dgx-a100");
  spec.cluster.num_hosts = 1;
  spec.strategy.tensor_parallel = 2;
  spec.strategy.pipeline_parallel = 2;
  spec.strategy.data_parallel = dp;
  spec.strategy.sequence_parallel = true;
  spec.strategy.micro_batch_size = 2;
  spec.strategy.global_batch_size = 2 * dp * 4;
  return spec;
}

ChunkWork build(const strategy::JobSpec& spec, int stage, EventTable& table) {
  const strategy::RankLayout layout(spec.strategy, spec.cluster);
  strategy::RankCoord coord{};
  coord[strategy::ParallelDim::pp] = stage;
  const auto chunks = schedule::find_schedule(spec.strategy.schedule).stage_chunk_placements(spec, stage);
  return build_rank_work(spec, layout, coord, chunks, table).chunks.front();
}

}  // namespace

// Each of a layer's four linear layers (qkv, attention out, fc1, fc2) has one wgrad GEMM
// dW = Xᵀ·dY, of shape [in x out] over the b·s = 2048 tokens: W holds exactly those, 12 layers of
// a stage times 4 = 48 on stage 0, plus the LM head's on the last stage.
TEST(BackwardSplit, WeightStepHoldsTheWgradGemms) {
  EventTable table;
  const ChunkWork first = build(job(1), 0, table);
  ASSERT_EQ(first.backward_weight.size(), 48U);
  for (const auto& step : first.backward_weight) {
    const Event& event = table.at(step.event);
    EXPECT_EQ(event.op, Operator::gemm);
    EXPECT_EQ(event.dims.back().value, 2048) << event.key();  // k = tokens
    EXPECT_EQ(step.phase, Phase::weight_gradient);
    EXPECT_EQ(step.stream, StreamKind::compute);
  }
  const ChunkWork last = build(job(1), 1, table);
  EXPECT_EQ(last.backward_weight.size(), 49U);
  EXPECT_EQ(last.backward_weight.front().label, "lm head");  // backward starts at the head
}

// B is the backward without the wgrads, in the same order: every collective (the input-gradient
// reductions and the sequence-parallel gathers) stays in B, and the phase is unchanged.
TEST(BackwardSplit, InputStepKeepsEverythingElseInOrder) {
  EventTable table;
  const ChunkWork chunk = build(job(1), 1, table);
  std::vector<TaskTemplate> expected;
  std::copy_if(chunk.backward.begin(), chunk.backward.end(), std::back_inserter(expected),
               [](const TaskTemplate& step) { return !step.weight_gradient; });
  ASSERT_EQ(chunk.backward_input.size(), expected.size());
  ASSERT_EQ(chunk.backward_input.size() + chunk.backward_weight.size(), chunk.backward.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(chunk.backward_input[i].event, expected[i].event);
    EXPECT_EQ(chunk.backward_input[i].label, expected[i].label);
    EXPECT_EQ(chunk.backward_input[i].phase, expected[i].phase);
    // A step waits for the same template it waited for in the whole backward.
    if (chunk.backward_input[i].waits_for >= 0) {
      const auto& waited = chunk.backward_input[static_cast<size_t>(chunk.backward_input[i].waits_for)];
      EXPECT_EQ(waited.stream, StreamKind::tp_comm);
    }
  }
  const auto collectives = std::count_if(chunk.backward.begin(), chunk.backward.end(),
                                         [](const auto& step) { return step.stream != StreamKind::compute; });
  const auto in_b = std::count_if(chunk.backward_input.begin(), chunk.backward_input.end(),
                                  [](const auto& step) { return step.stream != StreamKind::compute; });
  EXPECT_GT(collectives, 0);
  EXPECT_EQ(in_b, collectives);
  for (const auto& step : chunk.backward_weight) {
    EXPECT_EQ(step.waits_for, -1);  // its input's gather ran in B, before W
  }
}

// Bucket readiness in W: the last wgrad at or before the bucket's point in the whole backward.
TEST(BackwardSplit, BucketsAreReadyAtTheMatchingWgrad) {
  EventTable table;
  const ChunkWork chunk = build(job(2), 0, table);
  ASSERT_FALSE(chunk.gradient_buckets.empty());
  for (const auto& bucket : chunk.gradient_buckets) {
    int wgrads_through = 0;
    for (int i = 0; i <= bucket.ready_after; ++i) {
      wgrads_through += chunk.backward[static_cast<size_t>(i)].weight_gradient ? 1 : 0;
    }
    EXPECT_EQ(bucket.weight_ready_after, wgrads_through - 1);
  }
  // The last bucket holds the embedding, whose gradient comes last: ready at the final wgrad.
  EXPECT_EQ(chunk.gradient_buckets.back().weight_ready_after, static_cast<int>(chunk.backward_weight.size()) - 1);
}

}  // namespace distsim::events
