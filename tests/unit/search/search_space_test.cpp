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

TEST(ParallelSizeTriples, SixteenGpusHaveFifteenOrderedSplits) {
  // 16 = 2^4: placing four factors of 2 among three sizes is C(4 + 2, 2) = 15 ways.
  const auto triples = parallel_size_triples(16);
  ASSERT_EQ(triples.size(), 15u);
  for (const auto& t : triples) {
    EXPECT_EQ(t.tensor_parallel * t.pipeline_parallel * t.data_parallel, 16);
  }
  EXPECT_EQ(triples.front().notation(), "1M1P16D");
  EXPECT_EQ(triples.back().notation(), "16M1P1D");
}

TEST(ParallelSizeTriples, TwelveGpusHaveEighteen) {
  // 12 = 2^2 * 3: C(2 + 2, 2) = 6 ways for the twos times 3 places for the three.
  EXPECT_EQ(parallel_size_triples(12).size(), 18u);
  EXPECT_EQ(parallel_size_triples(1).size(), 1u);
}

TEST(SearchSpaceCheck, RejectsEmptyLists) {
  SearchSpace space = bert_on_16_a10();
  space.micro_batch_sizes.clear();
  EXPECT_EQ(error_of(space), "empty search space: --micro-batch-sizes lists no values");
  space = bert_on_16_a10();
  space.schedules.clear();
  EXPECT_EQ(error_of(space), "empty search space: --schedules lists no values");
}

TEST(SearchSpaceCheck, RejectsMicroBatchThatDoesNotDivideTheGlobalBatch) {
  SearchSpace space = bert_on_16_a10();
  space.micro_batch_sizes = {1, 3};
  EXPECT_EQ(error_of(space), "--micro-batch-sizes: 3 does not divide the global batch size 16; use divisors of it");
}

TEST(SearchSpaceCheck, UnknownScheduleSuggestsTheClosest) {
  SearchSpace space = bert_on_16_a10();
  space.schedules = {"1f1b", "gpip"};
  const std::string message = error_of(space);
  EXPECT_EQ(message.rfind("--schedules: unknown schedule 'gpip'; did you mean 'gpipe'? (known: gpipe, 1f1b", 0), 0u)
      << message;
}

// "all" is every registered schedule in `distsim list schedules` order; a name given before it
// keeps its place and is tried once.
TEST(SearchSpaceSchedules, AllIsEveryRegisteredSchedule) {
  SearchSpace space = bert_on_16_a10();
  space.schedules = {"zb-h1", "all"};
  const std::vector<std::string> expected{"zb-h1", "gpipe", "1f1b", "interleaved", "zb-h2", "zbv", "dualpipev"};
  EXPECT_EQ(schedules_to_try(space), expected);
  EXPECT_EQ(error_of(space), "");
}

}  // namespace

}  // namespace distsim::search

namespace distsim::search {

// Qwen3-30B-A3B routes over 128 experts. A split of tp 2 x dp 12 has 24 ranks per stage; the sizes
// that divide both 128 and 24 are 1, 2, 4, 8. With etp 2 the product ep x 2 must divide 24, which
// drops 8 (16 does not divide 24). A dense model keeps its one size.
TEST(ExpertParallelSizes, DivideTheExpertsAndTheStage) {
  strategy::JobSpec base;
  base.model = catalog::find_model("qwen3-30b-a3b");
  strategy::Strategy sizes;
  sizes.tensor_parallel = 2;
  sizes.pipeline_parallel = 2;
  sizes.data_parallel = 12;
  EXPECT_EQ(expert_parallel_sizes(base, sizes), (std::vector<int>{1, 2, 4, 8}));
  base.strategy.expert_tensor_parallel = 2;
  EXPECT_EQ(expert_parallel_sizes(base, sizes), (std::vector<int>{1, 2, 4}));
  base.model = catalog::find_model("gpt2-345m");
  EXPECT_EQ(expert_parallel_sizes(base, sizes), (std::vector<int>{1}));
}

}  // namespace distsim::search
