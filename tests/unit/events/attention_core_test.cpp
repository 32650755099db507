// The attention core of a layer: FlashAttention's single kernel per pass, or Megatron-LM's
// unfused core (batched GEMMs, softmax and dropout through memory), with recomputation.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "built_rank_work.hpp"
#include "catalog/builtin_clusters.hpp"
#include "catalog/builtin_models.hpp"
#include "events/job_events.hpp"
#include "schedule/pipeline_schedule.hpp"

namespace distsim::events {

namespace {

// GPT-2 345M (s 1024, h 1024, 16 heads of d 64) with tp = 2 and micro-batch 4: each rank runs
// 8 heads, so the core's batched GEMMs have b·a/t = 32 matrices.
strategy::JobSpec gpt2_job(strategy::Attention attention, strategy::Recompute recompute) {
  strategy::JobSpec job;
  job.model = catalog::find_model("gpt2-345m");
  job.cluster = catalog::find_cluster("dgx-a100");
  job.cluster.num_hosts = 1;
  job.cluster.gpus_per_host = 2;
  job.strategy.tensor_parallel = 2;
  job.strategy.micro_batch_size = 4;
  job.strategy.global_batch_size = 8;
  job.strategy.attention = attention;
  job.strategy.recompute = recompute;
  return job;
}

int count(const std::vector<TaskTemplate>& list, Phase phase, std::string_view label) {
  return static_cast<int>(
      std::count_if(list.begin(), list.end(), [&](const auto& t) { return t.phase == phase && t.label == label; }));
}

//! "key label" of the steps of `layer` whose label starts with "attention " (the unfused core).
std::vector<std::string> core_steps(const Built& built, const std::vector<TaskTemplate>& list, int layer, Phase phase) {
  std::vector<std::string> steps;
  for (const auto& step : list) {
    if (step.layer == layer && step.phase == phase && step.label.rfind("attention ", 0) == 0 &&
        step.label != "attention out") {
      steps.push_back(built.table.at(step.event).key() + " " + std::string(step.label));
    }
  }
  return steps;
}

}  // namespace

TEST(UnfusedAttention, RunsFourKernelsInForwardOverTheFullScoreMatrix) {
  const Built built = build(gpt2_job(strategy::Attention::unfused, strategy::Recompute::none));
  // QKᵀ: 32 products of [1024×64]·[64×1024]; P·V: 32 of [1024×1024]·[1024×64]. The softmax and
  // dropout see 32·1024 = 32768 rows of 1024 scores.
  const std::vector<std::string> expected = {"batched_gemm batch=32 m=1024 n=1024 k=64 bf16 attention scores",
                                             "scale_mask_softmax rows=32768 cols=1024 bf16 attention softmax",
                                             "attention_dropout rows=32768 cols=1024 bf16 attention dropout",
                                             "batched_gemm batch=32 m=1024 n=64 k=1024 bf16 attention context"};
  EXPECT_EQ(core_steps(built, built.chunk().forward, 0, Phase::forward), expected);
  EXPECT_EQ(count(built.chunk().forward, Phase::forward, "attention"), 0);
}

TEST(UnfusedAttention, CountsTheWorkAndTrafficOfEachKernel) {
  const Built built = build(gpt2_job(strategy::Attention::unfused, strategy::Recompute::none));
  const auto& forward = built.chunk().forward;
  auto event_of = [&](std::string_view label) -> const Event& {
    return built.table.at(
        std::find_if(forward.begin(), forward.end(), [&](const auto& t) { return t.label == label; })->event);
  };
  // 2·32·1024·1024·64 FLOPs, and 2 bytes × 32 × (1024·64 + 64·1024 + 1024·1024) moved.
  EXPECT_DOUBLE_EQ(event_of("attention scores").flops, 4'294'967'296.0);
  EXPECT_DOUBLE_EQ(event_of("attention scores").bytes_moved, 75'497'472.0);
  EXPECT_EQ(event_of("attention scores").event_class, EventClass::gemm);
  // 2^25 scores: softmax reads and writes 2 B each (4 B), dropout adds a 1-byte mask (5 B).
  EXPECT_DOUBLE_EQ(event_of("attention softmax").bytes_moved, 4.0 * 33'554'432);
  EXPECT_DOUBLE_EQ(event_of("attention dropout").bytes_moved, 5.0 * 33'554'432);
  // Both products skip nothing under the causal mask: twice FlashAttention's causal forward,
  // 4·b·(a/t)·s²·d / 2 = 4'294'967'296 FLOPs.
  const Built flash = build(gpt2_job(strategy::Attention::flash, strategy::Recompute::none));
  const auto& flash_forward = flash.chunk().forward;
  const auto attention =
      std::find_if(flash_forward.begin(), flash_forward.end(), [](const auto& t) { return t.label == "attention"; });
  EXPECT_DOUBLE_EQ(flash.table.at(attention->event).flops, 4'294'967'296.0);
  EXPECT_DOUBLE_EQ(event_of("attention scores").flops + event_of("attention context").flops,
                   2 * flash.table.at(attention->event).flops);
}

TEST(UnfusedAttention, RunsFourBatchedGemmsInBackward) {
  const Built built = build(gpt2_job(strategy::Attention::unfused, strategy::Recompute::none));
  // dP = dO·Vᵀ and dV = Pᵀ·dO, dropout then softmax backward, dQ = dS·K and dK = dSᵀ·Q.
  const std::vector<std::string> expected = {"batched_gemm batch=32 m=1024 n=1024 k=64 bf16 attention context",
                                             "batched_gemm batch=32 m=1024 n=64 k=1024 bf16 attention context",
                                             "attention_dropout_bwd rows=32768 cols=1024 bf16 attention dropout",
                                             "scale_mask_softmax_bwd rows=32768 cols=1024 bf16 attention softmax",
                                             "batched_gemm batch=32 m=1024 n=64 k=1024 bf16 attention scores",
                                             "batched_gemm batch=32 m=1024 n=64 k=1024 bf16 attention scores"};
  EXPECT_EQ(core_steps(built, built.chunk().backward, 5, Phase::backward), expected);
  EXPECT_EQ(count(built.chunk().backward, Phase::recompute, "attention scores"), 0);
  // Dropout backward reads the gradient and the mask and writes the gradient: 5 B per score;
  // softmax backward reads its output and the gradient and writes one: 6 B.
  const auto& backward = built.chunk().backward;
  for (const auto& step : backward) {
    if (step.label == "attention dropout") {
      EXPECT_DOUBLE_EQ(built.table.at(step.event).bytes_moved, 5.0 * 33'554'432);
    }
    if (step.label == "attention softmax") {
      EXPECT_DOUBLE_EQ(built.table.at(step.event).bytes_moved, 6.0 * 33'554'432);
    }
  }
}

TEST(UnfusedAttention, SelectiveRecomputationRerunsTheCoreBeforeItsBackward) {
  const Built built = build(gpt2_job(strategy::Attention::unfused, strategy::Recompute::selective));
  const auto& backward = built.chunk().backward;
  for (std::string_view label : {"attention scores", "attention softmax", "attention dropout", "attention context"}) {
    EXPECT_EQ(count(backward, Phase::recompute, label), 24) << label;
  }
  // Only the core: no GEMM of the projections or MLP and no collective is rerun.
  EXPECT_EQ(std::count_if(backward.begin(), backward.end(), [](const auto& t) { return t.phase == Phase::recompute; }),
            4 * 24);
  // Layer 7's rerun core equals its forward core and comes right before the core's backward.
  EXPECT_EQ(core_steps(built, backward, 7, Phase::recompute),
            core_steps(built, built.chunk().forward, 7, Phase::forward));
  const auto last_rerun = std::find_if(backward.rbegin(), backward.rend(),
                                       [](const auto& t) { return t.layer == 7 && t.phase == Phase::recompute; });
  const auto next = last_rerun.base();
  EXPECT_EQ(next->phase, Phase::backward);
  EXPECT_EQ(built.table.at(next->event).key(), "batched_gemm batch=32 m=1024 n=1024 k=64 bf16");
}

TEST(UnfusedAttention, FullRecomputationRerunsTheCoreOnceWithTheLayer) {
  const Built built = build(gpt2_job(strategy::Attention::unfused, strategy::Recompute::full));
  const auto& backward = built.chunk().backward;
  EXPECT_EQ(count(backward, Phase::recompute, "attention scores"), 24);
  EXPECT_EQ(count(backward, Phase::recompute, "qkv"), 24);
  EXPECT_EQ(count(backward, Phase::backward, "attention scores"), 2 * 24);
}

TEST(FlashAttention, IsTheDefaultAndKeepsOneKernelPerPass) {
  EXPECT_EQ(strategy::Strategy{}.attention, strategy::Attention::flash);
  const Built built = build(gpt2_job(strategy::Attention::flash, strategy::Recompute::selective));
  EXPECT_EQ(count(built.chunk().forward, Phase::forward, "attention"), 24);
  EXPECT_EQ(count(built.chunk().backward, Phase::backward, "attention"), 24);
  EXPECT_EQ(count(built.chunk().backward, Phase::recompute, "attention"), 0);
  EXPECT_EQ(count(built.chunk().forward, Phase::forward, "attention scores"), 0);
}

}  // namespace distsim::events
