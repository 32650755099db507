#include <gtest/gtest.h>

#include "catalog/builtin_clusters.hpp"
#include "cost/analytical_cost_model.hpp"

namespace distsim::cost {

namespace {

using events::Collective;
using events::Event;
using events::EventClass;
using events::Operator;

//! An all-reduce of `bytes` over `ranks`, `per_domain` of them in each scale-up domain.
Event all_reduce(std::int64_t bytes, int ranks, int per_domain, bool within_domain) {
  Event event;
  event.event_class = EventClass::collective;
  event.collective = Collective::all_reduce;
  event.op = Operator::all_reduce;
  event.bytes = bytes;
  event.group_size = ranks;
  event.within_domain = within_domain;
  event.ranks_per_domain = per_domain;
  return event;
}

constexpr std::int64_t kBytes = 720'000'000;

}  // namespace

// gb200-nvl72: ring busbw 679.6 GB/s in the rack, NCCL's NVLink hops {0.6, 1.9, 3.4} µs and
// network hops {2.7, 4.0, 14} µs, 4 NICs of 47 GB/s per 4-GPU tray (47 GB/s per GPU).
//
// 72 ranks in one rack: 2·71 = 142 ring steps, none across the network; each rank moves
// 2·71/72 · 720e6 = 1.42e9 B. LL128: 14 + 142·1.9 = 283.8 µs + 1.42e9 / (679.6e9 · 0.92) =
// 2271.157 µs = 2554.957 µs; Simple: 8.4 + 142·3.4 = 491.2 µs + 1.42e9 / 679.6e9 = 2089.464 µs =
// 2580.664 µs; LL128 wins.
TEST(RackScaleCost, AllReduceInsideTheNvl72DomainRunsAtNvlinkSpeed) {
  const AnalyticalCostModel model(catalog::find_cluster("gb200-nvl72"));
  const Event event = all_reduce(kBytes, 72, 72, true);
  EXPECT_EQ(model.communication_estimate(event).protocol, NcclProtocol::ll128);
  EXPECT_EQ(model.cost(event).duration, 2'554'957);
}

// 144 ranks in two racks, 72 in each: NCCL's node is the rack, so 2·143 = 286 steps of which
// 2·(2 − 1) = 2 cross the network, and the 72 members of a rack drive 72 NICs: busbw = min(679.6,
// 72 · 47) = 679.6 GB/s. Each rank moves 2·143/144 · 720e6 = 1.43e9 B. LL128: 14 + 284·1.9 +
// 2·4.0 = 561.6 µs + 1.43e9 / (679.6e9 · 0.92) = 2287.151 µs = 2848.751 µs (Simple: 8.4 + 284·3.4 +
// 2·14 = 1002 µs + 2104.179 µs). coreweave/nccl-tests measured 793 GB/s busbw across two GB200
// racks against 835 GB/s in one (NVLS, which the model leaves out in both).
TEST(RackScaleCost, AllReduceAcrossTwoDomainsCrossesTheNetworkTwice) {
  const AnalyticalCostModel model(catalog::find_cluster("gb200-nvl72"));
  const Event event = all_reduce(kBytes, 144, 72, false);
  EXPECT_EQ(model.communication_estimate(event).protocol, NcclProtocol::ll128);
  EXPECT_EQ(model.cost(event).duration, 2'848'751);
}

// Two members per rack drive two NICs: busbw = 2 · 47 = 94 GB/s, below the rack's 679.6. Four
// ranks in two racks: 6 steps, 2 across the network. Simple: 8.4 + 4·3.4 + 2·14 = 50 µs +
// 2·3/4 · 720e6 / 94e9 = 11489.362 µs = 11539.362 µs.
TEST(RackScaleCost, FewMembersPerDomainAreBoundByTheirOwnNics) {
  const AnalyticalCostModel model(catalog::find_cluster("gb200-nvl72"));
  const Event event = all_reduce(kBytes, 4, 2, false);
  EXPECT_EQ(model.communication_estimate(event).protocol, NcclProtocol::simple);
  EXPECT_EQ(model.cost(event).duration, 11'539'362);
}

}  // namespace distsim::cost
