#include "compare/rank_mapping.hpp"

#include <gtest/gtest.h>

#include "core/input_error.hpp"
#include "timeline_builders.hpp"

namespace distsim::compare {

namespace {

TEST(RankMapping, EveryRankPresentMapsByNumber) {
  const auto predicted = timeline(1, 1, 2, 0, 10,
                                  {rank_timeline(0, strategy::RankCoord{}, {}),
                                   rank_timeline(1, strategy::RankCoord{{strategy::ParallelDim::dp, 1}}, {})});
  const auto measured = timeline(1, 1, 2, 0, 10,
                                 {rank_timeline(0, strategy::RankCoord{}, {}),
                                  rank_timeline(1, strategy::RankCoord{{strategy::ParallelDim::dp, 1}}, {})});
  const auto mapping = map_ranks(predicted, measured);
  EXPECT_EQ(mapping.kind, RankMappingKind::by_rank);
  ASSERT_EQ(mapping.pairs.size(), 2u);
  EXPECT_EQ(mapping.pairs[1].predicted_rank, 1);
}

TEST(RankMapping, ReplicaZeroTraceMapsByTensorAndPipelinePosition) {
  // tp 2, pp 2, dp 2 in Megatron order (rank = tp + 2·(dp + 2·pp)): replica 0 is ranks 0, 1, 4, 5.
  // Measured rank 7 is (tp 1, dp 1, pp 1), so it meets predicted rank 1 + 2·(0 + 2·1) = 5; rank 2
  // (tp 0, dp 1, pp 0) meets rank 0.
  const auto predicted = timeline(
      2, 2, 2, 0, 10,
      {rank_timeline(0, strategy::RankCoord{}, {}),
       rank_timeline(1, strategy::RankCoord{{strategy::ParallelDim::tp, 1}}, {}),
       rank_timeline(4, strategy::RankCoord{{strategy::ParallelDim::pp, 1}}, {}),
       rank_timeline(5, strategy::RankCoord{{strategy::ParallelDim::tp, 1}, {strategy::ParallelDim::pp, 1}}, {})});
  const auto measured = timeline(2, 2, 2, 0, 10,
                                 {rank_timeline(2, strategy::RankCoord{{strategy::ParallelDim::dp, 1}}, {}),
                                  rank_timeline(7,
                                                strategy::RankCoord{{strategy::ParallelDim::tp, 1},
                                                                    {strategy::ParallelDim::dp, 1},
                                                                    {strategy::ParallelDim::pp, 1}},
                                                {})});
  const auto mapping = map_ranks(predicted, measured);
  EXPECT_EQ(mapping.kind, RankMappingKind::by_coordinate);
  ASSERT_EQ(mapping.pairs.size(), 2u);
  EXPECT_EQ(mapping.pairs[0].predicted_rank, 0);
  EXPECT_EQ(mapping.pairs[1].predicted_rank, 5);
}

TEST(RankMapping, MissingPredictedPositionIsNamed) {
  // Only rank 0 predicted (tp 2, pp 1, dp 2); measured rank 3 is (tp 1, dp 1): its replica-0
  // partner would be rank 1, which the predicted trace lacks.
  const auto predicted = timeline(2, 1, 2, 0, 10, {rank_timeline(0, strategy::RankCoord{}, {})});
  const auto measured = timeline(
      2, 1, 2, 0, 10,
      {rank_timeline(3, strategy::RankCoord{{strategy::ParallelDim::tp, 1}, {strategy::ParallelDim::dp, 1}}, {})});
  try {
    map_ranks(predicted, measured);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(),
                 "the predicted trace has no rank 1 (tp 1, pp 0, dp 0) to compare with rank 3 of 'rank3.json'; "
                 "write it with distsim simulate --trace-ranks all");
  }
}

TEST(RankMapping, OtherRankOrderIsRefused) {
  // tp 2, pp 1, dp 2: in Megatron order rank 1 is (tp 1, dp 0); a measured trace that says rank 1
  // is (tp 0, dp 1) numbers its ranks another way, so pairing by number would pair other devices.
  const auto predicted = timeline(2, 1, 2, 0, 10,
                                  {rank_timeline(0, strategy::RankCoord{}, {}),
                                   rank_timeline(1, strategy::RankCoord{{strategy::ParallelDim::tp, 1}}, {})});
  const auto measured =
      timeline(2, 1, 2, 0, 10, {rank_timeline(1, strategy::RankCoord{{strategy::ParallelDim::dp, 1}}, {})});
  try {
    map_ranks(predicted, measured);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(),
                 "'rank1.json': rank 1 is at tp 0, pp 0, dp 1, but in the predicted job rank 1 is at tp 1, pp 0, dp 0; "
                 "the measured job must number its ranks in Megatron's order (rank = tp + TP * (dp + DP * pp))");
  }
}

}  // namespace

}  // namespace distsim::compare
