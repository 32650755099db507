#include <gtest/gtest.h>

#include "cost/analytical_cost_model.hpp"

namespace distsim::cost {

namespace {

using events::Collective;
using events::Event;
using events::EventClass;
using events::Operator;

//! Round figures: a 100 GB/s ring and 50 GB/s send/recv inside a domain, `nics` NICs of 10 GB/s
//! per host of `gpus_per_host` GPUs.
cluster::ClusterSpec cluster_with(cluster::Fabric fabric, const std::string& link_name, double hop_us, int nics = 8,
                                  int gpus_per_host = 8) {
  cluster::ClusterSpec cluster;
  cluster.name = "round";
  cluster.gpu.name = "round-gpu";
  cluster.gpu.peak_bf16_tflops = 100;
  cluster.gpu.memory_bandwidth_gbps = 1000;
  cluster.gpu.sm_count = 64;
  cluster.gpu.gemm_efficiency = 0.5;
  cluster.gpu.memory_efficiency = 0.5;
  cluster.num_hosts = 2;
  cluster.gpus_per_host = gpus_per_host;
  cluster.intra_node = {link_name, 100, 50, hop_us, fabric};
  cluster.inter_node = {"NICs", nics, 10, 14.0};
  return cluster;
}

Event all_reduce_in_domain(std::int64_t bytes, int ranks) {
  Event event;
  event.event_class = EventClass::collective;
  event.collective = Collective::all_reduce;
  event.op = Operator::all_reduce;
  event.bytes = bytes;
  event.group_size = ranks;
  event.within_domain = true;
  event.ranks_per_domain = ranks;
  return event;
}

Event send_across_network(std::int64_t bytes) {
  Event event;
  event.event_class = EventClass::point_to_point;
  event.collective = Collective::send_recv;
  event.op = Operator::send_recv;
  event.bytes = bytes;
  event.group_size = 2;
  event.within_domain = false;
  event.ranks_per_domain = 1;
  return event;
}

}  // namespace

// An 8-rank all-reduce of 7e6 B moves 2·7/8 · 7e6 = 12.25e6 B per rank. With a 5.7 µs Simple hop
// over NVLink, NCCL's NVLink hops scale by 5.7/3.4: LL128 14 + 14·(1.9·5.7/3.4) = 58.594 µs plus
// 12.25e6 / (100e9 · 0.92) = 133.152 µs, 191.746 µs, beats Simple 8.4 + 14·5.7 = 88.2 + 122.5 µs.
// The link's name says PCIe, but the fabric field decides.
TEST(TopologyCost, TheFabricFieldNotTheLinkNameDecidesTheProtocols) {
  const AnalyticalCostModel model(cluster_with(cluster::Fabric::nvlink_switch, "PCIe-looking name", 5.7));
  const Event event = all_reduce_in_domain(7'000'000, 8);
  EXPECT_EQ(model.communication_estimate(event).protocol, NcclProtocol::ll128);
  EXPECT_EQ(model.cost(event).duration, 191'746);
}

// Over PCIe NCCL has no LL128 and PCI hops {1.0, 2.5, 5.7}: Simple 88.2 + 122.5 = 210.7 µs beats
// LL 6.6 + 14 + 245 µs, whatever the link is called.
TEST(TopologyCost, APcieFabricHasNoLl128) {
  const AnalyticalCostModel model(cluster_with(cluster::Fabric::pcie, "NVSwitch", 5.7));
  const Event event = all_reduce_in_domain(7'000'000, 8);
  EXPECT_EQ(model.communication_estimate(event).protocol, NcclProtocol::simple);
  EXPECT_EQ(model.cost(event).duration, 210'700);
}

// A GPU's NIC share is the host's NICs over its GPUs. 1e6 B across the network with Simple:
// 8.4 + 14 µs of latency plus 1e6 B over the share. One 10 GB/s NIC for 4 GPUs: 2.5 GB/s, 400 µs,
// 422.4 µs in all; four NICs: 10 GB/s, 122.4 µs; one NIC for 8 GPUs: 1.25 GB/s, 822.4 µs.
TEST(TopologyCost, NicShareFollowsHostsAndNics) {
  const Event send = send_across_network(1'000'000);
  EXPECT_EQ(AnalyticalCostModel(cluster_with(cluster::Fabric::nvlink_switch, "NVLink", 3.4, 1, 4)).cost(send).duration,
            422'400);
  EXPECT_EQ(AnalyticalCostModel(cluster_with(cluster::Fabric::nvlink_switch, "NVLink", 3.4, 4, 4)).cost(send).duration,
            122'400);
  EXPECT_EQ(AnalyticalCostModel(cluster_with(cluster::Fabric::nvlink_switch, "NVLink", 3.4, 1, 8)).cost(send).duration,
            822'400);
}

}  // namespace distsim::cost
