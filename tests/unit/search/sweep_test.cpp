#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "catalog/builtin_clusters.hpp"
#include "catalog/builtin_gpus.hpp"
#include "catalog/builtin_models.hpp"
#include "core/input_error.hpp"
#include "search/sweep.hpp"

namespace distsim::search {

namespace {

options::SpecResolvers catalog() {
  return {[](const std::string& name) { return catalog::find_model(name); },
          [](const std::string& name) { return catalog::find_gpu(name); },
          [](const std::string& name) { return catalog::find_cluster(name); }};
}

SweepAxis axis(const std::string& key, const std::vector<options::Value>& values) {
  SweepAxis made{key, {}};
  for (const auto& value : values) made.values.push_back({value, "test"});
  return made;
}

}  // namespace

// 2 models x 3 node counts = 6 points, the first axis varying slowest; every point keeps the
// settings the axes do not set.
TEST(SweepTest, PointsAreTheCrossProductFirstAxisSlowest) {
  Sweep sweep;
  sweep.axes = {axis("model", {std::string("gpt2-345m"), std::string("bert-large")}), axis("nodes", {1, 2, 4})};
  sweep.settings.set("gpu", std::string("a40"), "test");
  const auto points = sweep_points(sweep);
  ASSERT_EQ(points.size(), 6U);
  const std::vector<std::pair<std::string, int>> expected{{"gpt2-345m", 1},  {"gpt2-345m", 2},  {"gpt2-345m", 4},
                                                          {"bert-large", 1}, {"bert-large", 2}, {"bert-large", 4}};
  for (std::size_t i = 0; i < points.size(); ++i) {
    EXPECT_EQ(std::get<std::string>(points[i].find("model")->value), expected[i].first);
    EXPECT_EQ(std::get<int>(points[i].find("nodes")->value), expected[i].second);
    EXPECT_EQ(std::get<std::string>(points[i].find("gpu")->value), "a40");
  }
}

// The text names only the axes that list several values, a GPU by the catalog entry's name.
TEST(SweepTest, PointTextNamesTheAxesThatVary) {
  Sweep sweep;
  sweep.axes = {axis("model", {std::string("gpt2-345m")}), axis("gpu", {std::string("h100"), std::string("a40")})};
  const auto points = sweep_points(sweep);
  strategy::JobSpec base;
  base.cluster.gpu = catalog::find_gpu("h100");
  EXPECT_EQ(point_text(sweep, points[0], base), "gpu=h100-sxm");
  Sweep single;
  single.axes = {axis("model", {std::string("gpt2-345m")})};
  base.model = catalog::find_model("gpt2-345m");
  EXPECT_EQ(point_text(single, sweep_points(single)[0], base), "model=gpt2-345m");
}

// Each point keeps the search's first `top` ranked candidates (the best first) and its counts.
TEST(SweepTest, EachPointKeepsItsBestCandidates) {
  Sweep sweep;
  sweep.axes = {axis("nodes", {1, 2})};
  sweep.settings.set("model", std::string("gpt2-345m"), "test");
  sweep.settings.set("gpu", std::string("a40"), "test");
  sweep.settings.set("gpus_per_node", 2, "test");
  sweep.settings.set("global_batch_size", 8, "test");
  sweep.lists["schedule"] = {"1f1b"};
  sweep.top = 3;
  SweepRun run;
  const auto points = run_sweep(sweep, catalog(), run);
  ASSERT_EQ(points.size(), 2U);
  for (const auto& point : points) {
    ASSERT_EQ(point.result.ranking.size(), 3U);
    EXPECT_EQ(point.result.candidates.size(), 3U);
    EXPECT_LE(point.result.candidates[0].iteration_time_s, point.result.candidates[1].iteration_time_s);
    EXPECT_LE(point.result.candidates[1].iteration_time_s, point.result.candidates[2].iteration_time_s);
    EXPECT_GE(point.candidates, point.simulated);
  }
  EXPECT_EQ(points[0].result.candidates[0].cluster().total_gpus(), 2);
  EXPECT_EQ(points[1].result.candidates[0].cluster().total_gpus(), 4);
}

// A point whose search is refused names the point.
TEST(SweepTest, ARefusedPointIsNamed) {
  Sweep sweep;
  sweep.axes = {axis("global_batch_size", {8, 3})};
  sweep.settings.set("model", std::string("gpt2-345m"), "test");
  sweep.settings.set("gpu", std::string("a40"), "test");
  sweep.lists["micro_batch_size"] = {"2"};
  try {
    run_sweep(sweep, catalog(), SweepRun{});
    FAIL() << "a micro-batch size of 2 does not divide a global batch of 3";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("sweep point global_batch_size=3: "), std::string::npos) << error.what();
  }
}

}  // namespace distsim::search
