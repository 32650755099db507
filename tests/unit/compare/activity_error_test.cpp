#include "compare/activity_error.hpp"

#include <gtest/gtest.h>

#include "timeline_builders.hpp"

namespace distsim::compare {

namespace {

using events::Phase;

TEST(ActivityError, DeviationOfStartAndEndRelativeToTheIteration) {
  // Predicted forward of mb 0 at 0-10 µs, measured at 1-12 µs, measured iteration 100 µs:
  // start off by 1 µs = 1 %, end by 2 µs = 2 %, their mean 1.5 %.
  const auto predicted = timeline(1, 1, 1, 0, 100, {rank_timeline(0, {}, {compute(Phase::forward, 0, 0, 10)})});
  const auto measured = timeline(1, 1, 1, 0, 100, {rank_timeline(0, {}, {compute(Phase::forward, 0, 1, 12)})});
  const auto errors = activity_errors(predicted, measured, same_ranks({0}));
  ASSERT_EQ(errors.ranks.size(), 1u);
  EXPECT_EQ(errors.granularity, ActivityGranularity::passes);
  EXPECT_EQ(errors.ranks[0].matched, 1);
  EXPECT_DOUBLE_EQ(errors.ranks[0].start_error, 0.01);
  EXPECT_DOUBLE_EQ(errors.ranks[0].end_error, 0.02);
  EXPECT_DOUBLE_EQ(errors.ranks[0].error, 0.015);
  EXPECT_DOUBLE_EQ(errors.mean_error, 0.015);
}

TEST(ActivityError, TimesCountFromEachSidesBegin) {
  // The measured trace's clock starts at 1000 µs (a profiler's absolute time): forward at
  // 1001-1012 is 1-12 from its begin, so the errors are those of the case above.
  const auto predicted = timeline(1, 1, 1, 0, 100, {rank_timeline(0, {}, {compute(Phase::forward, 0, 0, 10)})});
  const auto measured = timeline(1, 1, 1, 1000, 1100, {rank_timeline(0, {}, {compute(Phase::forward, 0, 1001, 1012)})});
  const auto errors = activity_errors(predicted, measured, same_ranks({0}));
  EXPECT_DOUBLE_EQ(errors.ranks[0].error, 0.015);
}

TEST(ActivityError, UnmatchedActivitiesAreCountedNotAveraged) {
  // Both sides have fwd mb 0 (predicted 0-10, measured 0-10: no deviation) and a DP all-reduce
  // only on the predicted side; the measured side adds a compute span without a micro-batch.
  // Mean over the one match: 0; one predicted-only, one measured-only.
  const auto predicted = timeline(
      1, 1, 1, 0, 50,
      {rank_timeline(0, {},
                     {compute(Phase::forward, 0, 0, 10), comm(ActivityKind::dp_comm, Phase::backward, -1, 20, 30)})});
  const auto measured =
      timeline(1, 1, 1, 0, 50,
               {rank_timeline(0, {}, {compute(Phase::forward, 0, 0, 10), compute(Phase::backward, -1, 30, 31)})});
  const auto errors = activity_errors(predicted, measured, same_ranks({0}));
  EXPECT_EQ(errors.ranks[0].matched, 1);
  EXPECT_EQ(errors.ranks[0].predicted_only, 1);
  EXPECT_EQ(errors.ranks[0].measured_only, 1);
  EXPECT_DOUBLE_EQ(errors.ranks[0].error, 0);
}

TEST(ActivityError, MeanOverRanksSkipsRanksWithoutMatches) {
  // Iteration 200 µs. Rank 0: fwd mb 0 predicted 0-20, measured 4-24: 4 µs = 2 % at both ends.
  // Rank 1: fwd 0-20 vs 0-20 and bwd 20-40 vs 30-50: start deviations 0 and 10 (mean 5 µs =
  // 2.5 %), end deviations 0 and 10 (2.5 %). Rank 2: only predicted work, no match, left out.
  // Mean over ranks 0 and 1: (2 + 2.5) / 2 = 2.25 %.
  const auto predicted =
      timeline(1, 1, 3, 0, 200,
               {rank_timeline(0, {}, {compute(Phase::forward, 0, 0, 20)}),
                rank_timeline(1, {}, {compute(Phase::forward, 0, 0, 20), compute(Phase::backward, 0, 20, 40)}),
                rank_timeline(2, {}, {compute(Phase::forward, 0, 0, 20)})});
  const auto measured =
      timeline(1, 1, 3, 0, 200,
               {rank_timeline(0, {}, {compute(Phase::forward, 0, 4, 24)}),
                rank_timeline(1, {}, {compute(Phase::forward, 0, 0, 20), compute(Phase::backward, 0, 30, 50)}),
                rank_timeline(2, {}, {compute(Phase::forward, 1, 0, 20)})});
  const auto errors = activity_errors(predicted, measured, same_ranks({0, 1, 2}));
  EXPECT_DOUBLE_EQ(errors.ranks[0].error, 0.02);
  EXPECT_DOUBLE_EQ(errors.ranks[1].start_error, 0.025);
  EXPECT_DOUBLE_EQ(errors.ranks[1].end_error, 0.025);
  EXPECT_EQ(errors.ranks[2].matched, 0);
  EXPECT_EQ(errors.ranks_with_matches, 2);
  EXPECT_DOUBLE_EQ(errors.mean_error, 0.0225);
}

TEST(ActivityError, WithoutPassLabelsBusySpansAreCompared) {
  // The measured side has no labels: compute spans predicted [0, 100] and measured [2, 90], over
  // an iteration of 100 µs: 2 % and 10 %; the mean of the one matched span is 6 %.
  const auto predicted =
      timeline(1, 1, 1, 0, 100,
               {rank_timeline(0, {}, {compute(Phase::forward, 0, 0, 50), compute(Phase::backward, 0, 50, 100)})});
  auto measured =
      timeline(1, 1, 1, 0, 100, {rank_timeline(0, {}, {{ActivityKind::compute, std::nullopt, -1, us(2), us(90)}})});
  measured.pass_labels = false;
  const auto errors = activity_errors(predicted, measured, same_ranks({0}));
  EXPECT_EQ(errors.granularity, ActivityGranularity::busy_spans);
  EXPECT_EQ(errors.ranks[0].matched, 1);
  EXPECT_DOUBLE_EQ(errors.ranks[0].start_error, 0.02);
  EXPECT_DOUBLE_EQ(errors.ranks[0].end_error, 0.10);
  EXPECT_DOUBLE_EQ(errors.ranks[0].error, 0.06);
}

TEST(ActivityError, GenericCollectivesMatchAnyPredictedStream) {
  // A profiler trace says "collective" where distsim says tp_comm: predicted all-reduce of fwd
  // mb 0 at 10-12, measured NCCL kernel at 10-13 on an iteration of 100 µs: 0 % and 1 %.
  const auto predicted =
      timeline(1, 1, 1, 0, 100, {rank_timeline(0, {}, {comm(ActivityKind::tp_comm, Phase::forward, 0, 10, 12)})});
  const auto measured =
      timeline(1, 1, 1, 0, 100, {rank_timeline(0, {}, {comm(ActivityKind::collective, Phase::forward, 0, 10, 13)})});
  const auto errors = activity_errors(predicted, measured, same_ranks({0}));
  EXPECT_EQ(errors.ranks[0].matched, 1);
  EXPECT_DOUBLE_EQ(errors.ranks[0].end_error, 0.01);
}

}  // namespace

}  // namespace distsim::compare
