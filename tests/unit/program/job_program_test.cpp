#include "program/job_program.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "analysis/run_summary.hpp"
#include "api/simulation.hpp"
#include "catalog/builtin_clusters.hpp"
#include "catalog/builtin_gpus.hpp"
#include "catalog/builtin_models.hpp"
#include "cost/fixed_cost_model.hpp"
#include "engine/engine.hpp"

namespace distsim::program {

using strategy::ParallelDim;

namespace {

constexpr SimTime kForward = 1'000'000;   // 1 ms per stage forward (its one attention)
constexpr SimTime kBackward = 2'000'000;  // 2 ms per stage backward

//! A GPT-like model with one layer per stage, on PCIe A40 nodes of up to 4 GPUs.
strategy::JobSpec uniform_job(int tp, int pp, int dp, int microbatches, const std::string& schedule) {
  strategy::JobSpec job;
  job.model.name = "uniform";
  job.model.num_layers = pp;
  job.model.hidden_size = 256;
  job.model.num_attention_heads = 8;
  job.model.num_kv_heads = 8;
  job.model.ffn_hidden_size = 1024;
  job.model.vocab_size = 1000;
  job.model.seq_length = 128;
  job.cluster = catalog::find_cluster("pcie-a40");
  job.cluster.gpus_per_host = std::min(4, tp * pp * dp);
  job.cluster.num_hosts = tp * pp * dp / job.cluster.gpus_per_host;
  job.strategy.tensor_parallel = tp;
  job.strategy.pipeline_parallel = pp;
  job.strategy.data_parallel = dp;
  job.strategy.micro_batch_size = 1;
  job.strategy.global_batch_size = microbatches * dp;
  job.strategy.schedule = schedule;
  return job;
}

//! Only attention costs time: each stage's forward takes kForward and its backward kBackward.
std::shared_ptr<const cost::CostModel> attention_only_costs(SimTime communication = 0) {
  return std::make_shared<cost::FixedCostModel>(
      std::map<std::string, SimTime>{{"flash_attention_fwd", kForward}, {"flash_attention_bwd", kBackward}}, 0,
      communication);
}

api::Simulation simulate(const strategy::JobSpec& job, bool all_ranks,
                         std::shared_ptr<const cost::CostModel> costs = attention_only_costs()) {
  api::SimulationOptions options;
  options.all_ranks = all_ranks;
  options.merge_placement_classes = false;  // every rank on a device of its own
  options.preferred_costs = std::move(costs);
  return api::simulate(job, options);
}

//! (stream kind, label, micro-batch, start, end) of every activity of one device, sorted.
using Activity = std::tuple<int, std::string, int, SimTime, SimTime>;
std::vector<Activity> activities_of(const api::Simulation& sim, int device) {
  std::vector<Activity> result;
  const auto& program = sim.program.program;
  for (engine::TaskId task = 0; task < program.num_tasks(); ++task) {
    for (engine::StreamId stream : program.streams(task)) {
      if (static_cast<int>(stream / events::kStreamKinds) == device) {
        result.emplace_back(stream % events::kStreamKinds, std::string(sim.program.tasks[task].label),
                            sim.program.tasks[task].microbatch, sim.times.start[task], sim.times.end[task]);
      }
    }
  }
  std::sort(result.begin(), result.end(), [](const Activity& a, const Activity& b) {
    return std::tie(std::get<0>(a), std::get<3>(a)) < std::tie(std::get<0>(b), std::get<3>(b));
  });
  return result;
}

}  // namespace

struct PipelineCase {
  std::string schedule;
  int stages;
  int microbatches;
};

class PipelineFormula : public ::testing::TestWithParam<PipelineCase> {};

// With constant per-stage costs and free communication, GPipe and 1F1B both take
// (m + p - 1)(t_f + t_b), and every stage idles (p - 1)(t_f + t_b) of it: bubble (p-1)/(m+p-1).
TEST_P(PipelineFormula, MatchesTheClosedForm) {
  const auto& [schedule, p, m] = GetParam();
  const api::Simulation sim = simulate(uniform_job(1, p, 1, m, schedule), false);
  EXPECT_EQ(sim.summary.iteration_time, (m + p - 1) * (kForward + kBackward));
  EXPECT_NEAR(sim.summary.bubble_fraction, static_cast<double>(p - 1) / (m + p - 1), 1e-12);
}

INSTANTIATE_TEST_SUITE_P(Schedules, PipelineFormula,
                         ::testing::Values(PipelineCase{"gpipe", 2, 4}, PipelineCase{"1f1b", 2, 4},
                                           PipelineCase{"gpipe", 4, 8}, PipelineCase{"1f1b", 4, 8},
                                           PipelineCase{"1f1b", 4, 2}, PipelineCase{"gpipe", 1, 3}),
                         [](const auto& test_info) {
                           return test_info.param.schedule + "_p" + std::to_string(test_info.param.stages) + "_m" +
                                  std::to_string(test_info.param.microbatches);
                         });

struct InterleavedCase {
  int stages;
  int chunks;
  int microbatches;
};

class InterleavedFormula : public ::testing::TestWithParam<InterleavedCase> {};

//! A job of one layer per model chunk: p·v layers, so each chunk's forward takes kForward and
//! its backward kBackward (a stage's whole forward is v·kForward).
strategy::JobSpec interleaved_job(int p, int v, int m, int tp = 1, int dp = 1) {
  auto job = uniform_job(tp, p, dp, m, "interleaved");
  job.model.num_layers = p * v;
  job.strategy.virtual_stages = v;
  return job;
}

// Narayanan et al. (SC'21 §2.2.2): with v chunks per stage the bubble is (p − 1)(t_f + t_b)/v,
// so with per-chunk costs f = t_f/v and b = t_b/v and free communication the iteration takes
// (m·v + p − 1)(f + b), and each stage idles (p − 1)(f + b) of it. Worked by hand for p = 2,
// v = 2, m = 4, f = 1 ms, b = 2 ms with the pass orders of InterleavedSchedule's test (a pass
// starts when its device is free and the pass feeding it has ended):
//   stage 0: F(c0 m0) 0-1, F(c0 m1) 1-2, F(c1 m0) 2-3, F(c1 m1) 3-4, F(c0 m2) 4-5, B(c1 m0) 6-8,
//            F(c0 m3) 8-9, B(c1 m1) 9-11, F(c1 m2) 11-12, B(c0 m0) 12-14, F(c1 m3) 14-15,
//            B(c0 m1) 15-17, B(c1 m2) 18-20, B(c1 m3) 21-23, B(c0 m2) 23-25, B(c0 m3) 25-27
//   stage 1: F(c0 m0) 1-2, F(c0 m1) 2-3, F(c1 m0) 3-4, B(c1 m0) 4-6, F(c1 m1) 6-7, B(c1 m1) 7-9,
//            F(c0 m2) 9-10, B(c0 m0) 10-12, F(c0 m3) 12-13, B(c0 m1) 13-15, F(c1 m2) 15-16,
//            B(c1 m2) 16-18, F(c1 m3) 18-19, B(c1 m3) 19-21, B(c0 m2) 21-23, B(c0 m3) 23-25
// Iteration 27 ms = (4·2 + 2 − 1) · 3 ms; each stage works 24 ms and idles 3 ms = (p − 1)/(v·m)
// = 1/8 of the ideal 24 ms. Plain 1F1B on the same stages (t_f = 2, t_b = 4) takes
// (m + p − 1)(t_f + t_b) = 30 ms.
TEST_P(InterleavedFormula, ShrinksTheBubbleByTheNumberOfChunks) {
  const auto& [p, v, m] = GetParam();
  const api::Simulation sim = simulate(interleaved_job(p, v, m), false);
  EXPECT_EQ(sim.summary.iteration_time, (m * v + p - 1) * (kForward + kBackward));
  EXPECT_NEAR(sim.summary.bubble_fraction, static_cast<double>(p - 1) / (m * v + p - 1), 1e-12);
}

INSTANTIATE_TEST_SUITE_P(Shapes, InterleavedFormula,
                         ::testing::Values(InterleavedCase{2, 2, 4}, InterleavedCase{4, 2, 8}, InterleavedCase{4, 3, 8},
                                           InterleavedCase{2, 3, 2}, InterleavedCase{4, 2, 4}, InterleavedCase{3, 2, 6},
                                           InterleavedCase{8, 2, 16}),
                         [](const auto& test_info) {
                           return "p" + std::to_string(test_info.param.stages) + "_v" +
                                  std::to_string(test_info.param.chunks) + "_m" +
                                  std::to_string(test_info.param.microbatches);
                         });

TEST(JobProgram, InterleavedStagesFollowTheHandWorkedTimeline) {
  // Stage 1's forward attention starts, from the timeline above: c0 at 1, 2, 9, 12 ms and c1 at
  // 3, 6, 15, 18 ms for micro-batches 0..3.
  const api::Simulation sim = simulate(interleaved_job(2, 2, 4), false);
  std::vector<std::tuple<int, int, SimTime>> starts;
  for (engine::TaskId task = 0; task < sim.program.program.num_tasks(); ++task) {
    const auto& info = sim.program.tasks[task];
    if (sim.program.program.streams(task).front() / events::kStreamKinds == 1 && info.label == "attention" &&
        info.phase == events::Phase::forward) {
      starts.emplace_back(info.chunk, info.microbatch, sim.times.start[task] / 1'000'000);
    }
  }
  std::sort(starts.begin(), starts.end());
  const std::vector<std::tuple<int, int, SimTime>> expected{{0, 0, 1}, {0, 1, 2}, {0, 2, 9},  {0, 3, 12},
                                                            {1, 0, 3}, {1, 1, 6}, {1, 2, 15}, {1, 3, 18}};
  EXPECT_EQ(starts, expected);
}

TEST(JobProgram, InterleavedTransfersWrapFromTheLastStageToTheFirst) {
  // p = 2, v = 2, m = 4: stage 1's chunk 0 sends its activations to stage 0's chunk 1 (4 sends)
  // and stage 0's chunk 1 sends gradients back to it (4 sends); chunk 1 of stage 1 is the end.
  const api::Simulation sim = simulate(interleaved_job(2, 2, 4), false);
  int wrapped_activations = 0;
  int wrapped_gradients = 0;
  for (engine::TaskId task = 0; task < sim.program.program.num_tasks(); ++task) {
    const auto streams = sim.program.program.streams(task);
    if (streams.size() != 2) {
      continue;
    }
    const auto sender = streams[0] / events::kStreamKinds;
    const auto receiver = streams[1] / events::kStreamKinds;
    const auto& info = sim.program.tasks[task];
    if (info.label == "send activation" && sender == 1 && receiver == 0) {
      EXPECT_EQ(info.chunk, 0);
      ++wrapped_activations;
    }
    if (info.label == "send gradient" && sender == 0 && receiver == 1) {
      EXPECT_EQ(info.chunk, 1);
      ++wrapped_gradients;
    }
  }
  EXPECT_EQ(wrapped_activations, 4);
  EXPECT_EQ(wrapped_gradients, 4);
}

TEST(JobProgram, FullRecomputationRerunsEachLayerForwardBeforeItsBackward) {
  // 1F1B, p = 2, m = 4: each backward pass reruns the stage's layer forward first (1 ms), so a
  // backward pass takes 3 ms and the iteration (m + p − 1)(1 + 3) = 20 ms.
  auto job = uniform_job(1, 2, 1, 4, "1f1b");
  job.strategy.recompute = strategy::Recompute::full;
  const api::Simulation sim = simulate(job, false);
  EXPECT_EQ(sim.summary.iteration_time, 20'000'000);
  // On each stage the recomputed attention of micro-batch k ends right where its backward
  // attention starts.
  std::map<std::pair<engine::StreamId, int>, SimTime> recompute_end;
  std::map<std::pair<engine::StreamId, int>, SimTime> backward_start;
  int recomputed = 0;
  for (engine::TaskId task = 0; task < sim.program.program.num_tasks(); ++task) {
    const auto& info = sim.program.tasks[task];
    const auto key = std::make_pair(sim.program.program.streams(task).front(), info.microbatch);
    if (info.label == "attention" && info.phase == events::Phase::recompute) {
      recompute_end[key] = sim.times.end[task];
      ++recomputed;
    }
    if (info.label == "attention" && info.phase == events::Phase::backward) {
      backward_start[key] = sim.times.start[task];
    }
  }
  EXPECT_EQ(recomputed, 2 * 4);
  EXPECT_EQ(recompute_end, backward_start);
}

TEST(JobProgram, SymmetricAndAllRanksAgreeWithEveryFeatureOn) {
  // Interleaved 1F1B with sequence parallelism, full recomputation, the distributed optimizer
  // and overlapped gradient buckets, on 2 x 2 x 2 ranks with 0.3 ms per communication.
  auto job = interleaved_job(2, 2, 4, 2, 2);
  job.strategy.sequence_parallel = true;
  job.strategy.recompute = strategy::Recompute::full;
  job.strategy.distributed_optimizer = true;
  job.strategy.overlap_grad_reduce = true;
  job.strategy.dp_bucket_params = 200'000;
  const auto costs = attention_only_costs(300'000);
  const api::Simulation symmetric = simulate(job, false, costs);
  const api::Simulation explicit_ranks = simulate(job, true, costs);
  EXPECT_EQ(symmetric.summary.iteration_time, explicit_ranks.summary.iteration_time);
  const strategy::RankLayout layout(job.strategy, job.cluster);
  for (int rank = 0; rank < 8; ++rank) {
    EXPECT_EQ(activities_of(symmetric, layout.coord_of(rank)[ParallelDim::pp]), activities_of(explicit_ranks, rank))
        << "rank " << rank;
  }
  EXPECT_EQ(symmetric.program.events.total_instances(), explicit_ranks.program.events.total_instances());
}

TEST(JobProgram, SymmetricAndAllRanksModesGiveTheSameTimelines) {
  // Communication costs 0.3 ms so that collectives and transfers shape the timeline.
  const auto job = uniform_job(2, 2, 2, 4, "1f1b");
  const auto costs = attention_only_costs(300'000);
  const api::Simulation symmetric = simulate(job, false, costs);
  const api::Simulation explicit_ranks = simulate(job, true, costs);
  ASSERT_EQ(symmetric.program.devices.size(), 2u);
  ASSERT_EQ(explicit_ranks.program.devices.size(), 8u);
  EXPECT_EQ(symmetric.summary.iteration_time, explicit_ranks.summary.iteration_time);
  const strategy::RankLayout layout(job.strategy, job.cluster);
  for (int rank = 0; rank < 8; ++rank) {
    const int stage = layout.coord_of(rank)[ParallelDim::pp];
    EXPECT_EQ(activities_of(symmetric, stage), activities_of(explicit_ranks, rank)) << "rank " << rank;
  }
  EXPECT_EQ(symmetric.program.events.total_instances(), explicit_ranks.program.events.total_instances());
}

TEST(JobProgram, OneFOneBHoldsAtMostPMicrobatchesInFlight) {
  const api::Simulation sim = simulate(uniform_job(1, 4, 1, 8, "1f1b"), false);
  // Count, on stage 0, forwards started minus backwards finished over time.
  std::vector<std::pair<SimTime, int>> changes;
  for (engine::TaskId task = 0; task < sim.program.program.num_tasks(); ++task) {
    const auto& info = sim.program.tasks[task];
    if (sim.program.program.streams(task).front() / events::kStreamKinds != 0 || info.label != "attention") {
      continue;
    }
    if (info.phase == events::Phase::forward) {
      changes.emplace_back(sim.times.start[task], +1);
    } else {
      changes.emplace_back(sim.times.end[task], -1);
    }
  }
  std::sort(changes.begin(), changes.end());
  int in_flight = 0;
  int worst = 0;
  for (const auto& change : changes) {
    in_flight += change.second;
    worst = std::max(worst, in_flight);
  }
  EXPECT_EQ(worst, 4);
}

TEST(JobProgram, CountsEveryTaskAsAnInstanceOfItsEvent) {
  // p = 2, m = 3, tp = dp = 1: each stage runs its forward and backward templates 3 times.
  const api::Simulation sim = simulate(uniform_job(1, 2, 1, 3, "gpipe"), false);
  std::int64_t tasks = 0;
  for (engine::TaskId task = 0; task < sim.program.program.num_tasks(); ++task) {
    tasks += static_cast<std::int64_t>(sim.program.program.streams(task).size());
  }
  EXPECT_EQ(sim.program.events.total_instances(), tasks);
  EXPECT_LT(sim.program.events.size(), static_cast<size_t>(tasks));
}

TEST(JobProgram, NeverRunsTwoActivitiesAtOnceOnAStream) {
  const api::Simulation sim = simulate(uniform_job(2, 2, 2, 4, "gpipe"), true, attention_only_costs(300'000));
  const auto& program = sim.program.program;
  std::vector<std::vector<std::pair<SimTime, SimTime>>> per_stream(program.num_streams());
  for (engine::TaskId task = 0; task < program.num_tasks(); ++task) {
    for (engine::StreamId stream : program.streams(task)) {
      per_stream[stream].emplace_back(sim.times.start[task], sim.times.end[task]);
    }
  }
  for (auto& intervals : per_stream) {
    std::sort(intervals.begin(), intervals.end());
    for (size_t i = 1; i < intervals.size(); ++i) {
      EXPECT_LE(intervals[i - 1].second, intervals[i].first);
    }
  }
  for (const auto& [task, prerequisite] : program.dependencies()) {
    EXPECT_GE(sim.times.start[task], sim.times.end[prerequisite]);
  }
}

}  // namespace distsim::program

namespace distsim::program {

namespace {

struct AggregatedVariant {
  const char* model;
  const char* cluster;
  int tp, cp, pp, dp, micro_batch, global_batch;
  const char* schedule;
  int chunks;
  strategy::Recompute recompute;
  bool sequence_parallel;
  strategy::Sharding sharding;
  int shard_group;
};

strategy::JobSpec aggregated_variant_job(const AggregatedVariant& v) {
  strategy::JobSpec job;
  job.model = catalog::find_model(v.model);
  job.cluster = catalog::find_cluster(v.cluster);
  job.strategy.tensor_parallel = v.tp;
  job.strategy.context_parallel = v.cp;
  job.strategy.pipeline_parallel = v.pp;
  job.strategy.data_parallel = v.dp;
  job.cluster.num_hosts = std::max(1, v.tp * v.cp * v.pp * v.dp / job.cluster.gpus_per_host);
  job.strategy.micro_batch_size = v.micro_batch;
  job.strategy.global_batch_size = v.global_batch;
  job.strategy.schedule = v.schedule;
  job.strategy.virtual_stages = v.chunks;
  job.strategy.recompute = v.recompute;
  job.strategy.sequence_parallel = v.sequence_parallel;
  job.strategy.sharding = v.sharding;
  job.strategy.shard_group = v.shard_group;
  return job;
}

//! The variant simulated with aggregated passes and with a task per operator: the same iteration
//! time, event counts and MFU, from fewer tasks.
void expect_aggregation_keeps_the_iteration(const AggregatedVariant& v,
                                            strategy::HostTime host = strategy::HostTime::modelled) {
  strategy::JobSpec job = aggregated_variant_job(v);
  job.strategy.host_time = host;
  api::SimulationOptions aggregated;
  aggregated.aggregate_passes = true;
  const auto detailed_run = api::simulate(job);
  const auto aggregated_run = api::simulate(job, aggregated);
  const std::string name = std::string(v.model) + " " + job.strategy.notation() + " " + v.schedule;
  EXPECT_EQ(aggregated_run.summary.iteration_time, detailed_run.summary.iteration_time) << name;
  EXPECT_EQ(aggregated_run.summary.events.instances, detailed_run.summary.events.instances) << name;
  EXPECT_DOUBLE_EQ(aggregated_run.summary.mfu, detailed_run.summary.mfu) << name;
  EXPECT_LT(aggregated_run.program.program.num_tasks(), detailed_run.program.program.num_tasks()) << name;
}

//! Aggregating each pass into one task must not move the iteration: the pass takes as long
//! alone as inside the pipeline, because nothing else runs on its compute and TP streams. The
//! jobs cover GPipe, 1F1B and interleaving, recomputation, sequence parallelism and the
//! distributed optimizer on the analytical model.
TEST(AggregatedPasses, GiveTheSameIterationTimeAsOperatorTasks) {
  using strategy::Recompute;
  using strategy::Sharding;
  const std::vector<AggregatedVariant> variants{
      {"gpt2-345m", "pcie-a40", 2, 1, 2, 4, 4, 64, "1f1b", 1, Recompute::none, false, Sharding::none, 0},
      {"gpt2-345m", "pcie-a40", 2, 1, 2, 4, 4, 64, "gpipe", 1, Recompute::none, false, Sharding::none, 0},
      {"bert-exlarge", "pcie-a10", 1, 1, 8, 2, 1, 16, "1f1b", 1, Recompute::none, false, Sharding::none, 0},
      {"gpt3-175b", "dgx-a100", 8, 1, 8, 1, 1, 64, "interleaved", 3, Recompute::full, false, Sharding::none, 0},
      {"gpt3-175b", "dgx-a100", 8, 1, 8, 2, 1, 64, "1f1b", 1, Recompute::selective, true, Sharding::optimizer, 0},
  };
  for (const auto& variant : variants) expect_aggregation_keeps_the_iteration(variant);
}

//! Under ZeRO-2 and ZeRO-3 each run of local work between a pass's gathers and reductions becomes
//! one task, which must not move the iteration either: the gathers, reductions and NIC traffic keep
//! their tasks, and nothing outside a run uses its streams. The jobs cover 1F1B, GPipe and
//! interleaving, recomputation, sequence parallelism, HSDP (shard groups of 2 with replicas),
//! gathers and reductions inside a node and across nodes, and context parallelism across nodes,
//! whose ring exchanges through the NICs stay tasks. With the host modelled a pass keeps a task per
//! template instead (a run would start its host thread anew), which the last line checks.
TEST(AggregatedPasses, ShardedRunsGiveTheSameIterationTimeAsOperatorTasks) {
  using strategy::Recompute;
  using strategy::Sharding;
  const std::vector<AggregatedVariant> variants{
      {"gpt2-345m", "pcie-a40", 1, 1, 1, 8, 4, 64, "1f1b", 1, Recompute::none, false, Sharding::full, 0},
      {"gpt2-345m", "pcie-a40", 2, 1, 2, 4, 4, 64, "1f1b", 1, Recompute::none, false, Sharding::full, 0},
      {"gpt2-345m", "pcie-a40", 2, 1, 2, 4, 4, 64, "gpipe", 1, Recompute::full, false, Sharding::full, 0},
      {"gpt3-175b", "dgx-a100", 8, 1, 8, 2, 1, 64, "interleaved", 3, Recompute::full, true, Sharding::full, 0},
      {"gpt3-175b", "dgx-a100", 8, 1, 4, 4, 1, 64, "1f1b", 1, Recompute::selective, true, Sharding::full, 2},
      {"llama-3.1-8b", "dgx-h100", 8, 2, 2, 2, 1, 32, "1f1b", 1, Recompute::none, true, Sharding::full, 0},
      {"gpt2-345m", "pcie-a40", 1, 1, 1, 8, 4, 64, "1f1b", 1, Recompute::none, false, Sharding::gradients, 0},
      {"gpt2-345m", "pcie-a40", 2, 1, 2, 4, 4, 64, "gpipe", 1, Recompute::full, false, Sharding::gradients, 0},
      {"gpt3-175b", "dgx-a100", 8, 1, 8, 2, 1, 64, "interleaved", 3, Recompute::full, true, Sharding::gradients, 0},
      {"llama-3.1-8b", "dgx-h100", 8, 2, 2, 2, 1, 32, "1f1b", 1, Recompute::none, true, Sharding::gradients, 0},
  };
  for (const auto& variant : variants) expect_aggregation_keeps_the_iteration(variant, strategy::HostTime::none);
  const strategy::JobSpec job = aggregated_variant_job(variants[1]);
  api::SimulationOptions aggregated;
  aggregated.aggregate_passes = true;
  EXPECT_EQ(api::simulate(job, aggregated).summary.iteration_time, api::simulate(job).summary.iteration_time);
}

}  // namespace

}  // namespace distsim::program

namespace distsim::program {

// With aggregated passes a rank counts 8 tasks per chunk and micro-batch it runs
// (kTasksPerAggregatedPass), plus one entry per GPU. GPT-2 345M on 2 stages, m = 8: 1F1B runs
// each micro-batch through its one chunk, 2 ranks × 8 × 8 + 2 = 130; DualPipe sends half the
// micro-batches each way, so each of its two chunks runs 4: 2 × 2 × 4 × 8 + 2 = 130; interleaved
// with 2 chunks runs all 8 through both: 2 × 2 × 8 × 8 + 2 = 258. Each program stays under its
// estimate.
TEST(EstimatedTasks, CountsTheMicrobatchesEachChunkRuns) {
  strategy::JobSpec job;
  job.model = catalog::find_model("gpt2-345m");
  job.cluster = catalog::find_cluster("pcie-a40");
  job.cluster.num_hosts = 1;
  job.cluster.gpus_per_host = 2;
  job.strategy.pipeline_parallel = 2;
  job.strategy.micro_batch_size = 1;
  job.strategy.global_batch_size = 8;
  const std::map<std::string, std::int64_t> expected{{"1f1b", 130}, {"dualpipe", 130}, {"interleaved", 258}};
  for (const auto& [schedule, tasks] : expected) {
    job.strategy.schedule = schedule;
    job.strategy.virtual_stages = schedule == "1f1b" ? 1 : 2;
    EXPECT_EQ(api::estimated_tasks(job, false, true), tasks) << schedule;
    api::SimulationOptions options;
    options.aggregate_passes = true;
    EXPECT_LE(static_cast<std::int64_t>(api::job_events(job, options).program.num_tasks()), tasks) << schedule;
  }
}

}  // namespace distsim::program

namespace distsim::program {

// Data-parallel replicas on two GPU types (two 4-GPU hosts of A40s, then two of A100s; one stage of
// 16 ranks): one replica per placement class and GPU type stands for the others exactly, as
// simulating every rank on its own shows, at the analytical costs of each GPU.
TEST(JobProgram, ReplicasOnTwoGpuTypesMergeByClassAndType) {
  strategy::JobSpec job = uniform_job(4, 1, 4, 2, "1f1b");
  job.cluster.host_groups = {{catalog::find_gpu("a40"), 2}, {catalog::find_gpu("a100-80gb"), 2}};
  job.cluster.gpu = job.cluster.host_groups.front().gpu;
  api::SimulationOptions merged;
  const api::Simulation by_class = api::simulate(job, merged);
  api::SimulationOptions alone;
  alone.merge_placement_classes = false;
  const api::Simulation every_rank = api::simulate(job, alone);
  ASSERT_TRUE(by_class.program.placement_classes.has_value());
  EXPECT_EQ(by_class.program.placement_classes->num_classes(), 2);
  EXPECT_EQ(every_rank.program.placement_classes->num_classes(), 4);
  EXPECT_EQ(by_class.summary.iteration_time, every_rank.summary.iteration_time);
  EXPECT_EQ(by_class.summary.bubble_fraction, every_rank.summary.bubble_fraction);
}

}  // namespace distsim::program

namespace distsim::program {

// A slow rank and a slow host (tensor 2 x pipeline 2 x data 4 on four 4-GPU hosts): the replicas
// that hold them compute unlike the others and get classes of their own, while the replicas that
// hold neither merge; the result is the same as simulating every rank on its own.
TEST(JobProgram, ReplicasWithSlowRanksMergeOnlyWithThoseThatComputeAlike) {
  strategy::JobSpec job = uniform_job(2, 2, 4, 4, "1f1b");
  job.variability.slow = {{strategy::SlowScope::rank, 3, 1.5}, {strategy::SlowScope::host, 3, 1.2}};
  const api::Simulation by_class = api::simulate(job);
  api::SimulationOptions alone;
  alone.merge_placement_classes = false;
  const api::Simulation every_rank = api::simulate(job, alone);
  ASSERT_TRUE(by_class.program.placement_classes.has_value());
  // Rank 3 (tp 1 of data-parallel index 1, stage 0) sits in replica 1; host 3 holds ranks 12 to 15,
  // stage 1 of replicas 2 and 3; replica 0 is healthy: three classes, the last of two replicas.
  EXPECT_EQ(by_class.program.placement_classes->num_classes(), 3);
  EXPECT_EQ(every_rank.program.placement_classes->num_classes(), 4);
  EXPECT_EQ(by_class.summary.iteration_time, every_rank.summary.iteration_time);
  EXPECT_EQ(by_class.summary.bubble_fraction, every_rank.summary.bubble_fraction);
  strategy::JobSpec healthy = job;
  healthy.variability.slow.clear();
  EXPECT_GT(by_class.summary.iteration_time, api::simulate(healthy).summary.iteration_time);
}

}  // namespace distsim::program
