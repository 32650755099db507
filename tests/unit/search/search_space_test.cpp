#include "search/search_space.hpp"

#include <gtest/gtest.h>

#include "catalog/builtin_clusters.hpp"
#include "catalog/builtin_models.hpp"
#include "core/input_error.hpp"

namespace distsim::search {

namespace {

SearchSpace bert_on_16_a10() {
  SearchSpace space;
  space.base.model = catalog::find_model("bert-exlarge");
  space.base.cluster = catalog::find_cluster("pcie-a10");
  space.base.cluster.num_hosts = 4;
  space.base.cluster.gpus_per_host = 4;
  space.base.strategy.global_batch_size = 16;
  return space;
}

std::string error_of(const SearchSpace& space) {
  try {
    check_search_space(space);
  } catch (const InputError& error) {
    return error.what();
  }
  return "";
}

std::string list_error(const std::string& key, const std::vector<std::string>& items, const std::string& flag) {
  SearchSpace space = bert_on_16_a10();
  try {
    list_values(space, key, items, flag);
  } catch (const InputError& error) {
    return error.what();
  }
  return "";
}

// The searched settings come from the option table (JobOption::search_values), in table order.
TEST(SearchedOptions, AreTheTableOptionsASearchMayLeaveFree) {
  std::vector<std::string> keys;
  for (const auto* option : searched_options()) keys.push_back(option->key);
  const std::vector<std::string> expected{"tp",
                                          "pp",
                                          "dp",
                                          "cp",
                                          "micro_batch_size",
                                          "schedule",
                                          "virtual_stages",
                                          "sequence_parallel",
                                          "recompute",
                                          "distributed_optimizer"};
  EXPECT_EQ(keys, expected);
  EXPECT_EQ(searched_keys().front(), "strategy");
}

TEST(ListValues, ParsesByTheTableAndAllMeansFree) {
  SearchSpace space = bert_on_16_a10();
  list_values(space, "tp", {"1", "2", "2", "4"}, "--tp");
  const std::vector<options::Value> expected{1, 2, 4};  // each value once
  EXPECT_EQ(space.listed.at("tp"), expected);
  list_values(space, "tp", {"all"}, "--tp");
  EXPECT_EQ(space.listed.count("tp"), 0u);
}

TEST(ListValues, NamesTheFlagAndSuggestsTheClosestName) {
  EXPECT_EQ(list_error("micro_batch_size", {"1", "0"}, "--micro-batch-size"),
            "--micro-batch-size: expected a positive integer, got '0'");
  const std::string message = list_error("schedule", {"1f1b", "gpip"}, "--schedule");
  EXPECT_EQ(message.rfind("--schedule: unknown schedule 'gpip'; did you mean 'gpipe'?", 0), 0u) << message;
  EXPECT_EQ(list_error("sequence_parallel", {"ture"}, "--sequence-parallel").rfind("--sequence-parallel: ", 0), 0u);
}

TEST(SearchSpaceCheck, RejectsMicroBatchThatDoesNotDivideTheGlobalBatch) {
  SearchSpace space = bert_on_16_a10();
  space.listed["micro_batch_size"] = {1, 3};
  EXPECT_EQ(error_of(space), "--micro-batch-size: 3 does not divide the global batch size 16; use divisors of it");
}

TEST(SearchSpaceCheck, RejectsAnEmptyList) {
  SearchSpace space = bert_on_16_a10();
  space.listed["schedule"] = {};
  EXPECT_EQ(error_of(space), "empty search space: --schedule lists no values");
}

}  // namespace

}  // namespace distsim::search
