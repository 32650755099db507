#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>

#include "catalog/builtin_clusters.hpp"
#include "core/input_error.hpp"
#include "cost/fixed_cost_model.hpp"
#include "engine/engine.hpp"
#include "memory/memory_estimate.hpp"
#include "program/job_program.hpp"
#include "schedule/pipeline_schedule.hpp"

// A schedule that only this test knows, with a step kind of its own, runs through validation,
// memory and the program builder: nothing outside src/schedule decides anything by a schedule's
// name or by comparing step kinds with forward and backward.
namespace distsim::program {

namespace {

using schedule::Step;
using schedule::StepKind;

constexpr SimTime kStageForward = 1'000'000;   // 1 ms per stage forward (its one attention)
constexpr SimTime kStageBackward = 2'000'000;  // 2 ms per stage backward

//! A backward step kind distinct from StepKind::backward, doing the same work.
constexpr schedule::StepKindSpec kTestBackward{"test backward",
                                               events::Phase::backward,
                                               "test backward pass",
                                               &events::ChunkWork::backward,
                                               &schedule::kGradientTransfer,
                                               &schedule::kGradientTransfer,
                                               true};

//! Each micro-batch runs forward and then backward through the whole pipeline before the next
//! one starts, so one micro-batch is in flight on every stage.
class OneAtATimeSchedule : public schedule::PipelineSchedule {
 public:
  using PipelineSchedule::steps;
  std::string_view name() const override { return "one-at-a-time"; }
  std::string_view description() const override { return "one micro-batch in the pipeline at a time"; }
  std::vector<StepKind> step_kinds() const override { return {StepKind::forward, StepKind(kTestBackward)}; }
  std::vector<Step> steps(int /*stage*/, int /*num_stages*/, int num_microbatches, int /*num_chunks*/) const override {
    std::vector<Step> steps;
    for (int mb = 0; mb < num_microbatches; ++mb) {
      steps.push_back({StepKind::forward, mb});
      steps.push_back({StepKind(kTestBackward), mb});
    }
    return steps;
  }
  double microbatches_in_flight(int /*stage*/, int /*num_stages*/, int /*num_microbatches*/,
                                int /*num_chunks*/) const override {
    return 1;
  }
};

//! A GPT-like model with one layer per stage on 4 stages, m = 8 micro-batches.
strategy::JobSpec four_stage_job() {
  strategy::JobSpec job;
  job.model.name = "uniform";
  job.model.num_layers = 4;
  job.model.hidden_size = 256;
  job.model.num_attention_heads = 8;
  job.model.num_kv_heads = 8;
  job.model.ffn_hidden_size = 1024;
  job.model.vocab_size = 1000;
  job.model.seq_length = 128;
  job.cluster = catalog::find_cluster("pcie-a40");
  job.cluster.gpus_per_host = 4;
  job.cluster.num_hosts = 1;
  job.strategy.pipeline_parallel = 4;
  job.strategy.micro_batch_size = 1;
  job.strategy.global_batch_size = 8;
  job.strategy.schedule = "one-at-a-time";
  return job;
}

//! Only attention costs time; everything else, transfers included, is free.
const cost::FixedCostModel& attention_costs_alone() {
  static const cost::FixedCostModel costs(
      std::map<std::string, SimTime>{{"flash_attention_fwd", kStageForward}, {"flash_attention_bwd", kStageBackward}}, 0, 0);
  return costs;
}

}  // namespace

// Every micro-batch crosses 4 stages forward (4 · 1 ms) and back (4 · 2 ms) alone: 12 ms each,
// 8 · 12 = 96 ms in all, whether one device per stage, every rank or aggregated passes.
TEST(CustomSchedule, RunsThroughTheProgramBuilder) {
  const OneAtATimeSchedule schedule;
  for (const auto all_ranks :
       {SimulatedRanks::one_per_stage, SimulatedRanks::every_rank_by_class, SimulatedRanks::every_rank_alone}) {
    for (const bool aggregate : {false, true}) {
      const auto built = build_job_program(four_stage_job(), schedule, attention_costs_alone(), all_ranks, aggregate);
      EXPECT_EQ(engine::run(built.program).makespan, 96'000'000) << static_cast<int>(all_ranks) << aggregate;
    }
  }
  const auto aggregated =
      build_job_program(four_stage_job(), schedule, attention_costs_alone(), SimulatedRanks::one_per_stage, true);
  const auto labelled = std::count_if(aggregated.tasks.begin(), aggregated.tasks.end(),
                                      [](const TaskInfo& task) { return task.label == "test backward pass"; });
  EXPECT_EQ(labelled, 4 * 8);  // one per stage and micro-batch
}

// One micro-batch in flight: every stage's activations are one micro-batch's, as 1F1B's last
// stage holds min(m, p − 3) = 1.
TEST(CustomSchedule, RunsThroughTheMemoryModel) {
  const auto job = four_stage_job();
  const auto estimate = memory::estimate_memory(job, OneAtATimeSchedule());
  for (const auto& stage : estimate.stages) {
    EXPECT_EQ(stage.microbatches_in_flight, 1);
  }
  auto one_f_one_b = job;
  one_f_one_b.strategy.schedule = "1f1b";
  EXPECT_EQ(estimate.stages[3].activations, memory::estimate_memory(one_f_one_b).stages[3].activations);
  EXPECT_GT(memory::estimate_memory(one_f_one_b).stages[0].activations, estimate.stages[0].activations);
}

// Its validation is the default one-chunk rule, which names the schedules that take chunks.
TEST(CustomSchedule, OwnsItsValidation) {
  const OneAtATimeSchedule schedule;
  auto job = four_stage_job();
  const strategy::ScheduleRules rules = [&schedule](const strategy::JobSpec& checked,
                                                    std::vector<std::string>& problems) {
    schedule.check(checked, problems);
  };
  EXPECT_NO_THROW(strategy::validate_job(job, rules));
  job.strategy.virtual_stages = 2;
  try {
    strategy::validate_job(job, rules);
    FAIL() << "expected InputError";
  } catch (const InputError& error) {
    EXPECT_STREQ(error.what(), "invalid job: virtual_stages 2 needs schedule 'interleaved', 'zbv', 'dualpipe' or "
                               "'dualpipev', got 'one-at-a-time'");
  }
}

}  // namespace distsim::program
