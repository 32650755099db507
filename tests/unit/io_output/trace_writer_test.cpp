#include "io/trace/trace_writer.hpp"
#include "io/trace/trace_notices.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "tiny_simulation.hpp"

namespace distsim::io {

namespace {

using testing::fixed_costs;
using testing::tiny_job;
using testing::two_stage_job;

std::string trace_of(const api::Simulation& simulation, TraceRanks ranks) {
  std::ostringstream out;
  write_chrome_trace(out, simulation, ranks);
  return out.str();
}

std::vector<nlohmann::json> events_with_phase(const nlohmann::json& trace, const std::string& phase) {
  std::vector<nlohmann::json> result;
  for (const auto& event : trace["traceEvents"]) {
    if (event["ph"] == phase) {
      result.push_back(event);
    }
  }
  return result;
}

std::set<int> metadata_pids(const nlohmann::json& trace, const std::string& name) {
  std::set<int> pids;
  for (const auto& event : events_with_phase(trace, "M")) {
    if (event["name"] == name) {
      pids.insert(event["pid"].get<int>());
    }
  }
  return pids;
}

// 2M2P2D on two nodes of four GPUs: stage 0 on ranks 0-3, stage 1 on ranks 4-7.
api::Simulation four_way_simulation(bool all_ranks = false) {
  return api::simulate(tiny_job(2, 2, 2, 4, 2, 4), fixed_costs(all_ranks));
}

TEST(ChromeTrace, IsAnObjectWithOneNamedProcessPerRank) {
  const auto trace = nlohmann::json::parse(trace_of(api::simulate(two_stage_job(), fixed_costs()), TraceRanks::all));
  EXPECT_EQ(trace["displayTimeUnit"], "ms");
  EXPECT_EQ(trace["otherData"]["strategy"], "1M2P1D");
  EXPECT_EQ(trace["otherData"]["iteration_time_ns"], 19000);
  EXPECT_EQ(metadata_pids(trace, "process_name"), (std::set<int>{0, 1}));
  EXPECT_EQ(metadata_pids(trace, "process_sort_index"), (std::set<int>{0, 1}));
  EXPECT_EQ(events_with_phase(trace, "M").front()["args"]["name"], "rank 0 (node 0, stage 0, tp 0, dp 0)");
}

// Perfetto colours a slice by a hash of its name, chrome://tracing by `cname`: each computation
// phase must differ in both. zb-h1 on 1M2P1D splits each backward into B and W, so the compute
// slices of rank 0 fall into exactly four phases (with the optimizer step, once per iteration),
// each with its own colour; B and W slices also carry their phase in the name.
TEST(ChromeTrace, GivesEachComputationPhaseItsOwnNameAndColour) {
  auto job = two_stage_job();
  job.strategy.schedule = "zb-h1";
  const auto trace = nlohmann::json::parse(trace_of(api::simulate(job, fixed_costs()), TraceRanks::all));
  std::map<std::string, std::set<std::string>> colours_by_phase;
  for (const auto& event : events_with_phase(trace, "X")) {
    if (event["pid"] != 0 || event["cat"] != "comp") {
      continue;
    }
    const auto phase = event["args"]["phase"].get<std::string>();
    const auto name = event["name"].get<std::string>();
    colours_by_phase[phase].insert(event["cname"].get<std::string>());
    const std::string suffix = phase == "bwd" ? " (B)" : phase == "wgrad" ? " (W)" : "";
    EXPECT_EQ(name.substr(name.size() - suffix.size()), suffix) << name;
    EXPECT_EQ(name.find(" ("), suffix.empty() ? std::string::npos : name.size() - suffix.size()) << name;
  }
  EXPECT_EQ(colours_by_phase,
            (std::map<std::string, std::set<std::string>>{
                {"fwd", {"rail_response"}}, {"bwd", {"rail_idle"}}, {"wgrad", {"olive"}}, {"optim", {"good"}}}));
}

TEST(ChromeTrace, NamesOnlyTheStreamsThatHaveActivities) {
  const auto trace = nlohmann::json::parse(trace_of(api::simulate(two_stage_job(), fixed_costs()), TraceRanks::all));
  std::map<int, std::set<int>> threads;
  for (const auto& event : events_with_phase(trace, "M")) {
    if (event["name"] == "thread_name") {
      threads[event["pid"].get<int>()].insert(event["tid"].get<int>());
    }
  }
  // Stage 0 computes, sends activations and receives gradients; stage 1 the other way round. The
  // tied embedding's gradient is reduced between them on the DP stream; no stream runs TP comm.
  EXPECT_EQ(threads[0], (std::set<int>{0, 2, 5, 6}));
  EXPECT_EQ(threads[1], (std::set<int>{0, 3, 4, 6}));
}

TEST(ChromeTrace, WritesMicrosecondsWithThreeDecimalsFromNanoseconds) {
  const std::string text = trace_of(api::simulate(two_stage_job(), fixed_costs()), TraceRanks::all);
  // The first attention starts after the 2 µs embedding and lasts 1.5 µs.
  EXPECT_NE(
      text.find(
          R"("cat":"comp","name":"attention","cname":"rail_response","pid":0,"tid":0,"ts":2.000,"dur":1.500,"args":{)"
          R"("event":"flash_attention_fwd b=1 heads=4 kv_heads=4 sq=32 skv=32 d=16 causal=1 bf16",)"
          R"("phase":"fwd","mb":0,"layer":0,"source":"profiled"}})"),
      std::string::npos);
  const std::regex number(R"re("(ts|dur)":([^,}]*))re");
  const std::regex fixed_point(R"re([0-9]+\.[0-9]{3})re");
  int checked = 0;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), number); it != std::sregex_iterator(); ++it) {
    EXPECT_TRUE(std::regex_match((*it)[2].str(), fixed_point)) << (*it)[0];
    ++checked;
  }
  EXPECT_GT(checked, 0);
}

