#include "search/search_space.hpp"

#include <gtest/gtest.h>

#include <algorithm>

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
                                          "cp_comm_type",
                                          "cp_a2a_size",
                                          "micro_batch_size",
                                          "schedule",
                                          "precision",
                                          "virtual_stages",
                                          "sequence_parallel",
                                          "recompute",
                                          "distributed_optimizer",
                                          "sharding",
                                          "shard_group_size",
                                          "stage_gpus",
                                          "ep",
                                          "etp",
                                          "overlap_moe_expert_parallel_comm",
                                          "moe_shared_expert_overlap"};
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
            "--micro-batch-size: expected a positive integer (1 to 2147483647), got '0'");
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

// Qwen3-30B-A3B routes over 128 experts. A split of tp 2 x cp 1 x dp 12 has 24 ranks per stage;
// the sizes that divide both 128 and 24 are 1, 2, 4, 8. With etp 2 the product ep x 2 must divide
// 24, which drops 8 (16 does not divide 24). With cp 3 the stage has 72 ranks: 72 = 8 x 9, so the
// powers of two up to 8 again. A dense model has no expert parallel size to try.
TEST(ExpertParallelSizes, DivideTheExpertsAndTheStage) {
  const options::JobOption& ep = options::option("ep");
  strategy::JobSpec job;
  job.model = catalog::find_model("qwen3-30b-a3b");
  job.strategy.tensor_parallel = 2;
  job.strategy.pipeline_parallel = 2;
  job.strategy.data_parallel = 12;
  EXPECT_EQ(ep.search_values(job), (std::vector<options::Value>{1, 2, 4, 8}));
  job.strategy.expert_tensor_parallel = 2;
  EXPECT_EQ(ep.search_values(job), (std::vector<options::Value>{1, 2, 4}));
  job.strategy.expert_tensor_parallel = 1;
  job.strategy.context_parallel = 3;
  EXPECT_EQ(ep.search_values(job), (std::vector<options::Value>{1, 2, 4, 8}));
  job.model = catalog::find_model("gpt2-345m");
  EXPECT_EQ(ep.search_values(job), (std::vector<options::Value>{}));
}

// Qwen3-30B-A3B's experts have an FFN of 768 = 2^8 x 3. On a stage of tp 2 x dp 12 = 24 ranks
// with ep 4, the expert tensor sizes divide 24 / 4 = 6 and 768: 1, 2, 3, 6. The allgather
// dispatcher is simulated with etp 1 only.
TEST(ExpertTensorParallelSizes, DivideTheFfnAndTheStageLeftByEp) {
  const options::JobOption& etp = options::option("etp");
  strategy::JobSpec job;
  job.model = catalog::find_model("qwen3-30b-a3b");
  job.strategy.tensor_parallel = 2;
  job.strategy.data_parallel = 12;
  job.strategy.expert_parallel = 4;
  EXPECT_EQ(etp.search_values(job), (std::vector<options::Value>{1, 2, 3, 6}));
  job.strategy.moe_dispatcher = strategy::MoeDispatcher::allgather;
  EXPECT_EQ(etp.search_values(job), (std::vector<options::Value>{1}));
}

// Combined 1F1B is tried where Megatron-Core runs it (transformer_config.py): expert parallelism
// with the alltoall dispatcher, no full recomputation, and 1F1B on one stage or interleaved.
TEST(CombinedOneFOneB, IsTriedWhereMegatronRunsIt) {
  const options::JobOption& overlap = options::option("overlap_moe_expert_parallel_comm");
  const std::vector<options::Value> both{false, true};
  const std::vector<options::Value> off{false};
  strategy::JobSpec job;
  job.model = catalog::find_model("qwen3-30b-a3b");
  job.strategy.expert_parallel = 8;
  EXPECT_EQ(overlap.search_values(job), both);  // 1f1b on one stage
  job.strategy.pipeline_parallel = 2;
  EXPECT_EQ(overlap.search_values(job), off);
  job.strategy.schedule = "interleaved";
  job.strategy.virtual_stages = 2;
  EXPECT_EQ(overlap.search_values(job), both);
  job.strategy.recompute = strategy::Recompute::full;
  EXPECT_EQ(overlap.search_values(job), off);
  job.strategy.recompute = strategy::Recompute::none;
  job.strategy.moe_dispatcher = strategy::MoeDispatcher::allgather;
  EXPECT_EQ(overlap.search_values(job), off);
  job.strategy.moe_dispatcher = strategy::MoeDispatcher::alltoall;
  job.strategy.expert_parallel = 1;
  EXPECT_EQ(overlap.search_values(job), off);
}

// Shared-expert overlap is tried for a model with shared experts, with the alltoall dispatcher and
// without combined 1F1B (Megatron-Core refuses the two together).
TEST(SharedExpertOverlap, IsTriedWhereThereAreSharedExperts) {
  const options::JobOption& overlap = options::option("moe_shared_expert_overlap");
  const std::vector<options::Value> both{false, true};
  const std::vector<options::Value> off{false};
  strategy::JobSpec job;
  job.model = catalog::find_model("qwen3-30b-a3b");
  EXPECT_EQ(overlap.search_values(job), off);  // no shared experts
  job.model = catalog::find_model("deepseek-v3");
  EXPECT_EQ(overlap.search_values(job), both);
  job.strategy.overlap_moe_expert_parallel_comm = true;
  EXPECT_EQ(overlap.search_values(job), off);
  job.strategy.overlap_moe_expert_parallel_comm = false;
  job.strategy.moe_dispatcher = strategy::MoeDispatcher::allgather;
  EXPECT_EQ(overlap.search_values(job), off);
}

