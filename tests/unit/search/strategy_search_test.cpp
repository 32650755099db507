#include "search/strategy_search.hpp"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "catalog/builtin_clusters.hpp"
#include "catalog/builtin_models.hpp"
#include "core/input_error.hpp"
#include "cost/fixed_cost_model.hpp"

namespace distsim::search {

namespace {

constexpr SimTime kMs = 1'000'000;

//! Four layers on one node of four GPUs, global batch 4, micro-batch 1. Only attention costs
//! time (forward 1 ms, backward 2 ms per layer, whatever the shard), so each candidate's
//! iteration time follows from the pipeline formula (m + p - 1)(t_f + t_b) with m = 4 / dp
//! micro-batches and 4 / p layers per stage.
SearchSpace four_gpu_space() {
  SearchSpace space;
  // Only the (tp, pp, dp) split is free; every other searched setting is pinned.
  space.listed = {{"cp", {1}},
                  {"micro_batch_size", {1}},
                  {"schedule", {std::string("1f1b")}},
                  {"virtual_stages", {1}},
                  {"sequence_parallel", {false}},
                  {"recompute", {std::string("none")}},
                  {"distributed_optimizer", {false}}};
  space.base.model = catalog::find_model("gpt2-345m");
  space.base.model.num_layers = 4;
  space.base.cluster = catalog::find_cluster("pcie-a40");
  space.base.cluster.num_hosts = 1;
  space.base.cluster.gpus_per_host = 4;
  space.base.strategy.global_batch_size = 4;
  return space;
}

SearchOptions fixed_costs(int threads) {
  SearchOptions options;
  options.threads = threads;
  options.simulation.preferred_costs = std::make_shared<cost::FixedCostModel>(
      std::map<std::string, SimTime>{{"flash_attention_fwd", 1 * kMs}, {"flash_attention_bwd", 2 * kMs}}, 0, 0);
  return options;
}

TEST(StrategySearch, RanksByTheHandComputedPipelineTimes) {
  const SearchResult result = run_search(four_gpu_space(), fixed_costs(1));
  ASSERT_EQ(result.candidates.size(), 6u);
  ASSERT_EQ(result.ranking.size(), 6u);
  // 1M1P4D: m 1, 4 layers x 3 ms = 12 ms.   1M2P2D: m 2, (2 + 1) x (2 + 4) ms = 18 ms.
  // 1M4P1D: m 4, (4 + 3) x (1 + 2) = 21 ms. 2M1P2D: m 2, 2 x 12 = 24 ms.
  // 2M2P1D: m 4, (4 + 1) x 6 = 30 ms.       4M1P1D: m 4, 4 x 12 = 48 ms.
  const std::vector<std::pair<std::string, double>> expected{{"1M1P4D", 0.012}, {"1M2P2D", 0.018}, {"1M4P1D", 0.021},
                                                             {"2M1P2D", 0.024}, {"2M2P1D", 0.030}, {"4M1P1D", 0.048}};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const Candidate& c = result.candidates[result.ranking[i]];
    EXPECT_EQ(c.strategy.notation(), expected[i].first);
    EXPECT_NEAR(c.iteration_time_s, expected[i].second, 1e-12);
    EXPECT_NEAR(c.samples_per_s, 4 / expected[i].second, 1e-6);
  }
  EXPECT_NEAR(result.best_worst_ratio(), 48.0 / 12.0, 1e-12);
}

TEST(StrategySearch, ResultDoesNotDependOnTheThreadCount) {
  const SearchResult one = run_search(four_gpu_space(), fixed_costs(1));
  const SearchResult three = run_search(four_gpu_space(), fixed_costs(3));
  ASSERT_EQ(one.candidates.size(), three.candidates.size());
  EXPECT_EQ(one.ranking, three.ranking);
  for (std::size_t i = 0; i < one.candidates.size(); ++i) {
    EXPECT_EQ(one.candidates[i].iteration_time_s, three.candidates[i].iteration_time_s);
  }
}

TEST(StrategySearch, CandidatesDoNotDependOnTheThreadCount) {
  // Every setting free on 64 GPUs: over a thousand candidates, checked in several blocks of
  // consecutive ones, so threads check blocks side by side. The same statuses, reasons and
  // memory whatever the threads, and one text per reason across blocks.
  SearchSpace space;
  space.base.model = catalog::find_model("gpt2-345m");
  space.base.cluster = catalog::find_cluster("pcie-a40");
  space.base.cluster.num_hosts = 8;
  space.base.cluster.gpus_per_host = 8;
  space.base.strategy.global_batch_size = 64;
  const auto one = enumerate_candidates(space, 0, 1);
  const auto three = enumerate_candidates(space, 0, 3);
  ASSERT_GT(one.size(), 1024U);
  ASSERT_EQ(one.size(), three.size());
  std::map<std::string, const std::string*> texts;
  for (std::size_t i = 0; i < one.size(); ++i) {
    EXPECT_EQ(one[i].label(), three[i].label());
    EXPECT_EQ(one[i].status, three[i].status) << one[i].label();
    EXPECT_EQ(one[i].reason(), three[i].reason()) << one[i].label();
    EXPECT_EQ(one[i].peak_memory_bytes, three[i].peak_memory_bytes) << one[i].label();
    if (three[i].reason_text) {
      const auto known = texts.emplace(three[i].reason(), three[i].reason_text.get()).first;
      EXPECT_EQ(known->second, three[i].reason_text.get()) << three[i].reason();
    }
  }
  EXPECT_GT(texts.size(), 1U);
}

TEST(StrategySearch, BertExLargeOnSixteenA10HasFifteenValidSettings) {
  // The DistSim paper's use case: every (tp, pp, dp) with product 16 is valid for 48 layers,
  // 16 heads and global batch 16.
  SearchSpace space = four_gpu_space();
  space.base.model = catalog::find_model("bert-exlarge");
  space.base.cluster = catalog::find_cluster("pcie-a10");
  space.base.cluster.num_hosts = 4;
  space.base.cluster.gpus_per_host = 4;
  space.base.strategy.global_batch_size = 16;
  const auto candidates = enumerate_candidates(space);
  ASSERT_EQ(candidates.size(), 15u);
  for (const auto& c : candidates) {
    EXPECT_EQ(c.status, CandidateStatus::ok) << c.label() << ": " << c.reason();
  }
}

TEST(StrategySearch, FreeVirtualStagesAreTheCountsThatSplitAStageIntoEqualChunks) {
  // 4 layers on 4 GPUs, schedule free: one stage gets 1f1b only (no pipeline to schedule); two
  // stages of 2 layers allow 2 chunks of one layer; four stages of one layer allow none.
  SearchSpace space = four_gpu_space();
  space.listed.erase("schedule");
  space.listed.erase("virtual_stages");
  std::map<std::string, std::set<int>> chunks;  // "1M2P2D interleaved" -> {2}
  for (const auto& c : enumerate_candidates(space)) {
    chunks[c.strategy.notation() + " " + c.strategy.schedule].insert(c.strategy.virtual_stages);
  }
  EXPECT_EQ(chunks.at("1M2P2D interleaved"), std::set<int>{2});
  EXPECT_EQ(chunks.at("1M2P2D 1f1b"), std::set<int>{1});
  EXPECT_EQ(chunks.count("1M4P1D interleaved"), 0u);
  EXPECT_EQ(chunks.count("1M1P4D gpipe"), 0u);
  EXPECT_EQ(chunks.count("1M1P4D 1f1b"), 1u);
}

TEST(StrategySearch, InvalidCandidatesCarryTheirReason) {
  SearchSpace space = four_gpu_space();
  space.base.model.num_attention_heads = 2;
  space.base.model.num_kv_heads = 2;
  const auto candidates = enumerate_candidates(space);
  const auto tp4 = std::find_if(candidates.begin(), candidates.end(),
                                [](const Candidate& c) { return c.strategy.tensor_parallel == 4; });
  ASSERT_NE(tp4, candidates.end());
  EXPECT_EQ(tp4->status, CandidateStatus::invalid);
  EXPECT_NE(tp4->reason().find("tensor parallel size 4 does not divide num_attention_heads 2"), std::string::npos)
      << tp4->reason();
}

TEST(StrategySearch, NoValidCandidateIsAnInputErrorListingTheReasons) {
  // 7 GPUs, one layer, 16 heads, global batch 16: tp 7 does not divide the heads, pp 7 exceeds
  // the one layer, dp 7 does not divide the batch.
  SearchSpace space = four_gpu_space();
  space.base.model.num_layers = 1;
  space.base.cluster.gpus_per_host = 7;
  space.base.strategy.global_batch_size = 16;
  try {
    run_search(space, fixed_costs(1));
    FAIL() << "expected an InputError";
  } catch (const InputError& error) {
    const std::string message = error.what();
    EXPECT_EQ(message.rfind("no valid strategy among 3 candidates for 7 GPUs:", 0), 0u) << message;
    EXPECT_NE(message.find("pipeline parallel size 7 exceeds the 1 layers"), std::string::npos) << message;
  }
}

}  // namespace

}  // namespace distsim::search