TEST(ChromeTrace, CarriesTransferSizesOnCommunication) {
  const auto trace = nlohmann::json::parse(trace_of(api::simulate(two_stage_job(), fixed_costs()), TraceRanks::all));
  int sends = 0;
  for (const auto& event : events_with_phase(trace, "X")) {
    if (event["cat"] == "pp_send") {
      // One micro-batch's activation or gradient: 32 tokens × 64 hidden × 2 bytes.
      EXPECT_EQ(event["args"]["bytes"], 4096);
      EXPECT_EQ(event["args"]["group"], 2);
      ++sends;
    }
  }
  EXPECT_EQ(sends, 4);
}

//! Every flow start has exactly one end with the same id, from a send stream to a recv stream.
void expect_paired_flows(const nlohmann::json& trace, size_t expected) {
  std::map<std::uint64_t, nlohmann::json> starts;
  for (const auto& start : events_with_phase(trace, "s")) {
    EXPECT_TRUE(starts.emplace(start["id"].get<std::uint64_t>(), start).second) << start;
  }
  std::set<std::uint64_t> ended;
  for (const auto& end : events_with_phase(trace, "f")) {
    const auto id = end["id"].get<std::uint64_t>();
    EXPECT_TRUE(ended.insert(id).second) << end;
    ASSERT_TRUE(starts.contains(id)) << end;
    EXPECT_EQ(end["bp"], "e");
    EXPECT_EQ(end["ts"], starts[id]["ts"]);
    EXPECT_NE(end["pid"], starts[id]["pid"]);
    EXPECT_TRUE(starts[id]["tid"] == 2 || starts[id]["tid"] == 4);
    EXPECT_TRUE(end["tid"] == 3 || end["tid"] == 5);
  }
  EXPECT_EQ(starts.size(), expected);
  EXPECT_EQ(ended.size(), expected);
}

TEST(ChromeTrace, PairsEveryTransferArrow) {
  // Two micro-batches, each an activation forward and a gradient back, per (tp, dp) position.
  expect_paired_flows(nlohmann::json::parse(trace_of(api::simulate(two_stage_job(), fixed_costs()), TraceRanks::all)),
                      4);
  const auto simulation = four_way_simulation();
  expect_paired_flows(nlohmann::json::parse(trace_of(simulation, TraceRanks::replica)), 8);
  expect_paired_flows(nlohmann::json::parse(trace_of(simulation, TraceRanks::all)), 16);
}

TEST(ChromeTrace, ReplicaWritesDataParallelReplicaZero) {
  const auto simulation = four_way_simulation();
  const auto replica = nlohmann::json::parse(trace_of(simulation, TraceRanks::replica));
  const auto all = nlohmann::json::parse(trace_of(simulation, TraceRanks::all));
  EXPECT_EQ(metadata_pids(replica, "process_name"), (std::set<int>{0, 1, 4, 5}));
  EXPECT_EQ(metadata_pids(all, "process_name"), (std::set<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(events_with_phase(all, "X").size(), 2 * events_with_phase(replica, "X").size());
}

std::vector<std::string> sorted_activities(const nlohmann::json& trace) {
  std::vector<std::string> result;
  for (const auto& event : events_with_phase(trace, "X")) {
    result.push_back(event.dump());
  }
  std::sort(result.begin(), result.end());
  return result;
}

TEST(ChromeTrace, FanOutMatchesSimulatingEveryRank) {
  const auto symmetric = nlohmann::json::parse(trace_of(four_way_simulation(false), TraceRanks::all));
  const auto explicit_ranks = nlohmann::json::parse(trace_of(four_way_simulation(true), TraceRanks::all));
  EXPECT_EQ(sorted_activities(symmetric), sorted_activities(explicit_ranks));
  expect_paired_flows(explicit_ranks, 16);
}

TEST(ChromeTrace, IsByteIdenticalWhenWrittenTwice) {
  const auto simulation = four_way_simulation();
  EXPECT_EQ(trace_of(simulation, TraceRanks::all), trace_of(simulation, TraceRanks::all));
  EXPECT_EQ(trace_of(simulation, TraceRanks::replica), trace_of(four_way_simulation(), TraceRanks::replica));
}

}  // namespace

}  // namespace distsim::io

