#include "compare/order_labels.hpp"

#include <gtest/gtest.h>

#include "timeline_builders.hpp"

namespace distsim::compare {

namespace {

using events::Phase;

Activity by_order(Phase phase, int order, double start_us, double end_us) {
  Activity activity = compute(phase, order, start_us, end_us);
  activity.microbatch_by_order = true;
  return activity;
}

}  // namespace

TEST(OrderLabels, PassesNumberedByOrderTakeThePredictedSchedulesNumbers) {
  // An interleaved schedule with two model chunks runs forward mb 0, 1 on chunk 0, then mb 0, 1
  // on chunk 1. The measured rank's 4 forward passes, numbered 0-3 by their order, become 0, 1,
  // 0, 1; its one backward pass, whose trace numbered it 7, keeps that.
  const auto predicted =
      timeline(1, 2, 1, 0, 50,
               {rank_timeline(0, {},
                              {compute(Phase::forward, 0, 0, 10), compute(Phase::forward, 1, 10, 20),
                               compute(Phase::forward, 0, 20, 30), compute(Phase::forward, 1, 30, 40),
                               compute(Phase::backward, 0, 40, 50)})});
  auto measured = timeline(1, 2, 1, 0, 50,
                           {rank_timeline(0, {},
                                          {by_order(Phase::forward, 0, 1, 10), by_order(Phase::forward, 1, 11, 20),
                                           by_order(Phase::forward, 2, 21, 30), by_order(Phase::forward, 3, 31, 40),
                                           compute(Phase::backward, 7, 41, 50)})});
  measured.microbatches_by_order = true;
  const auto numbered = relabel_by_predicted_order(predicted, measured, same_ranks({0}));
  const auto& activities = numbered.ranks[0].activities;
  EXPECT_EQ(activities[0].microbatch, 0);
  EXPECT_EQ(activities[1].microbatch, 1);
  EXPECT_EQ(activities[2].microbatch, 0);
  EXPECT_EQ(activities[3].microbatch, 1);
  EXPECT_EQ(activities[4].microbatch, 7);
}

TEST(OrderLabels, AnotherCountOfPassesKeepsTheOrder) {
  // Three measured forward passes against two predicted: the order stands.
  const auto predicted = timeline(
      1, 1, 1, 0, 20, {rank_timeline(0, {}, {compute(Phase::forward, 1, 0, 10), compute(Phase::forward, 0, 10, 20)})});
  auto measured = timeline(1, 1, 1, 0, 20,
                           {rank_timeline(0, {},
                                          {by_order(Phase::forward, 0, 0, 5), by_order(Phase::forward, 1, 5, 10),
                                           by_order(Phase::forward, 2, 10, 20)})});
  measured.microbatches_by_order = true;
  const auto numbered = relabel_by_predicted_order(predicted, measured, same_ranks({0}));
  EXPECT_EQ(numbered.ranks[0].activities[0].microbatch, 0);
  EXPECT_EQ(numbered.ranks[0].activities[2].microbatch, 2);
  // A timeline numbered by its trace is left as it is, whatever the prediction's order.
  measured.microbatches_by_order = false;
  measured.ranks[0].activities.resize(2);
  const auto kept = relabel_by_predicted_order(predicted, measured, same_ranks({0}));
  EXPECT_EQ(kept.ranks[0].activities[0].microbatch, 0);
}

}  // namespace distsim::compare
