// A timeline given by a steady state's repeats equals the one of simulating every task: activity
// for activity on every device, and the trace and the report written from either.

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "api/simulation.hpp"
#include "io/report/html_report.hpp"
#include "io/trace/device_timelines.hpp"
#include "io/trace/trace_writer.hpp"
#include "steady_cases.hpp"

namespace distsim::io {

namespace {

using api::SteadyCase;

api::Simulation run(const SteadyCase& c, bool steady_state) {
  api::SimulationOptions options;
  options.all_ranks = c.all_ranks;
  options.steady_state = steady_state;
  return api::simulate(c.job, options);
}

//! An activity by what it shows: stream, times, micro-batch, layer, phase, event key and label.
using Shown = std::tuple<int, SimTime, SimTime, int, int, int, std::string, std::string_view>;

std::vector<std::vector<Shown>> shown_activities(const api::Simulation& simulation) {
  const DeviceTimelines timelines(simulation);
  const auto& program = simulation.program;
  std::vector<std::string> keys;
  for (events::EventId id = 0; id < program.events.size(); ++id) keys.push_back(program.events.at(id).key());
  std::vector<std::vector<Shown>> devices;
  for (std::size_t device = 0; device < program.devices.size(); ++device) {
    std::vector<Shown> shown;
    for (const Activity& activity : timelines.of(device)) {
      const auto& task = program.tasks[activity.task];
      shown.emplace_back(static_cast<int>(program.streams[activity.stream].kind), activity.start, activity.end,
                         activity.microbatch, task.layer, static_cast<int>(task.phase), keys[task.event], task.label);
    }
    devices.push_back(std::move(shown));
  }
  return devices;
}

//! Whether every stream's activities come one after another in time.
bool streams_in_time_order(const std::vector<Shown>& device) {
  std::vector<SimTime> last_end(events::kStreamKinds, 0);
  for (const auto& [stream, start, end, microbatch, layer, phase, key, label] : device) {
    if (start < last_end[static_cast<std::size_t>(stream)]) return false;
    last_end[static_cast<std::size_t>(stream)] = end;
  }
  return true;
}

//! The trace's lines in sorted order, each flow arrow's id left out: a shorter run numbers the
//! appearances of its repeated transfers otherwise than the task program of every micro-batch.
std::vector<std::string> trace_lines(const api::Simulation& simulation) {
  std::ostringstream out;
  write_chrome_trace(out, simulation, TraceRanks::replica);
  std::istringstream in(out.str());
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    if (const auto id = line.find(R"("id":)"); id != std::string::npos) line.erase(id, line.find(',', id) + 1 - id);
    lines.push_back(std::move(line));
  }
  std::sort(lines.begin(), lines.end());
  return lines;
}

std::string report(const api::Simulation& simulation) {
  std::ostringstream out;
  write_simulation_report(out, simulation);
  return out.str();
}

}  // namespace

// Ground truth is the simulation of every task; the steady state must give each device the same
// activities (same stream, start, end, micro-batch, layer, phase, event and label), each stream's
// in time order. The 1F1B, long zero-bubble and DualPipeV jobs run in part (SteadyState tests).
TEST(SteadyTimeline, EveryDeviceHasTheActivitiesOfTheWholeSimulation) {
  int in_part = 0;
  for (const SteadyCase& c : api::steady_cases()) {
    SCOPED_TRACE(c.name);
    const api::Simulation fast = run(c, true);
    in_part += fast.repeats ? 1 : 0;
    auto expected = shown_activities(run(c, false));
    auto actual = shown_activities(fast);
    ASSERT_EQ(actual.size(), expected.size());
    for (std::size_t device = 0; device < expected.size(); ++device) {
      SCOPED_TRACE("device " + std::to_string(device));
      EXPECT_TRUE(streams_in_time_order(actual[device]));
      std::sort(expected[device].begin(), expected[device].end());
      std::sort(actual[device].begin(), actual[device].end());
      ASSERT_EQ(actual[device].size(), expected[device].size());
      EXPECT_TRUE(actual[device] == expected[device]);
    }
  }
  EXPECT_GE(in_part, 12);
}

// The writers on top: the report is byte for byte the same, and the trace holds the same lines.
// Jobs that run in part in all-ranks mode, after a lengthened run, with two chunks per stage, and
// with expert parallelism (the others' traces take a second or more each).
TEST(SteadyTimeline, TraceAndReportAreThoseOfTheWholeSimulation) {
  const std::vector<std::string> written{"gpt2 1f1b pp4 all ranks", "gpt2 zb-h1, long", "gpt2 dualpipev",
                                         "mixtral ep8 pp4"};
  for (const SteadyCase& c : api::steady_cases()) {
    if (std::find(written.begin(), written.end(), c.name) == written.end()) continue;
    SCOPED_TRACE(c.name);
    const api::Simulation fast = run(c, true);
    ASSERT_TRUE(fast.repeats.has_value());
    const api::Simulation whole = run(c, false);
    EXPECT_TRUE(report(fast) == report(whole));
    EXPECT_TRUE(trace_lines(fast) == trace_lines(whole));
  }
}

}  // namespace distsim::io
