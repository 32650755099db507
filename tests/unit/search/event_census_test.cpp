#include "search/event_census.hpp"

#include <gtest/gtest.h>

#include "core/input_error.hpp"

namespace distsim::search {

namespace {

using cost::Cost;
using cost::CostSource;

events::Event gemm() {
  events::Event event;
  event.event_class = events::EventClass::gemm;
  event.op = events::Operator::gemm;
  event.dims = {{"m", 8}, {"n", 8}, {"k", 8}};
  return event;
}

events::Event collective(int group, bool intra, int per_node) {
  events::Event event;
  event.event_class = events::EventClass::collective;
  event.op = events::Operator::all_reduce;
  event.collective = events::Collective::all_reduce;
  event.bytes = 1024;
  event.group_size = group;
  event.within_domain = intra;
  event.ranks_per_domain = per_node;
  return event;
}

events::Event transfer() {
  events::Event event = collective(2, false, 1);
  event.event_class = events::EventClass::point_to_point;
  event.op = events::Operator::send_recv;
  event.collective = events::Collective::send_recv;
  return event;
}

Cost microseconds(double us, CostSource source = CostSource::analytical) {
  return {static_cast<SimTime>(us * 1e3), source};
}

//! Job A (2 devices, 1 s an iteration): the GEMM (4 tasks, 1 ms, already profiled) and an
//! intra-node all-reduce of 2 (2 tasks, 2 ms).
//! Job B (4 devices, 0.5 s): the same GEMM (8 tasks, priced 5 ms here), a transfer (2 tasks,
//! 0.5 ms), and the same 1 KiB all-reduce over 8 and 16 ranks, one per node (8 and 16 tasks,
//! 3.5 ms and 3.75 ms).
EventCensus two_jobs() {
  EventCensus census;
  events::EventTable a;
  const auto a_gemm = a.intern(gemm());
  a.add_instances(a_gemm, 4);
  a.add_instances(a.intern(collective(2, true, 2)), 2);
  census.add_job({"A", 2, 1.0}, a, {microseconds(1000, CostSource::profiled), microseconds(2000)});
  events::EventTable b;
  b.add_instances(b.intern(gemm()), 8);
  b.add_instances(b.intern(transfer()), 2);
  b.add_instances(b.intern(collective(8, false, 1)), 8);
  b.add_instances(b.intern(collective(16, false, 1)), 16);
  census.add_job({"B", 4, 0.5}, b, {microseconds(5000), microseconds(500), microseconds(3500), microseconds(3750)});
  return census;
}

TEST(EventCensus, MergesEventsAcrossJobsByKey) {
  const EventCensus census = two_jobs();
  ASSERT_EQ(census.jobs().size(), 2U);
  EXPECT_EQ(census.jobs()[0].unique, 2);
  EXPECT_EQ(census.jobs()[0].instances, 6);  // 4 + 2
  EXPECT_EQ(census.jobs()[1].unique, 4);
  EXPECT_EQ(census.jobs()[1].instances, 34);  // 8 + 2 + 8 + 16
  EXPECT_DOUBLE_EQ(census.jobs()[1].dedup_ratio(), 34.0 / 4.0);
  // The GEMM is shared: 5 unique events, not 2 + 4.
  ASSERT_EQ(census.events().size(), 5U);
  EXPECT_EQ(census.sum_of_job_unique(), 6);
  EXPECT_EQ(census.total_instances(), 40);
  EXPECT_DOUBLE_EQ(census.dedup_ratio(), 40.0 / 5.0);
  const CensusEvent& shared = census.events()[0];
  EXPECT_EQ(shared.event.key(), gemm().key());
  EXPECT_EQ(shared.jobs, 2);
  EXPECT_EQ(shared.instances, 12);  // 4 in A + 8 in B
  // Priced by the first job that has it.
  EXPECT_EQ(shared.cost.duration, 1'000'000);
  EXPECT_EQ(shared.cost.source, CostSource::profiled);
  EXPECT_EQ(census.events()[1].jobs, 1);
}

TEST(EventCensus, CapsCollectivesAtTheProfilersNodes) {
  const ProfilingCostOptions options;  // two nodes
  // 8 ranks one per node span 8 nodes: measured on 2 ranks of 2 nodes.
  const events::Event big = measured_form(collective(8, false, 1), options);
  EXPECT_EQ(big.group_size, 2);
  EXPECT_EQ(big.key(), "all_reduce bytes=1024 group=2 inter per_node=1");
  // 8 ranks four per node span 2 nodes: measured as they are.
  EXPECT_EQ(measured_form(collective(8, false, 4), options).group_size, 8);
  EXPECT_EQ(measured_form(collective(8, true, 8), options).group_size, 8);
  EXPECT_EQ(profiling_devices(gemm()), 1);
  EXPECT_EQ(profiling_devices(transfer()), 2);
  EXPECT_EQ(profiling_devices(collective(8, true, 8)), 8);
}

TEST(EventCensus, ProfilingCostIsRunsTimesDurationTimesDevices) {
  // 3 + 20 = 23 runs per measured event:
  //   GEMM 23 x 1 ms x 1 = 0.023; all-reduce of 2: 23 x 2 ms x 2 = 0.092; transfer 23 x 0.5 ms x 2
  //   = 0.023; all-reduce over 8 measured over 2: ring volume 2(N-1)/N is 1.75 for 8 and 1 for 2, so
  //   3.5 ms / 1.75 = 2 ms, 23 x 2 ms x 2 = 0.092; over 16 (1.875): 3.75 / 1.875 = 2 ms, the same
  //   measurement, counted once. Total 0.230 device-seconds over 4 measured events.
  // Direct, 23 iterations: A 1 s x 2 x 23 = 46, B 0.5 s x 4 x 23 = 46, total 92.
  const ProfilingCost cost = estimate_profiling_cost(two_jobs(), ProfilingCostOptions{});
  EXPECT_EQ(cost.measured_events, 4);
  EXPECT_NEAR(cost.profile_device_seconds, 0.230, 1e-9);
  EXPECT_NEAR(cost.direct_device_seconds, 92.0, 1e-9);
  EXPECT_NEAR(cost.ratio(), 0.230 / 92.0, 1e-12);
}

TEST(EventCensus, SkipsProfiledEventsAndTakesTheIterationCount) {
  ProfilingCostOptions options;
  options.skip_profiled = true;    // the GEMM: 0.230 - 0.023 = 0.207
  options.direct_iterations = 10;  // (1 x 2 + 0.5 x 4) x 10 = 40
  options.warmup = 0;
  options.repeats = 23;  // still 23 runs per event
  const ProfilingCost cost = estimate_profiling_cost(two_jobs(), options);
  EXPECT_EQ(cost.measured_events, 3);
  EXPECT_NEAR(cost.profile_device_seconds, 0.207, 1e-9);
  EXPECT_NEAR(cost.direct_device_seconds, 40.0, 1e-9);
}

TEST(EventCensus, RefusesCostsThatDoNotMatchTheEvents) {
  EventCensus census;
  events::EventTable table;
  table.intern(gemm());
  EXPECT_THROW(census.add_job({"A", 1, 1.0}, table, {}), InternalError);
}

}  // namespace

}  // namespace distsim::search
