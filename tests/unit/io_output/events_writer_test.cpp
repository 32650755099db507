#include "io/output/events_writer.hpp"

#include <gtest/gtest.h>

#include <sstream>

#include "io/output/summary_writer.hpp"
#include "search/job_census.hpp"
#include "tiny_simulation.hpp"

namespace distsim::io {

namespace {

using testing::fixed_costs;
using testing::two_stage_job;

TEST(EventsJson, ListsEveryUniqueEventById) {
  const auto job = two_stage_job();
  const auto program = api::job_events(job, fixed_costs());
  const auto json = events_json(job, program);
  // The job as a job file (the two-stage fixture: tp 1, pp 2, dp 1), and its notation beside it.
  EXPECT_EQ(json["strategy"], "1M2P1D");
  EXPECT_EQ(json["job"]["tp"], 1);
  EXPECT_EQ(json["job"]["pp"], 2);
  EXPECT_EQ(json["job"]["dp"], 1);
  EXPECT_EQ(json["unique"], program.events.size());
  EXPECT_EQ(json["instances"], program.events.total_instances());
  EXPECT_DOUBLE_EQ(json["dedup_ratio"].get<double>(),
                   json["instances"].get<double>() / json["unique"].get<double>());
  const auto& events = json["events"];
  ASSERT_EQ(events.size(), program.events.size());
  for (size_t id = 0; id < events.size(); ++id) {
    const auto& event = events[id];
    EXPECT_EQ(event["id"], id);
    for (const char* key : {"key", "class", "op", "dtype", "flops", "bytes_moved", "instances", "duration_us",
                            "source"}) {
      EXPECT_TRUE(event.contains(key)) << key << " missing in " << event.dump();
    }
    EXPECT_EQ(event["key"], program.events.at(static_cast<events::EventId>(id)).key());
    EXPECT_EQ(event["source"], "profiled");
  }
}

TEST(EventsJson, GivesShapesOfComputeAndPlacementOfCommunication) {
  const auto job = two_stage_job();
  const auto json = events_json(job, api::job_events(job, fixed_costs()));
  bool saw_embedding = false;
  bool saw_transfer = false;
  for (const auto& event : json["events"]) {
    if (event["op"] == "embedding") {
      saw_embedding = true;
      EXPECT_EQ(event["class"], "memory_bound");
      EXPECT_EQ(event["dims"], (nlohmann::json{{"rows", 32}, {"cols", 64}}));
      EXPECT_DOUBLE_EQ(event["duration_us"].get<double>(), 2.0);
      EXPECT_EQ(event["instances"], 2);
    }
    if (event["op"] == "send_recv") {
      saw_transfer = true;
      EXPECT_EQ(event["class"], "point_to_point");
      EXPECT_EQ(event["collective"], "send_recv");
      EXPECT_EQ(event["bytes"], 4096);
      EXPECT_EQ(event["group_size"], 2);
      EXPECT_EQ(event["scope"], "intra");
      EXPECT_EQ(event["ranks_per_domain"], 2);
      EXPECT_FALSE(event.contains("dims"));
    }
  }
  EXPECT_TRUE(saw_embedding);
  EXPECT_TRUE(saw_transfer);
}

TEST(EventsText, HasOneLinePerEventAndTheTotals) {
  const auto job = two_stage_job();
  const auto program = api::job_events(job, fixed_costs());
  const std::string text = events_text(job, program);
  std::istringstream lines(text);
  std::string line;
  std::vector<std::string> all;
  while (std::getline(lines, line)) {
    all.push_back(line);
  }
  // A title, the job's settings, the column header, one row per event, the totals.
  ASSERT_EQ(all.size(), program.events.size() + 4);
  EXPECT_EQ(all[1].rfind("settings: model={name: tiny, ", 0), 0U) << all[1];
  EXPECT_EQ(all[2], "    id  source           duration µs     instances  key");
  EXPECT_EQ(all.back().rfind("events: ", 0), 0U) << all.back();
  EXPECT_NE(text.find("\n     0  profiled               2.000             2  embedding rows=32 cols=64 bf16\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text, events_text(job, program));
}

TEST(EventsJson, SkipProfiledLeavesOutMeasuredEvents) {
  const auto job = two_stage_job();
  // Every event of fixed_costs() is "profiled", so nothing is left to measure; the totals stay.
  const auto json = events_json(job, api::job_events(job, fixed_costs()), true);
  EXPECT_TRUE(json["events"].empty());
  EXPECT_EQ(json["skipped_profiled"], json["unique"]);
}

//! The two-stage job with 2 micro-batches, then with 4: the same events, twice the tasks.
search::EventCensus census_of_two(std::vector<strategy::JobSpec>& jobs) {
  jobs = {two_stage_job(), testing::tiny_job(1, 2, 1, 2, 1, 4)};
  search::CensusOptions options;
  options.simulation = fixed_costs();
  return search::take_census(jobs, {"two", "four"}, options);
}

TEST(CensusJson, MergesTheJobsEvents) {
  std::vector<strategy::JobSpec> jobs;
  const auto census = census_of_two(jobs);
  const auto json = census_json(jobs, census, search::ProfilingCostOptions{});
  ASSERT_EQ(json["jobs"].size(), 2U);
  EXPECT_EQ(json["jobs"][0]["label"], "two");
  EXPECT_EQ(json["jobs"][1]["job"]["global_batch_size"], 4);
  // Same events in both jobs: the union is either job's set, each used by 2 jobs.
  EXPECT_EQ(json["unique"], json["jobs"][0]["unique"]);
  EXPECT_EQ(json["sum_of_job_unique"], 2 * json["jobs"][0]["unique"].get<int>());
  EXPECT_EQ(json["shared_by_several_jobs"], json["unique"]);
  // fixed_costs() timeline: 19 us an iteration with 2 micro-batches on 2 devices.
  EXPECT_DOUBLE_EQ(json["jobs"][0]["iteration_time_s"].get<double>(), 19e-6);
  for (const auto& event : json["events"]) {
    EXPECT_EQ(event["jobs"], 2);
    if (event["op"] == "embedding") {
      EXPECT_EQ(event["instances"], 6);  // once per micro-batch on stage 0: 2 + 4
      EXPECT_EQ(event["profile_devices"], 1);
    }
    if (event["op"] == "send_recv") {
      EXPECT_EQ(event["profile_devices"], 2);
    }
  }
  EXPECT_TRUE(json["profiling_cost"].contains("ratio"));
  EXPECT_EQ(json["profiling_cost"]["direct_iterations"], 23);
}

TEST(CensusText, HasOneLinePerJobAndTheCost) {
  std::vector<strategy::JobSpec> jobs;
  const std::string text = census_text(census_of_two(jobs), search::ProfilingCostOptions{});
  EXPECT_EQ(text.rfind("event census of 2 jobs:\n", 0), 0U) << text;
  EXPECT_NE(text.find("\n  two "), std::string::npos) << text;
  EXPECT_NE(text.find("\n  four "), std::string::npos) << text;
  EXPECT_NE(text.find("run each job directly for 23 iterations"), std::string::npos) << text;
  EXPECT_NE(text.find("profiling / direct: "), std::string::npos) << text;
}

}  // namespace

}  // namespace distsim::io
