#include "profile/profile_cost_model.hpp"

#include <gtest/gtest.h>

#include "core/input_error.hpp"
#include "events/event_key.hpp"
#include "profile_test_support.hpp"

namespace distsim::profile {

namespace {

using testing::record;

std::optional<cost::Cost> cost_of(const ProfileCostModel& model, const std::string& key) {
  return model.try_cost(events::parse_event_key(key));
}

}  // namespace

TEST(ProfileCostModel, PricesAMeasuredKeyByItsMedian) {
  const ProfileCostModel model({record("gemm m=1 n=2 k=3 bf16", 10.5), record("layernorm rows=2 cols=4 bf16", 0.0004)});
  const auto gemm = cost_of(model, "gemm m=1 n=2 k=3 bf16");
  ASSERT_TRUE(gemm);
  EXPECT_EQ(gemm->duration, 10500);  // 10.5 µs = 10 500 ns
  EXPECT_EQ(gemm->source, cost::CostSource::profiled);
  EXPECT_EQ(cost_of(model, "layernorm rows=2 cols=4 bf16")->duration, 0);  // 0.4 ns rounds to 0
  EXPECT_FALSE(cost_of(model, "gemm m=1 n=2 k=4 bf16"));
  EXPECT_FALSE(cost_of(model, "gemm m=1 n=2 k=3 fp16"));
}

// All-reduce over 8 GPUs measured at 1 ms; over 16 GPUs the ring moves 2·15/16 = 1.875 message
// sizes per rank instead of 2·7/8 = 1.75, so 1 ms · 1.875 / 1.75 = 1.0714285714 ms = 1 071 429 ns.
TEST(ProfileCostModel, ExtrapolatesAnAllReduceByTheRingVolume) {
  const ProfileCostModel model({record("all_reduce bytes=1048576 group=8 inter per_node=4", 1000)});
  const auto cost = cost_of(model, "all_reduce bytes=1048576 group=16 inter per_node=4");
  ASSERT_TRUE(cost);
  EXPECT_EQ(cost->duration, 1071429);
  EXPECT_EQ(cost->source, cost::CostSource::extrapolated);
}

// All-gather measured at 300 µs over 4 GPUs: (N-1)/N goes from 3/4 to 31/32 at 32 GPUs, so
// 300 µs · (31/32) / (3/4) = 300 · 1.2916666 = 387.5 µs = 387 500 ns.
TEST(ProfileCostModel, ExtrapolatesAllGatherAndReduceScatterByTheirVolume) {
  const ProfileCostModel model({record("all_gather bytes=4096 group=4 inter per_node=1", 300),
                                record("reduce_scatter bytes=4096 group=4 inter per_node=1", 300)});
  EXPECT_EQ(cost_of(model, "all_gather bytes=4096 group=32 inter per_node=1")->duration, 387500);
  EXPECT_EQ(cost_of(model, "reduce_scatter bytes=4096 group=32 inter per_node=1")->duration, 387500);
}

// Measured at 2, 4 and 8 ranks; 16 scales the 8-rank time (the largest below 16): 80 µs ·
// (2·15/16) / (2·7/8) = 80 · 1.875 / 1.75 = 85.714286 µs → 85 714 ns.
TEST(ProfileCostModel, ScalesFromTheLargestSmallerMeasuredGroup) {
  const ProfileCostModel model({record("all_reduce bytes=64 group=2 intra", 10), record("all_reduce bytes=64 group=4 intra", 30),
                                record("all_reduce bytes=64 group=8 intra", 80)});
  EXPECT_EQ(cost_of(model, "all_reduce bytes=64 group=16 intra")->duration, 85714);
}

TEST(ProfileCostModel, ExtrapolatesOnlyTheSameMessageUpwards) {
  const ProfileCostModel model({record("all_reduce bytes=64 group=8 inter per_node=4", 80),
                                record("send_recv bytes=64 group=2 inter per_node=1", 5)});
  EXPECT_FALSE(cost_of(model, "all_reduce bytes=64 group=4 inter per_node=4"));    // smaller group
  EXPECT_FALSE(cost_of(model, "all_reduce bytes=128 group=16 inter per_node=4"));  // other size
  EXPECT_FALSE(cost_of(model, "all_reduce bytes=64 group=16 intra"));              // other scope
  EXPECT_FALSE(cost_of(model, "all_reduce bytes=64 group=16 inter per_node=8"));   // other NIC share
  EXPECT_FALSE(cost_of(model, "all_gather bytes=64 group=16 inter per_node=4"));   // other collective
  EXPECT_TRUE(cost_of(model, "all_reduce bytes=64 group=16 inter per_node=4"));
}

TEST(ProfileCostModel, RefusesAStoredKeyThatDoesNotParse) {
  try {
    ProfileCostModel model({record("gemn m=1 n=2 k=3 bf16", 1)});
    FAIL() << "expected an error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("stored measurement 'gemn m=1 n=2 k=3 bf16' for hardware 'a40': unknown "
                                          "operator 'gemn'; did you mean 'gemm'?",
                                          0),
              0u);
  }
}

}  // namespace distsim::profile
