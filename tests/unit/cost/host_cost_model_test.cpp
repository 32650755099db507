#include "cost/host_cost_model.hpp"

#include <gtest/gtest.h>

#include "catalog/host_cpus.hpp"
#include "events/event_factory.hpp"

namespace distsim::cost {

namespace {

using events::Operator;

const events::EventFactory kFactory(Dtype::bf16);

events::Event all_reduce() {
  events::Event event;
  event.event_class = events::EventClass::collective;
  event.op = Operator::all_reduce;
  event.collective = events::Collective::all_reduce;
  event.bytes = 1 << 20;
  event.group_size = 8;
  return event;
}

}  // namespace

// By hand from the figures of host_cost_model.cpp: one eager operation 13.48 us = 13480 ns; a
// TransformerEngine module 99.66 / 37.08 = 2.687702 of them, 36230.2 ns; a grouped GEMM of 16
// experts 2.687702 + 16 = 18.687702 operations, 251910.2 ns; the router 72 kernels less its gating
// GEMM, 71 x 13480 = 957080 ns, fused 30 x 13480 = 404400 ns; an elementwise kernel and a
// collective one operation each.
TEST(HostCostModel, PricesEachEventAsEagerOperations) {
  const HostCostModel eager = HostCostModel::eager(catalog::find_host_cpu("xeon-platinum-8480c"));
  EXPECT_EQ(eager.host_time(kFactory.gemm(4096, 4096, 4096)), 36230);
  EXPECT_EQ(eager.host_time(kFactory.attention(false, 1, 32, 8, 4096, 4096, 128, true)), 36230);
  EXPECT_EQ(eager.host_time(kFactory.grouped_gemm(16, 512, 2048, 4096, std::nullopt)), 251910);
  EXPECT_EQ(eager.host_time(kFactory.moe_router(false, 4096, 128, 8)), 957080);
  EXPECT_EQ(eager.host_time(kFactory.moe_router(true, 4096, 128, 8)), 957080);
  EXPECT_EQ(HostCostModel::eager(catalog::find_host_cpu("xeon-platinum-8480c"), true)
                .host_time(kFactory.moe_router(false, 4096, 128, 8)),
            404400);
  EXPECT_EQ(eager.host_time(kFactory.elementwise(Operator::swiglu, 4096, 14336, 2, 1)), 13480);
  EXPECT_EQ(eager.host_time(all_reduce()), 13480);
}

// On a GB200's Grace the same calls take 37.08 us a torch operation and 99.66 us a TE module
// (TransformerEngine #2053): 37080 and 2.687702 x 37080 = 99660 ns.
TEST(HostCostModel, GraceTakesItsOwnMeasuredTimes) {
  const HostCostModel grace = HostCostModel::eager(catalog::find_host_cpu("grace"));
  EXPECT_EQ(grace.host_time(kFactory.elementwise(Operator::swiglu, 4096, 14336, 2, 1)), 37080);
  EXPECT_EQ(grace.host_time(kFactory.gemm(4096, 4096, 4096)), 99660);
}

// The default model is the DistSim paper's: the host issues everything for free.
TEST(HostCostModel, NoneIssuesForFree) {
  const HostCostModel none;
  EXPECT_FALSE(none.modelled());
  EXPECT_EQ(none.host_time(kFactory.gemm(4096, 4096, 4096)), 0);
  EXPECT_EQ(none.host_time(all_reduce()), 0);
}

}  // namespace distsim::cost
