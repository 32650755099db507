#include "analysis/run_summary.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>


namespace distsim::analysis {

namespace {

//! One device; tasks given as (stream kind, start, end) and run by a hand-made timeline.
struct Fixture {
  strategy::JobSpec job;
  program::JobProgram program;
  engine::TaskTimes times;

  Fixture() {
    job.strategy.global_batch_size = 8;
    job.model.seq_length = 1000;
    job.cluster.gpu.peak_bf16_tflops = 100;
    program.devices.push_back({0, {}, 1, 0});  // rank 0 standing for itself, its streams from 0
    for (const auto& stream : events::kStreamKindTable) {
      program.program.add_stream();
      program.streams.push_back({0, stream.kind});
    }
    events::Event gemm;
    gemm.event_class = events::EventClass::gemm;
    gemm.op = events::Operator::gemm;
    gemm.dims = {{"m", 10000}, {"n", 10000}, {"k", 5000}};  // 2mnk = the 1e12 FLOPs below
    gemm.flops = 1e12;
    program.events.intern(gemm);
    program.costs.push_back({});
  }

  void add(events::StreamKind kind, SimTime start, SimTime end) {
    const engine::StreamId stream = static_cast<engine::StreamId>(kind);
    program.program.add_task(end - start, {{stream}});
    program.tasks.push_back({0, events::Phase::forward, 0, 0, "task"});
    program.events.add_instances(0, 1);  // as the program builder counts each task's instance
    times.start.push_back(start);
    times.end.push_back(end);
    times.makespan = std::max(times.makespan, end);
  }
};

}  // namespace

TEST(Summarize, SplitsTimeIntoComputeExposedCommunicationAndIdle) {
  Fixture f;
  f.job.cluster.gpu.peak_bf16_tflops = 1e12;  // fast enough for 1-TFLOP tasks of nanoseconds
  f.add(events::StreamKind::compute, 0, 10);
  f.add(events::StreamKind::tp_comm, 5, 15);   // 5 of it hidden under compute
  f.add(events::StreamKind::dp_comm, 12, 18);  // overlaps the TP one: 15..18 more exposed
  f.add(events::StreamKind::compute, 30, 40);
  const RunSummary summary = summarize(f.job, f.program, f.times);
  ASSERT_EQ(summary.devices.size(), 1u);
  EXPECT_EQ(summary.iteration_time, 40);
  EXPECT_EQ(summary.devices[0].busy_compute, 20);
  EXPECT_EQ(summary.devices[0].busy_communication, 8);  // 10..18
  EXPECT_EQ(summary.devices[0].idle, 12);               // 18..30
  EXPECT_DOUBLE_EQ(summary.bubble_fraction, 12.0 / 40.0);
}

TEST(Summarize, DerivesThroughputAndMfu) {
  Fixture f;
  // Two 1-TFLOP GEMMs of 20 ms each on one GPU: 2 TFLOP in 40 ms.
  f.add(events::StreamKind::compute, 0, 20'000'000);
  f.add(events::StreamKind::compute, 20'000'000, 40'000'000);
  f.job.strategy.tensor_parallel = 1;
  const RunSummary summary = summarize(f.job, f.program, f.times);
  EXPECT_DOUBLE_EQ(summary.throughput_samples_per_s, 8 / 0.04);   // 200 samples/s
  EXPECT_DOUBLE_EQ(summary.tokens_per_s, 8 * 1000 / 0.04);        // 200,000 tokens/s
  EXPECT_NEAR(summary.tflops_per_gpu, 2e12 / 0.04 / 1e12, 1e-9);  // 50 TFLOP/s
  EXPECT_NEAR(summary.mfu, 0.5, 1e-12);                           // of a 100 TFLOP/s peak
}

TEST(Summarize, BubbleOverManyRanksNearTheClocksRangeIsExact) {
  Fixture f;
  // One device standing for 1,000 ranks, busy 1 s at the start and at the end of 8e9 s: each
  // rank idles 8e18 - 2e9 ns, and 1,000 ranks' idle time (8e21 ns) does not fit 64 bits, where it
  // used to wrap to a negative bubble fraction.
  f.program.devices[0].ranks = 1000;
  f.add(events::StreamKind::compute, 0, 1'000'000'000);
  f.add(events::StreamKind::compute, 7'999'999'999'000'000'000, 8'000'000'000'000'000'000);
  const RunSummary summary = summarize(f.job, f.program, f.times);
  EXPECT_EQ(summary.devices[0].idle, 8'000'000'000'000'000'000 - 2'000'000'000);
  EXPECT_DOUBLE_EQ(summary.bubble_fraction, (8e18 - 2e9) / 8e18);
}

TEST(Summarize, ATimeOutsideItsBoundsIsAnInternalError) {
  Fixture f;
  f.job.cluster.gpu.peak_bf16_tflops = 1e12;
  f.add(events::StreamKind::compute, 0, 10);
  std::vector<DeviceStats> devices(1);
  devices[0].busy_compute = 30;  // more than the iteration's 20 ns: idle -10
  devices[0].idle = -10;
  EXPECT_THROW(summarize(f.job, f.program, 20, devices), std::logic_error);
  EXPECT_THROW(summarize(f.job, f.program, -5, {}), std::logic_error);
}

TEST(Summarize, AnalyticalRatesBeyondTheGpusFastestPeakAreAnInternalError) {
  Fixture f;
  // Two 1-TFLOP GEMMs of 5 ms each on a 100 TFLOP/s GPU: 2e12 / 0.01 s = 200 TFLOP/s, twice the
  // peak. The analytical costs never run that fast; measured ones are what was measured.
  f.add(events::StreamKind::compute, 0, 5'000'000);
  f.add(events::StreamKind::compute, 5'000'000, 10'000'000);
  EXPECT_THROW(summarize(f.job, f.program, f.times), std::logic_error);
  f.job.cluster.gpu.peak_fp8_tflops = 400;  // FP8 GEMMs could run that fast
  EXPECT_NO_THROW(summarize(f.job, f.program, f.times));
  f.job.cluster.gpu.peak_fp8_tflops = 0;
  f.program.costs[0].source = cost::CostSource::profiled;
  EXPECT_NO_THROW(summarize(f.job, f.program, f.times));
}

}  // namespace distsim::analysis
