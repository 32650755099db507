#include "program/job_program.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <tuple>

#include "analysis/run_summary.hpp"
#include "api/simulation.hpp"
#include "catalog/builtin_clusters.hpp"
#include "cost/fixed_cost_model.hpp"
#include "engine/engine.hpp"

namespace distsim::program {

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
  job.cluster.gpus_per_node = std::min(4, tp * pp * dp);
  job.cluster.num_nodes = tp * pp * dp / job.cluster.gpus_per_node;
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

TEST(JobProgram, SymmetricAndAllRanksModesGiveTheSameTimelines) {
  // Communication costs 0.3 ms so that collectives and transfers shape the timeline.
  const auto job = uniform_job(2, 2, 2, 4, "1f1b");
  const auto costs = attention_only_costs(300'000);
  const api::Simulation symmetric = simulate(job, false, costs);
  const api::Simulation explicit_ranks = simulate(job, true, costs);
  ASSERT_EQ(symmetric.program.devices.size(), 2u);
  ASSERT_EQ(explicit_ranks.program.devices.size(), 8u);
  EXPECT_EQ(symmetric.summary.iteration_time, explicit_ranks.summary.iteration_time);
  const strategy::RankLayout layout(job.strategy, job.cluster.gpus_per_node);
  for (int rank = 0; rank < 8; ++rank) {
    const int stage = layout.coord_of(rank).pp;
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
