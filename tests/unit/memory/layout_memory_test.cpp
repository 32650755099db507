#include <gtest/gtest.h>

#include "catalog/builtin_models.hpp"
#include "memory/memory_estimate.hpp"

namespace distsim::memory {

namespace {

//! GPT-2 345M (24 layers) on tp 2 x 4 stages with a custom pipeline layout, 1F1B.
strategy::JobSpec gpt2_job(const std::string& layout) {
  strategy::JobSpec job;
  job.model = catalog::find_model("gpt2-345m");
  job.cluster.gpu.name = "test-gpu";
  job.cluster.gpu.memory_gb = 40;
  job.strategy.tensor_parallel = 2;
  job.strategy.pipeline_parallel = 4;
  job.strategy.micro_batch_size = 1;
  job.strategy.global_batch_size = 8;
  job.strategy.schedule = "1f1b";
  job.strategy.pipeline_layout = layout;
  return job;
}

}  // namespace

// GPT-2 345M: a layer has 12h² + 13h = 12,596,224 parameters (h = 1024); with tp 2 the
// vocabulary pads to 50432, a table of 51,642,368; the position table is 1,048,576; the final
// norm 2h = 2048; the head reuses the tied table, of which the last stage keeps its own copy.
//   "Et*5|t*7|t*7|t*5L":
//   stage 0: 5 x 12,596,224 + 51,642,368 + 1,048,576 = 115,672,064, / 2 = 57,836,032
//   stage 1: 7 x 12,596,224 = 88,173,568, / 2 = 44,086,784
//   stage 3: 5 x 12,596,224 + 2048 + 51,642,368 = 114,625,536, / 2 = 57,312,768
TEST(LayoutMemory, ParametersFollowTheLayout) {
  const auto estimate = estimate_memory(gpt2_job("Et*5|t*7|t*7|t*5L"));
  EXPECT_EQ(estimate.stages[0].parameters, 57'836'032);
  EXPECT_EQ(estimate.stages[1].parameters, 44'086'784);
  EXPECT_EQ(estimate.stages[2].parameters, 44'086'784);
  EXPECT_EQ(estimate.stages[3].parameters, 57'312'768);
}

// A stage that holds only the head and loss ("Et*8|t*8|t*8|L"): the final norm and its copy of
// the tied table, (2048 + 51,642,368) / 2 = 25,822,208, and per micro-batch in flight only the
// head's activations; stage 0 holds 8 layers and the embedding:
// (8 x 12,596,224 + 51,642,368 + 1,048,576) / 2 = 76,730,368.
TEST(LayoutMemory, LossOnlyStageHoldsTheHead) {
  const auto job = gpt2_job("Et*8|t*8|t*8|L");
  const auto estimate = estimate_memory(job);
  EXPECT_EQ(estimate.stages[0].parameters, 76'730'368);
  EXPECT_EQ(estimate.stages[3].parameters, 25'822'208);
  // 1F1B keeps one micro-batch in flight on the last of four stages: the final norm's input and
  // output, 2 x 2 bytes x 1024 tokens x 1024 = 4,194,304, and the fp32 softmax over the
  // vocabulary shard, 4 x 1024 x 25,216 = 103,284,736: 107,479,040.
  EXPECT_EQ(estimate.stages[3].activations, 107'479'040);
}

}  // namespace distsim::memory
