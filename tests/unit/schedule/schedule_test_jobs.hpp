#pragma once

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "catalog/builtin_models.hpp"
#include "core/input_error.hpp"
#include "schedule/pipeline_schedule.hpp"

namespace distsim::schedule {

//! The step kinds of the schedules that split the backward into input gradient (B) and weight
//! gradient (W).
constexpr StepKind F = StepKind::forward;
constexpr StepKind B = StepKind::backward_input;
constexpr StepKind W = StepKind::backward_weight;

//! GPT-2 345M cut to `layers` layers on p stages of one node (one GPU each), micro-batch 1, m
//! micro-batches, `virtual_stages` chunks per stage.
inline strategy::JobSpec pipeline_job(const std::string& schedule, int stages, int microbatches, int virtual_stages = 2,
                                      int layers = 24) {
  strategy::JobSpec job;
  job.model = catalog::find_model("gpt2-345m");
  job.model.num_layers = layers;
  job.cluster.num_hosts = 1;
  job.cluster.gpus_per_host = stages;
  job.strategy.pipeline_parallel = stages;
  job.strategy.micro_batch_size = 1;
  job.strategy.global_batch_size = microbatches;
  job.strategy.schedule = schedule;
  job.strategy.virtual_stages = virtual_stages;
  return job;
}

//! The message validation throws for `job`, or "" when the job is valid.
inline std::string error_of(const strategy::JobSpec& job) {
  try {
    validate_job(job);
  } catch (const InputError& error) {
    return error.what();
  }
  return "";
}

//! Each of the `passes` (chunk, micro-batch) pairs that `steps` runs gets F, B and W once each, in
//! that order.
inline void expect_each_pass_once_in_order(const std::vector<Step>& steps, int passes) {
  std::map<std::pair<int, int>, std::vector<const StepKindSpec*>> per_pass;
  for (const auto& step : steps) {
    per_pass[{step.chunk, step.microbatch}].push_back(&step.kind.spec());
  }
  ASSERT_EQ(per_pass.size(), static_cast<size_t>(passes));
  const std::vector<const StepKindSpec*> expected{&F.spec(), &B.spec(), &W.spec()};
  for (const auto& [pass, kinds] : per_pass) {
    EXPECT_EQ(kinds, expected) << "chunk " << pass.first << " micro-batch " << pass.second;
  }
}

}  // namespace distsim::schedule