namespace distsim::search {

namespace {

//! four_gpu_space's job trains 4 sequences of 1,024 tokens an iteration: 4,096 tokens.
constexpr double kTokensPerIteration = 4 * 1024;

SearchOptions time_to_train(const strategy::TrainingRun& run) {
  SearchOptions options = fixed_costs(1);
  options.objectives.rank = Objective::time_to_train;
  options.goal = training_goal(run);
  return options;
}

}  // namespace

// Without failures a run stops only to save: with a checkpoint every 100 iterations, 1,000
// iterations' worth of tokens save 1,000 / 100 = 10 times, each the same checkpoint written by the
// same four GPUs. So every candidate takes its 1,000 iterations (12 s for 1M1P4D's 12 ms, the
// hand-computed times of RanksByTheHandComputedPipelineTimes) plus the same ten saves, and the
// ranking is the time's.
TEST(StrategySearch, TimeToTrainWithoutFailuresIsTheIterationsAndTheSaves) {
  strategy::TrainingRun run;
  run.tokens = 1000 * kTokensPerIteration;
  run.failure_rates.fill(0.0);
  run.checkpoint_interval = 100;
  const SearchResult result = run_search(four_gpu_space(), time_to_train(run));
  ASSERT_EQ(result.ranking.size(), 6u);
  const std::vector<std::pair<std::string, double>> expected{{"1M1P4D", 12.0}, {"1M2P2D", 18.0}, {"1M4P1D", 21.0},
                                                             {"2M1P2D", 24.0}, {"2M2P1D", 30.0}, {"4M1P1D", 48.0}};
  const double saves_s = result.candidates[result.ranking[0]].time_to_train_s - expected[0].second;
  EXPECT_GT(saves_s, 0.0);
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const Candidate& c = result.candidates[result.ranking[i]];
    EXPECT_EQ(c.strategy.notation(), expected[i].first);
    EXPECT_NEAR(c.time_to_train_s - expected[i].second, saves_s, 1e-9);
    EXPECT_LE(c.time_to_train_bound_s, c.time_to_train_s);
  }
}

// With failures the expected time is longer than the healthy one, and never below its bound (which
// the search computes to prune when it keeps only the top candidates).
TEST(StrategySearch, TimeToTrainCountsFailures) {
  strategy::TrainingRun run;
  run.tokens = 1000 * kTokensPerIteration;
  SearchOptions options = time_to_train(run);
  options.keep = 6;
  const SearchResult result = run_search(four_gpu_space(), options);
  ASSERT_FALSE(result.ranking.empty());
  for (const std::size_t index : result.ranking) {
    const Candidate& c = result.candidates[index];
    EXPECT_GT(c.time_to_train_s, 1000 * c.iteration_time_s);
    EXPECT_GT(c.time_to_train_bound_s, 0.0);
    EXPECT_LE(c.time_to_train_bound_s, c.time_to_train_s);
  }
}

TEST(StrategySearch, TimeToTrainNeedsTokens) {
  SearchOptions options = fixed_costs(1);
  options.objectives.rank = Objective::time_to_train;
  EXPECT_THROW(run_search(four_gpu_space(), options), InputError);
}

}  // namespace distsim::search
