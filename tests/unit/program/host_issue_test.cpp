#include "program/host_issue.hpp"

#include <gtest/gtest.h>

#include <array>
#include <span>

#include "engine/engine.hpp"

namespace distsim::program {

namespace {

using engine::StreamId;
using engine::TaskId;

constexpr StreamId kDevice = 0;
constexpr StreamId kHost = 1;

//! Issues kernels of `durations` (ns) on one device, each launched in `launch` ns, after a unit
//! start task of `start` ns; the kernel at `read_back` (or none) is read back by the host.
engine::TaskTimes issue(std::span<const SimTime> durations, SimTime launch, SimTime start, int read_back,
                        std::vector<TaskId>& kernels) {
  engine::Program program;
  program.add_stream();
  program.add_stream();
  HostThread host;
  host.start = program.add_task(start, std::span<const StreamId>(&kDevice, 1));
  for (std::size_t i = 0; i < durations.size(); ++i) {
    const TaskId launched = host.launch(launch, program, kHost);
    const TaskId kernel = program.add_task(durations[i], std::span<const StreamId>(&kDevice, 1));
    program.add_dependency(kernel, launched);
    host.issued(kernel, static_cast<int>(i) == read_back);
    kernels.push_back(kernel);
  }
  return engine::run(program);
}

}  // namespace

// Launches of 10 ns before kernels of 30, 5, 5 and 30 ns, after a start of 100: the host starts at
// 100 and launches at 110, 120, 130, 140. Kernel 0 runs 110-140, kernel 1 140-145, kernel 2
// 145-150 (the host is ahead), kernel 3 150-180.
TEST(HostThread, RunsAheadWhileTheKernelsAreLonger) {
  const std::array<SimTime, 4> durations{30, 5, 5, 30};
  std::vector<TaskId> kernels;
  const auto times = issue(durations, 10, 100, -1, kernels);
  EXPECT_EQ(times.start[kernels[0]], 110);
  EXPECT_EQ(times.start[kernels[1]], 140);
  EXPECT_EQ(times.start[kernels[2]], 145);
  EXPECT_EQ(times.end[kernels[3]], 180);
}

// The same with kernel 0 read back: the host waits for its end (140) before launching kernel 1
// (150), kernel 2 at 160, kernel 3 at 170: kernel 1 runs 150-155, kernel 2 160-165 and kernel 3
// 170-200, 20 ns later than without the read-back.
TEST(HostThread, WaitsForAReadBackBeforeItsNextLaunch) {
  const std::array<SimTime, 4> durations{30, 5, 5, 30};
  std::vector<TaskId> kernels;
  const auto times = issue(durations, 10, 100, 0, kernels);
  EXPECT_EQ(times.start[kernels[1]], 150);
  EXPECT_EQ(times.start[kernels[2]], 160);
  EXPECT_EQ(times.start[kernels[3]], 170);
  EXPECT_EQ(times.end[kernels[3]], 200);
}

// Launches longer than the kernels make the device wait for each: with launches of 20 ns and
// kernels of 5, kernel i starts at 100 + 20 (i + 1).
TEST(HostThread, ShortKernelsWaitForEachLaunch) {
  const std::array<SimTime, 3> durations{5, 5, 5};
  std::vector<TaskId> kernels;
  const auto times = issue(durations, 20, 100, -1, kernels);
  EXPECT_EQ(times.start[kernels[0]], 120);
  EXPECT_EQ(times.start[kernels[1]], 140);
  EXPECT_EQ(times.start[kernels[2]], 160);
}

}  // namespace distsim::program
