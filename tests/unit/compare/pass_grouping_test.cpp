#include "compare/pass_grouping.hpp"

#include <gtest/gtest.h>

#include "timeline_builders.hpp"

namespace distsim::compare {

namespace {

using events::Phase;

TEST(PassGrouping, ConsecutivePiecesOfAPassBecomeOnePass) {
  // Forward of mb 0 cut by a TP all-reduce into 0-4 and 6-10 µs on the compute stream, then
  // forward of mb 1 at 10-20: two passes, [0, 10] and [10, 20]; the all-reduce (4-6) is its own.
  const std::vector<Activity> activities{compute(Phase::forward, 0, 0, 4),
                                         comm(ActivityKind::tp_comm, Phase::forward, 0, 4, 6),
                                         compute(Phase::forward, 0, 6, 10), compute(Phase::forward, 1, 10, 20)};
  const auto passes = group_passes(activities, 0, CommunicationDetail::streams);
  ASSERT_EQ(passes.size(), 3u);
  EXPECT_EQ(passes[0].key, (PassKey{ActivityKind::compute, Phase::forward, 0, 0}));
  EXPECT_EQ(passes[0].start, us(0));
  EXPECT_EQ(passes[0].end, us(10));
  EXPECT_EQ(passes[1].key, (PassKey{ActivityKind::compute, Phase::forward, 1, 0}));
  EXPECT_EQ(passes[2].key, (PassKey{ActivityKind::tp_comm, Phase::forward, 0, 0}));
  EXPECT_EQ(passes[2].start, us(4));
  EXPECT_EQ(passes[2].end, us(6));
}

TEST(PassGrouping, RepeatedPassesGetOrdinals) {
  // Interleaved 1F1B runs forward of mb 0 once per model chunk: 0-5 (chunk 0), then mb 1 at
  // 5-10, then mb 0 again at 10-15 (chunk 1): ordinals 0 and 1 for mb 0. Listed out of order on
  // purpose: grouping sorts by start. Times shift by the 2 µs origin.
  const std::vector<Activity> activities{compute(Phase::forward, 0, 10, 15), compute(Phase::forward, 0, 0, 5),
                                         compute(Phase::forward, 1, 5, 10)};
  const auto passes = group_passes(activities, us(2), CommunicationDetail::streams);
  ASSERT_EQ(passes.size(), 3u);
  EXPECT_EQ(passes[0].key, (PassKey{ActivityKind::compute, Phase::forward, 0, 0}));
  EXPECT_EQ(passes[0].start, us(-2));
  EXPECT_EQ(passes[1].key, (PassKey{ActivityKind::compute, Phase::forward, 0, 1}));
  EXPECT_EQ(passes[1].start, us(8));
  EXPECT_EQ(passes[1].end, us(13));
  EXPECT_EQ(passes[2].key, (PassKey{ActivityKind::compute, Phase::forward, 1, 0}));
}

TEST(PassGrouping, GenericCommunicationMergesTheStreams) {
  // A send on pp_send_next (fwd mb 0, 10-12) and a TP all-reduce of the same pass (4-6) count as
  // one kind, collective: in start order they are a run of (fwd, 0), so one pass [4, 12].
  const std::vector<Activity> activities{comm(ActivityKind::pp_send_next, Phase::forward, 0, 10, 12),
                                         comm(ActivityKind::tp_comm, Phase::forward, 0, 4, 6)};
  const auto passes = group_passes(activities, 0, CommunicationDetail::none);
  ASSERT_EQ(passes.size(), 1u);
  EXPECT_EQ(passes[0].key, (PassKey{ActivityKind::collective, Phase::forward, 0, 0}));
  EXPECT_EQ(passes[0].start, us(4));
  EXPECT_EQ(passes[0].end, us(12));
}

TEST(PassGrouping, GroupDetailMergesTheDataParallelStreamsOnly) {
  // An FSDP reduce-scatter (dp_reduce, bwd mb 0, 2-4) and an HSDP all-reduce (dp_replica, 5-7) are
  // dp_comm at group detail, one run [2, 7]; the TP all-reduce (1-2) keeps its kind.
  const std::vector<Activity> activities{comm(ActivityKind::dp_reduce, Phase::backward, 0, 2, 4),
                                         comm(ActivityKind::dp_replica, Phase::backward, 0, 5, 7),
                                         comm(ActivityKind::tp_comm, Phase::backward, 0, 1, 2)};
  const auto passes = group_passes(activities, 0, CommunicationDetail::groups);
  ASSERT_EQ(passes.size(), 2u);
  EXPECT_EQ(passes[0].key, (PassKey{ActivityKind::tp_comm, Phase::backward, 0, 0}));
  EXPECT_EQ(passes[1].key, (PassKey{ActivityKind::dp_comm, Phase::backward, 0, 0}));
  EXPECT_EQ(passes[1].start, us(2));
  EXPECT_EQ(passes[1].end, us(7));
}

TEST(PassGrouping, BusySpansCoverEachClassOfWork) {
  // Compute at 0-4 and 20-30, communication at 5-6 and 8-12: spans [0, 30] and [5, 12].
  const std::vector<Activity> activities{compute(Phase::forward, 0, 20, 30), compute(Phase::forward, 0, 0, 4),
                                         comm(ActivityKind::dp_comm, Phase::backward, -1, 8, 12),
                                         comm(ActivityKind::collective, Phase::backward, -1, 5, 6)};
  const auto spans = group_busy_spans(activities, 0);
  ASSERT_EQ(spans.size(), 2u);
  EXPECT_EQ(spans[0].key, (PassKey{ActivityKind::compute, std::nullopt, -1, 0}));
  EXPECT_EQ(spans[0].start, us(0));
  EXPECT_EQ(spans[0].end, us(30));
  EXPECT_EQ(spans[1].key, (PassKey{ActivityKind::collective, std::nullopt, -1, 0}));
  EXPECT_EQ(spans[1].start, us(5));
  EXPECT_EQ(spans[1].end, us(12));
}

}  // namespace

}  // namespace distsim::compare
