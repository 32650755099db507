#include "catalog/builtin_clusters.hpp"

#include <gtest/gtest.h>

#include "catalog/builtin_gpus.hpp"
#include "core/input_error.hpp"

namespace distsim::catalog {

namespace {

std::string error_of(std::string_view name) {
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
    EXPECT_EQ(cluster.num_nodes, 1);
    EXPECT_GT(cluster.gpus_per_node, 0);
    EXPECT_FALSE(cluster.intra_node.name.empty());
    EXPECT_GT(cluster.intra_node.collective_busbw_gbps, 0);
    EXPECT_GT(cluster.intra_node.p2p_gbps, 0);
    EXPECT_GT(cluster.intra_node.latency_us, 0);
    EXPECT_FALSE(cluster.inter_node.name.empty());
    EXPECT_GT(cluster.inter_node.nics_per_node, 0);
    EXPECT_GT(cluster.inter_node.nic_busbw_gbps, 0);
    EXPECT_GT(cluster.inter_node.latency_us, 0);
    EXPECT_EQ(cluster.gpu.memory_gb, find_gpu(cluster.gpu.name).memory_gb);
  }
}

// hardware.md §4.2: DGX A100 reaches 8 × 24 = 192 GB/s across nodes, below its 234.9 GB/s NVLink ring.
TEST(BuiltinClusters, DgxA100MatchesTheMeasuredFigures) {
  const auto& dgx = find_cluster("dgx-a100");
  EXPECT_EQ(dgx.gpu.name, "a100-80gb");
  EXPECT_EQ(dgx.total_gpus(), 8);
  EXPECT_DOUBLE_EQ(dgx.intra_node.collective_busbw_gbps, 234.9);
  EXPECT_DOUBLE_EQ(dgx.intra_node.p2p_gbps, 195.1);
  EXPECT_DOUBLE_EQ(dgx.inter_node.nics_per_node * dgx.inter_node.nic_busbw_gbps, 192.0);
}

TEST(BuiltinClusters, PcieNodesHoldFourGpusAsInTheDistSimPaper) {
  EXPECT_EQ(find_cluster("pcie-a10").gpus_per_node, 4);
  EXPECT_EQ(find_cluster("pcie-a10").gpu.name, "a10");
  EXPECT_EQ(find_cluster("pcie-a40").gpu.name, "a40");
}

TEST(FindCluster, SuggestsTheClosestName) {
  EXPECT_EQ(error_of("dgx-h10"),
            "unknown cluster 'dgx-h10'; did you mean 'dgx-h100'? (known: dgx-a100, dgx-h100, dgx-h200, dgx-b200, "
            "pcie-a40, pcie-a10)");
}

}  // namespace distsim::catalog
