#include "strategy/strategy.hpp"

#include <gtest/gtest.h>

#include "core/input_error.hpp"

namespace distsim::strategy {

TEST(StrategyNotation, ParsesThePapersForm) {
  const Strategy s = parse_strategy_notation("2M2P4D");
  EXPECT_EQ(s.tensor_parallel, 2);
  EXPECT_EQ(s.pipeline_parallel, 2);
  EXPECT_EQ(s.data_parallel, 4);
  EXPECT_EQ(s.notation(), "2M2P4D");
}

TEST(StrategyNotation, AcceptsAnyOrderAndMissingParts) {
  const Strategy s = parse_strategy_notation("8d16m");
  EXPECT_EQ(s.tensor_parallel, 16);
  EXPECT_EQ(s.pipeline_parallel, 1);
  EXPECT_EQ(s.data_parallel, 8);
}

TEST(StrategyNotation, RejectsUnknownLetters) {
  try {
    parse_strategy_notation("2M2X");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(),
                 "strategy: unknown letter 'X' in '2M2X'; expected the form xMyPzD, for example 2M2P4D "
                 "(tensor 2, pipeline 2, data 4)");
  }
}

TEST(StrategyNotation, RejectsRepeatsAndZero) {
  EXPECT_THROW(parse_strategy_notation("2M2M"), InputError);
  EXPECT_THROW(parse_strategy_notation("0M2P"), InputError);
  EXPECT_THROW(parse_strategy_notation("M2P"), InputError);
  EXPECT_THROW(parse_strategy_notation("24"), InputError);
}

TEST(Strategy, MicrobatchesAndBucketFollowMegatron) {
  Strategy s;
  s.data_parallel = 64;
  s.micro_batch_size = 2;
  s.global_batch_size = 1536;
  EXPECT_EQ(s.num_microbatches(), 12);  // 1536 / (2 * 64)
  EXPECT_EQ(s.bucket_params(), 64'000'000);  // max(40M, 1M * 64)
  s.data_parallel = 8;
  EXPECT_EQ(s.bucket_params(), 40'000'000);
}

}  // namespace distsim::strategy
