#include "cost/ring_volume.hpp"

#include <gtest/gtest.h>

namespace distsim::cost {

// A ring all-reduce is a reduce-scatter then an all-gather: each rank sends (N-1)/N of the
// message in each half.
TEST(RingVolume, CountsTheMessagesEachRankSends) {
  EXPECT_DOUBLE_EQ(ring_volume(events::Collective::all_reduce, 8), 2.0 * 7 / 8);
  EXPECT_DOUBLE_EQ(ring_volume(events::Collective::all_gather, 4), 3.0 / 4);
  EXPECT_DOUBLE_EQ(ring_volume(events::Collective::reduce_scatter, 2), 1.0 / 2);
}

}  // namespace distsim::cost
