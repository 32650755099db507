#include "goodput/goodput_estimate.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include <string>

#include "catalog/builtin_clusters.hpp"
#include "catalog/builtin_models.hpp"
#include "core/input_error.hpp"

namespace distsim::goodput {

namespace {

using strategy::CheckpointSave;
using strategy::FailureComponent;

// GPT-2 345M holds 354,871,296 parameters (tests/unit/memory/model_state_memory_test.cpp works
// them out), so a bf16 checkpoint is 14 bytes each: 4,968,198,144 bytes.
constexpr double kCheckpointBytes = 4'968'198'144.0;

void set_rate(strategy::JobSpec& job, FailureComponent component, double rate) {
  job.run.failure_rates[static_cast<std::size_t>(component)] = rate;
}

// One host of eight GPUs that fails 0.25 times an hour, every 4 h = 14,400 s: each GPU 0.025 an
// hour (0.2) and the host 0.05. A sync checkpoint written in 72 s: 4,968,198,144 / 72 =
// 69,002,752 bytes a second. A restart of 528 s, plus 72 s to read the checkpoint back: 600 s.
strategy::JobSpec eight_gpus_failing_every_four_hours() {
  strategy::JobSpec job;
  job.model = catalog::find_model("gpt2-345m");
  job.cluster = catalog::find_cluster("dgx-a100");
  job.cluster.num_hosts = 1;
  for (const auto& component : strategy::failure_components()) set_rate(job, component.component, 0.0);
  set_rate(job, FailureComponent::gpu, 0.025);
  set_rate(job, FailureComponent::host, 0.05);
  job.run.storage_bandwidth_gbps = 0.069002752;
  job.run.restart_s = 528.0;
  return job;
}

}  // namespace

// Young: sqrt(2 · 300 · 86,400) = sqrt(51,840,000) = 7,200 s. Daly: δ / 2M = 300 / 172,800 = 1/576,
// whose root is 1/24: 7,200 · (1 + 1/72 + 1/5,184) − 300 = 7,200 + 100 + 1.3889 − 300 = 7,001.39 s,
// Daly's own figure for δ = 5 min and M = 24 h (117 min, Fig. 4 of the paper).
TEST(CheckpointInterval, YoungAndDalyByHand) {
  EXPECT_DOUBLE_EQ(young_interval_s(300, 86'400), 7'200.0);
  EXPECT_NEAR(daly_interval_s(300, 86'400), 7'200.0 + 100.0 + 7'200.0 / 5'184.0 - 300.0, 1e-9);
}

// A save at least twice the mean time between failures: Daly's interval is M itself.
TEST(CheckpointInterval, DalyIsTheMeanTimeBetweenFailuresForLongSaves) {
  EXPECT_DOUBLE_EQ(daly_interval_s(100, 50), 50.0);
}

// The job above, 10 s iterations, a checkpoint every 144 iterations (τ = 1,440 s):
//   a failure redoes (1,440 + 72) / 2 = 756 s and restarts in 600 s: 1,356 s of 14,400;
//   ETTR = (1 − 1,356 / 14,400) · 1,440 / 1,512 = 0.9058333 · 20/21 = 0.8626984;
//   checkpoints 0.8626984 · 72 / 1,440 = 0.0431349, redone 756 / 14,400 = 0.0525,
//   restarts 600 / 14,400 = 0.0416667; the four add up to 1.
// Young's interval sqrt(2 · 72 · 14,400) = 1,440 s; Daly's, with δ / 2M = 1/400:
// 1,440 · (1 + 1/60 + 1/3,600) − 72 = 1,440 + 24 + 0.4 − 72 = 1,392.4 s.
// At 1e5 tokens a second, 1e12 tokens take 1e7 s healthy and 1e7 / 0.8626984 = 11,591,533 s
// expected, on 8 GPUs 25,758.96 GPU-hours, at 2 a GPU-hour 51,517.93.
TEST(GoodputEstimate, SyncSaveByHand) {
  strategy::JobSpec job = eight_gpus_failing_every_four_hours();
  job.run.checkpoint_interval = 144;
  job.run.tokens = 1e12;
  job.run.gpu_hour_price = 2.0;
  const GoodputEstimate e = estimate_goodput(job, 10.0, 1e5);
  EXPECT_EQ(e.gpus, 8);
  EXPECT_EQ(e.hosts, 1);
  EXPECT_DOUBLE_EQ(e.failures_per_hour, 0.25);
  EXPECT_DOUBLE_EQ(e.mtbf_s, 14'400.0);
  EXPECT_EQ(e.checkpoint_bytes, 4'968'198'144);
  EXPECT_NEAR(e.write_s, 72.0, 1e-9);
  EXPECT_NEAR(e.blocking_s, 72.0, 1e-9);
  EXPECT_NEAR(e.restart_s, 600.0, 1e-9);
  EXPECT_NEAR(e.young_s, 1'440.0, 1e-9);
  EXPECT_NEAR(e.daly_s, 1'392.4, 1e-9);
  EXPECT_EQ(e.interval_iterations, 144);
  EXPECT_TRUE(e.interval_given);
  EXPECT_NEAR(e.lost_work_per_failure_s, 756.0, 1e-9);
  EXPECT_NEAR(e.shares.training, 260'880.0 / 302'400.0, 1e-12);
  EXPECT_NEAR(e.shares.checkpoints, 260'880.0 / 302'400.0 * 0.05, 1e-12);
  EXPECT_NEAR(e.shares.redone, 0.0525, 1e-12);
  EXPECT_NEAR(e.shares.restarts, 600.0 / 14'400.0, 1e-12);
  EXPECT_NEAR(e.shares.training + e.shares.checkpoints + e.shares.redone + e.shares.restarts, 1.0, 1e-12);
  EXPECT_NEAR(e.goodput_tokens_per_s, 1e5 * 260'880.0 / 302'400.0, 1e-6);
  ASSERT_TRUE(e.time_to_train);
  EXPECT_DOUBLE_EQ(e.time_to_train->healthy_s, 1e7);
  EXPECT_NEAR(e.time_to_train->expected_s, 1e7 * 302'400.0 / 260'880.0, 1e-3);
  EXPECT_NEAR(e.time_to_train->gpu_hours, 1e7 * 302'400.0 / 260'880.0 * 8 / 3'600, 1e-6);
  ASSERT_TRUE(e.time_to_train->cost);
  EXPECT_NEAR(*e.time_to_train->cost, 2 * 1e7 * 302'400.0 / 260'880.0 * 8 / 3'600, 1e-6);
  // Every setting was given but the save: nothing else is assumed.
  EXPECT_EQ(e.assumptions.size(), 1u);  // the checkpoint's share per GPU
}

// Without an interval the job saves every round(1,392.4 / 10) = 139 iterations, 1,390 s, and says so.
TEST(GoodputEstimate, DalysIntervalInWholeIterations) {
  const GoodputEstimate e = estimate_goodput(eight_gpus_failing_every_four_hours(), 10.0, 1e5);
  EXPECT_EQ(e.interval_iterations, 139);
  EXPECT_DOUBLE_EQ(e.interval_s, 1'390.0);
  EXPECT_FALSE(e.interval_given);
  EXPECT_FALSE(e.time_to_train);
  ASSERT_EQ(e.assumptions.size(), 2u);
  EXPECT_EQ(e.assumptions[1],
            "a checkpoint every 139 iterations: Daly's optimum interval, 1392 s, in whole iterations");
}

// An async save stops training only to stage each GPU's 1/8 (621,024,768 bytes) at 0.310512384
// GB/s: 2 s; the 72 s write runs beside the next 1,440 s. Its checkpoint is durable 72 s after the
// save, so a failure redoes (1,440 + 2) / 2 + 72 = 793 s: 1,393 s with the restart, and
// ETTR = (1 − 1,393 / 14,400) · 1,440 / 1,442.
TEST(GoodputEstimate, AsyncSaveBlocksOnlyForStaging) {
  strategy::JobSpec job = eight_gpus_failing_every_four_hours();
  job.run.checkpoint_interval = 144;
  job.run.checkpoint_save = CheckpointSave::async;
  job.run.staging_bandwidth_gbps = 0.310512384;
  const GoodputEstimate e = estimate_goodput(job, 10.0, 1e5);
  EXPECT_NEAR(e.staging_s, 2.0, 1e-9);
  EXPECT_NEAR(e.blocking_s, 2.0, 1e-9);
  EXPECT_NEAR(e.lost_work_per_failure_s, 793.0, 1e-9);
  EXPECT_NEAR(e.shares.training, (1 - 1'393.0 / 14'400.0) * 1'440.0 / 1'442.0, 1e-12);
}

// A write longer than the interval holds the next save back: every 5 iterations (50 s) the
// training waits 2 s of staging and the 72 − 50 = 22 s the last write still needs.
TEST(GoodputEstimate, AsyncSaveWaitsForTheLastWrite) {
  strategy::JobSpec job = eight_gpus_failing_every_four_hours();
  job.run.checkpoint_interval = 5;
  job.run.checkpoint_save = CheckpointSave::async;
  job.run.staging_bandwidth_gbps = 0.310512384;
  EXPECT_NEAR(estimate_goodput(job, 10.0, 1e5).blocking_s, 24.0, 1e-9);
}

// A job that never fails trains all but its checkpoints: ETTR = τ / (τ + δ) = 1,440 / 1,512.
TEST(GoodputEstimate, NoFailuresLeaveOnlyTheCheckpoints) {
  strategy::JobSpec job = eight_gpus_failing_every_four_hours();
  for (const auto& component : strategy::failure_components()) set_rate(job, component.component, 0.0);
  job.run.checkpoint_interval = 144;
  const GoodputEstimate e = estimate_goodput(job, 10.0, 1e5);
  EXPECT_NEAR(e.shares.training, 1'440.0 / 1'512.0, 1e-12);
  EXPECT_DOUBLE_EQ(e.shares.redone, 0.0);
  EXPECT_DOUBLE_EQ(e.shares.restarts, 0.0);
}

// Without failures and without an interval no checkpoint pays for itself: Daly's optimum is
// unbounded, nothing is saved, and the whole wall time trains.
TEST(GoodputEstimate, NoFailuresAndNoIntervalSaveNothing) {
  strategy::JobSpec job = eight_gpus_failing_every_four_hours();
  for (const auto& component : strategy::failure_components()) set_rate(job, component.component, 0.0);
  const GoodputEstimate e = estimate_goodput(job, 10.0, 1e5);
  EXPECT_FALSE(std::isfinite(e.daly_s));
  EXPECT_EQ(e.interval_iterations, 0);
  EXPECT_DOUBLE_EQ(e.shares.training, 1.0);
  EXPECT_DOUBLE_EQ(e.shares.checkpoints, 0.0);
  EXPECT_DOUBLE_EQ(e.goodput_tokens_per_s, 1e5);
  EXPECT_NE(e.assumptions.back().find("no checkpoint: without failures none pays for itself"), std::string::npos);
}

// The defaults are Llama 3's table: on its 16,384 GPUs in 2,048 hosts over the 54 days (1,296 h)
// they give back its 419 unexpected interruptions, one every 1,296 / 419 = 3.0931 h.
TEST(GoodputEstimate, DefaultRatesReproduceTheLlama3Interruptions) {
  strategy::JobSpec job;
  job.model = catalog::find_model("gpt2-345m");
  job.cluster = catalog::find_cluster("dgx-h100");
  job.cluster.num_hosts = 2'048;
  job.run.tokens = 1e12;
  const GoodputEstimate e = estimate_goodput(job, 10.0, 1e5);
  EXPECT_NEAR(e.failures_per_hour * 1'296.0, 419.0, 1e-9);
  EXPECT_NEAR(e.mtbf_s, 1'296.0 / 419.0 * 3'600.0, 1e-6);
  int interruptions = 0;
  for (const auto& component : strategy::failure_components()) interruptions += component.llama3_interruptions;
  EXPECT_EQ(interruptions, 419);
}

// Failing every 4 h and losing more than that per failure, the job never gets anywhere.
TEST(GoodputEstimate, AJobThatCannotProgressIsRefused) {
  strategy::JobSpec job = eight_gpus_failing_every_four_hours();
  job.run.restart_s = 15'000.0;
  try {
    estimate_goodput(job, 10.0, 1e5);
    FAIL() << "no error";
  } catch (const InputError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("goodput: the job fails every 4 h on average and each failure costs"), std::string::npos)
        << message;
    EXPECT_NE(message.find("it never makes progress"), std::string::npos) << message;
  }
}

}  // namespace distsim::goodput
