#include "catalog/builtin_clusters.hpp"

#include <gtest/gtest.h>

#include "catalog/builtin_gpus.hpp"
#include "core/input_error.hpp"

namespace distsim::catalog {

namespace {

std::string cluster_error(std::string_view name) {
  try {
    find_cluster(name);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(BuiltinClusters, EveryNodeDesignHasPositiveLinksAndABuiltinGpu) {
  for (const auto& cluster : builtin_clusters()) {
    SCOPED_TRACE(cluster.name);
    EXPECT_FALSE(cluster.description.empty());
    EXPECT_FALSE(cluster.source.empty());
    EXPECT_EQ(cluster.num_hosts, cluster.hosts_per_domain);  // one scale-up domain: a DGX host or a rack
    EXPECT_GT(cluster.gpus_per_host, 0);
    EXPECT_FALSE(cluster.intra_node.name.empty());
    EXPECT_GT(cluster.intra_node.collective_busbw_gbps, 0);
    EXPECT_GT(cluster.intra_node.p2p_gbps, 0);
    EXPECT_GT(cluster.intra_node.latency_us, 0);
    EXPECT_FALSE(cluster.inter_node.name.empty());
    EXPECT_GT(cluster.inter_node.nics_per_host, 0);
    EXPECT_GT(cluster.inter_node.nic_busbw_gbps, 0);
    EXPECT_GT(cluster.inter_node.latency_us, 0);
    EXPECT_EQ(cluster.gpu.memory_gb, find_gpu(cluster.gpu.name).memory_gb);
  }
}

// docs/reference/hardware.md §4.2: DGX A100 reaches 8 × 24 = 192 GB/s across nodes, below its 234.9 GB/s NVLink ring.
TEST(BuiltinClusters, DgxA100MatchesTheMeasuredFigures) {
  const auto& dgx = find_cluster("dgx-a100");
  EXPECT_EQ(dgx.gpu.name, "a100-80gb");
  EXPECT_EQ(dgx.total_gpus(), 8);
  EXPECT_DOUBLE_EQ(dgx.intra_node.collective_busbw_gbps, 234.9);
  EXPECT_DOUBLE_EQ(dgx.intra_node.p2p_gbps, 195.1);
  EXPECT_DOUBLE_EQ(dgx.inter_node.nics_per_host * dgx.inter_node.nic_busbw_gbps, 192.0);
}

// docs/reference/hardware.md §2: 16 V100 SXM3 on one NVSwitch plane and 8 EDR NICs. Links derived there being
// no V100 nccl-tests data (§7 item 7): NCCL's SM70_NVLINK_BW 20 GB/s x 6 links = 120 GB/s ring,
// 150 GB/s per direction x 195.1/300 = 97.55 GB/s send/recv, 8 x 12.5 x 0.92 = 92 GB/s of NICs.
TEST(BuiltinClusters, Dgx2hHoldsSixteenV100sOnNvswitch) {
  const auto& dgx = find_cluster("dgx-2h");
  EXPECT_EQ(dgx.gpu.name, "v100-sxm3");
  EXPECT_EQ(dgx.total_gpus(), 16);
  EXPECT_DOUBLE_EQ(dgx.intra_node.collective_busbw_gbps, 120.0);
  EXPECT_NEAR(dgx.intra_node.p2p_gbps, 97.55, 1e-9);
  EXPECT_EQ(dgx.inter_node.nics_per_host, 8);
  EXPECT_NEAR(dgx.inter_node.nics_per_host * dgx.inter_node.nic_busbw_gbps, 92.0, 1e-9);
}

TEST(BuiltinClusters, PcieNodesHoldFourGpusAsInTheDistSimPaper) {
  EXPECT_EQ(find_cluster("pcie-a10").gpus_per_host, 4);
  EXPECT_EQ(find_cluster("pcie-a10").gpu.name, "a10");
  EXPECT_EQ(find_cluster("pcie-a40").gpu.name, "a40");
}

// An NVL72 rack: 18 trays of 4 GPUs in one 72-GPU NVLink domain, one NIC per GPU: ConnectX-7 at
// 47 GB/s (nccl-tests#290) on GB200, ConnectX-8 at 100 × 47/50 = 94 GB/s on GB300 and DGX B300.
TEST(BuiltinClusters, Nvl72RacksAreOneDomainOfEighteenFourGpuTrays) {
  for (const char* name : {"gb200-nvl72", "gb300-nvl72"}) {
    SCOPED_TRACE(name);
    const auto& rack = find_cluster(name);
    EXPECT_EQ(rack.gpus_per_host, 4);
    EXPECT_EQ(rack.hosts_per_domain, 18);
    EXPECT_EQ(rack.gpus_per_domain(), 72);
    EXPECT_EQ(rack.inter_node.nics_per_host, 4);
    EXPECT_DOUBLE_EQ(rack.intra_node.collective_busbw_gbps, 679.6);
  }
  EXPECT_EQ(find_cluster("gb200-nvl72").gpu.name, "gb200");
  EXPECT_DOUBLE_EQ(find_cluster("gb200-nvl72").inter_node.nic_busbw_gbps, 47.0);
  EXPECT_DOUBLE_EQ(find_cluster("gb300-nvl72").inter_node.nic_busbw_gbps, 94.0);
  EXPECT_EQ(find_cluster("dgx-b300").gpus_per_domain(), 8);
  EXPECT_DOUBLE_EQ(find_cluster("dgx-b300").inter_node.nic_busbw_gbps, 94.0);
}

TEST(FindCluster, SuggestsTheClosestName) {
  EXPECT_EQ(cluster_error("dgx-h10"),
            "unknown cluster 'dgx-h10'; did you mean 'dgx-h100'? (known: dgx-2h, dgx-a100, dgx-h100, dgx-h200, "
            "dgx-b200, dgx-b300, gb200-nvl72, gb300-nvl72, pcie-a40, pcie-a10)");
}

}  // namespace distsim::catalog
