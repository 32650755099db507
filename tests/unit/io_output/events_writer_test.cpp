#include "io/output/events_writer.hpp"

#include <gtest/gtest.h>

#include <sstream>

#include "io/output/summary_writer.hpp"
#include "tiny_simulation.hpp"

namespace distsim::io {

namespace {

using testing::fixed_costs;
using testing::two_stage_job;

TEST(EventsJson, ListsEveryUniqueEventById) {
  const auto job = two_stage_job();
  const auto program = api::job_events(job, fixed_costs());
  const auto json = events_json(job, program);
  EXPECT_EQ(json["job"]["strategy"], "1M2P1D");
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
      EXPECT_EQ(event["ranks_per_node"], 2);
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
  // A title, the column header, one row per event, the totals.
  ASSERT_EQ(all.size(), program.events.size() + 3);
  EXPECT_EQ(all[1], "    id  source           duration µs     instances  key");
  EXPECT_EQ(all.back().rfind("events: ", 0), 0U) << all.back();
  EXPECT_NE(text.find("\n     0  profiled               2.000             2  embedding rows=32 cols=64 bf16\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text, events_text(job, program));
}

}  // namespace

}  // namespace distsim::io