namespace distsim::io {

namespace {

// The estimate renders a sample of each device's activities; with the tiny jobs' few dozen
// activities per device the sample is all of them, so the estimate is within the envelope
// (4096 bytes for the opening line and otherData) of the written size, and counts what is written.
TEST(ChromeTraceEstimate, MatchesTheWrittenTrace) {
  for (const auto ranks : {TraceRanks::replica, TraceRanks::all}) {
    for (const bool all_ranks : {false, true}) {
      const auto simulation = four_way_simulation(all_ranks);
      const std::string trace = trace_of(simulation, ranks);
      const TraceSizeEstimate estimate = estimate_chrome_trace(simulation, ranks);
      const auto parsed = nlohmann::json::parse(trace);
      EXPECT_EQ(estimate.activities, events_with_phase(parsed, "X").size());
      EXPECT_EQ(estimate.ranks, ranks == TraceRanks::all ? 8U : 4U);  // 2M2P2D: replica 0 is 2 x 2 ranks
      EXPECT_NEAR(static_cast<double>(estimate.bytes), static_cast<double>(trace.size()), 4096.0);
    }
  }
}

TEST(ChromeTraceProgress, CountsEveryActivityAndEndsAtTheTotal) {
  const auto simulation = four_way_simulation(true);
  std::vector<std::pair<std::size_t, std::size_t>> calls;
  std::ostringstream with_progress;
  write_chrome_trace(with_progress, simulation, TraceRanks::all,
                     [&](std::size_t done, std::size_t total) { calls.emplace_back(done, total); });
  EXPECT_EQ(with_progress.str(), trace_of(simulation, TraceRanks::all));
  ASSERT_EQ(calls.size(), 8U);  // once per rank
  const auto activities = events_with_phase(nlohmann::json::parse(with_progress.str()), "X").size();
  EXPECT_EQ(calls.back(), std::make_pair(activities, activities));
  EXPECT_TRUE(std::is_sorted(calls.begin(), calls.end()));
}

// 1024 ranks, 3.2e9 bytes, against a 1 GB threshold: both notices, sizes in decimal units
// (3,210,000,000 B = 3.2 GB; 1,450,000 B = 1.4 MB, rounded to one decimal, half to even in the
// binary fraction: 1.45 is stored as 1.4499...).
TEST(TraceNotices, AnnounceALargeTraceAndSuggestTheReplica) {
  const TraceSizeEstimate all{1024, 3'210'000'000, 5'000'000};
  const TraceSizeEstimate replica{2, 1'450'000, 2'000};
  const auto notices = trace_notices("out/t.json", TraceRanks::all, all, replica);
  ASSERT_EQ(notices.size(), 2U);
  EXPECT_EQ(notices[0], "--trace 'out/t.json': about 3.2 GB to write (1024 ranks, 5000000 activities)");
  EXPECT_EQ(notices[1],
            "--trace-ranks all writes every one of 1024 ranks (3.2 GB); --trace-ranks replica writes the 2 ranks of "
            "data-parallel replica 0 (1.4 MB), which show every stage and tensor rank");
}

TEST(TraceNotices, StayQuietBelowTheThresholds) {
  const TraceSizeEstimate small{1023, 999'999'999, 10};
  EXPECT_TRUE(trace_notices("t.json", TraceRanks::all, small, TraceSizeEstimate{2, 1000, 1}).empty());
  // A threshold of 1000 bytes: 1001 bytes are announced, in kB rounded up (2 kB).
  const auto notices = trace_notices("t.json", TraceRanks::replica, {2, 1001, 3}, std::nullopt, 1000);
  ASSERT_EQ(notices.size(), 1U);
  EXPECT_EQ(notices[0], "--trace 't.json': about 2 kB to write (2 ranks, 3 activities)");
}

}  // namespace

}  // namespace distsim::io
