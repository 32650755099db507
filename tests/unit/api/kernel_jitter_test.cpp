#include "api/kernel_jitter.hpp"

#include <gtest/gtest.h>

#include "api/simulation.hpp"
#include "pipeline_test_jobs.hpp"

namespace distsim::api {

namespace {

//! GPT-2 345M on two hosts of four A40s, 1M2P4D, four micro-batches, 1F1B, its kernels jittered.
strategy::JobSpec jittered_job(strategy::KernelJitter jitter, std::uint64_t seed) {
  strategy::JobSpec job = make_job("gpt2-345m", "pcie-a40", 2, 1, 2, 4, 4, "1f1b");
  job.variability.jitter = jitter;
  job.variability.jitter_samples = 16;
  job.variability.jitter_seed = seed;
  return job;
}

}  // namespace

// Linear between ranks: of 1, 2, 3, 4 (positions 0 to 3) the 50th percentile sits at 1.5, between
// 2 and 3: 2.5; the 90th at 2.7: 3.7; the 99th at 2.97: 3.97; the 100th is the largest.
TEST(KernelJitter, PercentilesInterpolateBetweenRanks) {
  const std::vector<double> sorted{1, 2, 3, 4};
  EXPECT_DOUBLE_EQ(percentile(sorted, 50), 2.5);
  EXPECT_DOUBLE_EQ(percentile(sorted, 90), 3.7);
  EXPECT_DOUBLE_EQ(percentile(sorted, 99), 3.97);
  EXPECT_DOUBLE_EQ(percentile(sorted, 100), 4.0);
  EXPECT_DOUBLE_EQ(percentile({7}, 99), 7.0);
}

// Every duration of the iteration scaled by a factor in [0.8, 1.2] scales its longest path by one
// in that range: each sample lies within 20 % of the noiseless iteration, whose time the samples
// leave as it was; the percentiles are in order.
TEST(KernelJitter, UniformNoiseKeepsEachSampleWithinItsBounds) {
  const Simulation simulation = simulate(jittered_job({strategy::JitterDistribution::uniform, 0.2}, 1));
  ASSERT_TRUE(simulation.jitter);
  const StepTimeDistribution& d = *simulation.jitter;
  EXPECT_EQ(d.times_s.size(), 16u);
  EXPECT_DOUBLE_EQ(d.noiseless_s, time_to_seconds(simulation.summary.iteration_time));
  for (const double t : d.times_s) {
    EXPECT_GE(t, 0.8 * d.noiseless_s * (1 - 1e-9));
    EXPECT_LE(t, 1.2 * d.noiseless_s * (1 + 1e-9));
  }
  EXPECT_LE(d.p50_s, d.p90_s);
  EXPECT_LE(d.p90_s, d.p99_s);
  EXPECT_LE(d.p99_s, d.max_s);
  // Every rank has its own timeline: one rank cannot stand for another under jitter.
  EXPECT_TRUE(simulation.program.all_ranks);
  EXPECT_EQ(simulation.program.devices.size(), 8u);
}

// The same seed gives the same samples; another seed others.
TEST(KernelJitter, TheSeedFixesTheSamples) {
  const strategy::KernelJitter jitter{strategy::JitterDistribution::lognormal, 0.1};
  const auto first = simulate(jittered_job(jitter, 7)).jitter->times_s;
  EXPECT_EQ(simulate(jittered_job(jitter, 7)).jitter->times_s, first);
  EXPECT_NE(simulate(jittered_job(jitter, 8)).jitter->times_s, first);
}

// Each sample draws from its own generator: three threads, sharing 16 samples 5, 5 and 6, give the
// samples one thread gives, in the same order.
TEST(KernelJitter, ThreadsDoNotChangeTheSamples) {
  const strategy::JobSpec job = jittered_job({strategy::JitterDistribution::lognormal, 0.1}, 3);
  SimulationOptions threaded;
  threaded.threads = 3;
  EXPECT_EQ(simulate(job, threaded).jitter->times_s, simulate(job).jitter->times_s);
}

// Jitter stretches a synchronous step: each collective and pipeline transfer waits for the latest
// of its members, so the mean iteration of mean-1 noise is longer than the noiseless one.
TEST(KernelJitter, NoiseOfMeanOneLengthensTheStep) {
  const Simulation simulation = simulate(jittered_job({strategy::JitterDistribution::lognormal, 0.3}, 1));
  EXPECT_GT(simulation.jitter->slowdown(), 1.0);
}

}  // namespace distsim::api