// The expert settings (the expert parallel size, combined 1F1B) are varied for an MoE model only
// (JobOption::applies), so that a dense model's search, its candidates and its echo are those of
// the searched options before them; a listed value is applied whatever the model, for the job
// rules to judge.
TEST(VariedOptions, TheExpertSettingsOnlyForAnMoeModel) {
  const auto keys = [](const SearchSpace& space) {
    std::vector<std::string> names;
    for (const auto* option : varied_options(space)) names.push_back(option->key);
    return names;
  };
  SearchSpace dense = bert_on_16_a10();
  std::vector<std::string> expected{"tp",
                                    "pp",
                                    "dp",
                                    "cp",
                                    "micro_batch_size",
                                    "schedule",
                                    "virtual_stages",
                                    "sequence_parallel",
                                    "recompute",
                                    "distributed_optimizer",
                                    "sharding"};
  EXPECT_EQ(keys(dense), expected);
  dense.listed["ep"] = {2};
  expected.emplace_back("ep");
  EXPECT_EQ(keys(dense), expected);
  SearchSpace moe = bert_on_16_a10();
  moe.base.model = catalog::find_model("qwen3-30b-a3b");
  expected.emplace_back("etp");
  expected.emplace_back("overlap_moe_expert_parallel_comm");
  expected.emplace_back("moe_shared_expert_overlap");
  EXPECT_EQ(keys(moe), expected);
}

// The GEMM format is varied only over listed values; `all` lists every format the option allows.
TEST(VariedOptions, PrecisionOnlyWhenListed) {
  const auto varies = [](const SearchSpace& space) {
    const auto varied = varied_options(space);
    return std::any_of(varied.begin(), varied.end(), [](const auto* option) { return option->key == "precision"; });
  };
  SearchSpace space = bert_on_16_a10();
  EXPECT_FALSE(varies(space));
  list_values(space, "precision", {"all"}, "--precision");
  const std::vector<options::Value> every{std::string("bf16"), std::string("fp8"), std::string("mxfp8"),
                                          std::string("nvfp4")};
  EXPECT_EQ(space.listed["precision"], every);
  EXPECT_TRUE(varies(space));
}

// A listed --sharding takes the place of --distributed-optimizer, and the other way round: the
// one listed beyond its default (none, false) is varied; both so listed are refused.
TEST(VariedOptions, ListedShardingTakesThePlaceOfTheDistributedOptimizer) {
  const auto varies = [](const SearchSpace& space, const std::string& key) {
    const auto varied = varied_options(space);
    return std::any_of(varied.begin(), varied.end(), [&](const auto* option) { return option->key == key; });
  };
  SearchSpace space = bert_on_16_a10();
  space.listed.erase("distributed_optimizer");
  EXPECT_TRUE(varies(space, "distributed_optimizer"));
  EXPECT_TRUE(varies(space, "sharding"));  // none and zero3 beside the distributed optimizer's zero1
  space.listed["sharding"] = {std::string("none"), std::string("zero3")};
  EXPECT_FALSE(varies(space, "distributed_optimizer"));
  EXPECT_TRUE(varies(space, "sharding"));
  space.listed["distributed_optimizer"] = {false};
  EXPECT_FALSE(varies(space, "distributed_optimizer"));
  EXPECT_TRUE(varies(space, "sharding"));
  space.listed["sharding"] = {std::string("none")};
  space.listed["distributed_optimizer"] = {false, true};
  EXPECT_TRUE(varies(space, "distributed_optimizer"));
  EXPECT_FALSE(varies(space, "sharding"));
  EXPECT_EQ(error_of(space), "");
  space.listed["sharding"] = {std::string("zero2")};
  EXPECT_EQ(error_of(space),
            "--distributed-optimizer and --sharding are both given, but a job takes one or the other; give the "
            "values with one of them");
}

// A job that sets --sharding once keeps that stage for every candidate (make_search_space lists
// its one value): --distributed-optimizer gives way to it when free, and listed beyond its
// default it is refused.
TEST(VariedOptions, TheJobsZeroStageTakesThePlaceOfTheDistributedOptimizer) {
  const auto varies = [](const SearchSpace& space, const std::string& key) {
    const auto varied = varied_options(space);
    return std::any_of(varied.begin(), varied.end(), [&](const auto* option) { return option->key == key; });
  };
  SearchSpace space = bert_on_16_a10();
  space.listed["sharding"] = {std::string("zero2")};
  EXPECT_FALSE(varies(space, "distributed_optimizer"));
  EXPECT_TRUE(varies(space, "sharding"));
  EXPECT_EQ(error_of(space), "");
  space.listed["distributed_optimizer"] = {false};
  EXPECT_EQ(error_of(space), "");
  space.listed["distributed_optimizer"] = {false, true};
  EXPECT_EQ(error_of(space),
            "--distributed-optimizer and --sharding are both given, but a job takes one or the other; give the "
            "values with one of them");
}

}  // namespace

}  // namespace distsim::search
