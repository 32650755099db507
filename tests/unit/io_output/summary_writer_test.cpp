#include "io/output/summary_writer.hpp"

#include <gtest/gtest.h>

#include "tiny_simulation.hpp"

namespace distsim::io {

namespace {

using testing::fixed_costs;
using testing::tiny_job;
using testing::two_stage_job;

void expect_keys(const nlohmann::json& object, std::initializer_list<const char*> keys) {
  for (const char* key : keys) {
    EXPECT_TRUE(object.contains(key)) << "missing key '" << key << "' in " << object.dump();
  }
}

TEST(SummaryJson, HasEveryRequiredKey) {
  const auto json = summary_json(api::simulate(two_stage_job(), fixed_costs()));
  expect_keys(json, {"job", "iteration_time_s", "throughput_samples_per_s", "tokens_per_s", "tflops_per_gpu", "mfu",
                     "bubble_fraction", "devices", "stages", "events"});
  expect_keys(json["job"], {"model", "gpu", "cluster", "nodes", "gpus_per_node", "strategy", "tp", "pp", "dp",
                            "micro_batch_size", "global_batch_size", "num_microbatches", "schedule", "dtype",
                            "simulated"});
  for (const auto& device : json["devices"]) {
    expect_keys(device, {"rank", "node", "stage", "tp", "dp", "busy_compute_s", "busy_comm_s", "idle_s"});
  }
  for (const auto& stage : json["stages"]) {
    expect_keys(stage, {"stage", "layers", "busy_compute_s", "busy_comm_s", "idle_s"});
    expect_keys(stage["layers"], {"first", "count"});
  }
  expect_keys(json["events"], {"unique", "instances", "profiled", "extrapolated", "analytical", "dedup_ratio"});
}

TEST(SummaryJson, DescribesTheJob) {
  const auto job = summary_json(api::simulate(two_stage_job(), fixed_costs()))["job"];
  EXPECT_EQ(job["model"], "tiny");
  EXPECT_EQ(job["gpu"], "test-gpu");
  EXPECT_EQ(job["strategy"], "1M2P1D");
  EXPECT_EQ(job["num_microbatches"], 2);
  EXPECT_EQ(job["schedule"], "gpipe");
  EXPECT_EQ(job["dtype"], "bf16");
  EXPECT_EQ(job["simulated"], "symmetric: one rank per stage");
}

// The timeline drawn in tiny_simulation.hpp: 19 µs; stage 0 computes 13 µs and waits 1.5 µs on
// exposed transfers, stage 1 computes 9 µs with 1.5 µs exposed.
TEST(SummaryJson, ReportsTheHandComputedTimeline) {
  const auto json = summary_json(api::simulate(two_stage_job(), fixed_costs()));
  EXPECT_DOUBLE_EQ(json["iteration_time_s"].get<double>(), 19e-6);
  EXPECT_DOUBLE_EQ(json["throughput_samples_per_s"].get<double>(), 2 / 19e-6);
  EXPECT_DOUBLE_EQ(json["tokens_per_s"].get<double>(), 64 / 19e-6);
  EXPECT_DOUBLE_EQ(json["bubble_fraction"].get<double>(), (4500.0 + 8500.0) / 2 / 19000.0);
  const auto& stages = json["stages"];
  ASSERT_EQ(stages.size(), 2U);
  EXPECT_EQ(stages[0]["layers"]["first"], 0);
  EXPECT_EQ(stages[1]["layers"]["first"], 1);
  EXPECT_EQ(stages[1]["layers"]["count"], 1);
  EXPECT_DOUBLE_EQ(stages[0]["busy_compute_s"].get<double>(), 13e-6);
  EXPECT_DOUBLE_EQ(stages[0]["busy_comm_s"].get<double>(), 1.5e-6);
  EXPECT_DOUBLE_EQ(stages[0]["idle_s"].get<double>(), 4.5e-6);
  EXPECT_DOUBLE_EQ(stages[1]["busy_compute_s"].get<double>(), 9e-6);
  EXPECT_DOUBLE_EQ(stages[1]["busy_comm_s"].get<double>(), 1.5e-6);
  EXPECT_DOUBLE_EQ(stages[1]["idle_s"].get<double>(), 8.5e-6);
  const auto& events = json["events"];
  EXPECT_EQ(events["profiled"], events["unique"]);
  EXPECT_EQ(events["analytical"], 0);
  EXPECT_DOUBLE_EQ(events["dedup_ratio"].get<double>(),
                   events["instances"].get<double>() / events["unique"].get<double>());
}

TEST(SummaryJson, ListsEveryRankWithItsStageDevice) {
  const auto simulation = api::simulate(tiny_job(2, 2, 2, 4, 2, 4), fixed_costs());
  const auto json = summary_json(simulation);
  const auto& devices = json["devices"];
  ASSERT_EQ(devices.size(), 8U);
  // Rank 7 is tp 1, dp 1 of stage 1, on the second node.
  EXPECT_EQ(devices[7]["rank"], 7);
  EXPECT_EQ(devices[7]["node"], 1);
  EXPECT_EQ(devices[7]["stage"], 1);
  EXPECT_EQ(devices[7]["tp"], 1);
  EXPECT_EQ(devices[7]["dp"], 1);
  EXPECT_EQ(devices[7]["busy_compute_s"], json["stages"][1]["busy_compute_s"]);
  EXPECT_EQ(devices[2]["idle_s"], json["stages"][0]["idle_s"]);
}

TEST(SummaryText, ShowsTheMetricsStagesAndEvents) {
  const auto simulation = api::simulate(two_stage_job(), fixed_costs());
  const std::string text = summary_text(simulation);
  EXPECT_NE(text.find("job: tiny on 1 x 2 test-gpu (test-cluster), 1M2P1D"), std::string::npos) << text;
  EXPECT_NE(text.find("iteration time: 0.019 ms\n"), std::string::npos) << text;
  EXPECT_NE(text.find("bubble: 34.21 %\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\n    0        0-0       0.013 ( 68.4 %)"), std::string::npos) << text;
  EXPECT_NE(text.find(events_line(simulation.summary.events)), std::string::npos) << text;
}

TEST(EventsLine, GroupsThousandsAndShowsTheDedupRatio) {
  analysis::EventCounts counts;
  counts.unique = 123;
  counts.instances = 456'789;
  counts.analytical = 123;
  EXPECT_EQ(events_line(counts),
            "events: 123 unique, 456,789 instances (dedup 3714x): 0 profiled, 0 extrapolated, 123 analytical");
  counts.instances = 246;
  EXPECT_EQ(events_line(counts),
            "events: 123 unique, 246 instances (dedup 2.0x): 0 profiled, 0 extrapolated, 123 analytical");
}

}  // namespace

}  // namespace distsim::io
