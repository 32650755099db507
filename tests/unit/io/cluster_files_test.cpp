#include <gtest/gtest.h>

#include "catalog/builtin_clusters.hpp"
#include "catalog/builtin_gpus.hpp"
#include "io/spec/spec_resolver.hpp"
#include "io_test_support.hpp"

namespace distsim::io {

TEST(ResolveGpu, FindsBuiltinNamesAndReportsUnknownOnes) {
  EXPECT_EQ(resolve_gpu("h100-sxm").sm_count, 132);
  EXPECT_EQ(error_of([] { resolve_gpu("h100-sx"); }),
            "unknown GPU 'h100-sx'; did you mean 'h100-sxm'? (known: v100-sxm3, a10, a40, a100-40gb, a100-80gb, "
            "h100-sxm, h200, b200, b300, gb200, gb300)");
}

TEST(ResolveGpu, DefaultsTheEfficienciesOfAGpuWrittenFromScratch) {
  const auto gpu = resolve_gpu(fixture("gpus/my_gpu.yaml"));
  EXPECT_EQ(gpu.name, "my_gpu");
  EXPECT_DOUBLE_EQ(gpu.peak_fp16_tflops, 200);
  EXPECT_DOUBLE_EQ(gpu.peak_bf16_tflops, 0);  // not given: no bf16 tensor cores
  EXPECT_DOUBLE_EQ(gpu.gemm_efficiency, 0.80);
  EXPECT_DOUBLE_EQ(gpu.fp8_gemm_efficiency, 0);
  EXPECT_DOUBLE_EQ(gpu.memory_efficiency, 0.85);
  EXPECT_DOUBLE_EQ(gpu.kernel_launch_us, 4.0);
  EXPECT_EQ(gpu.default_cluster, "");
}

TEST(ResolveGpu, OverridesABuiltinBase) {
  const auto gpu = resolve_gpu(fixture("gpus/h100_derated.yaml"));
  const auto& h100 = catalog::find_gpu("h100-sxm");
  EXPECT_EQ(gpu.name, "h100-derated");
  EXPECT_DOUBLE_EQ(gpu.gemm_efficiency, 0.7);
  EXPECT_DOUBLE_EQ(gpu.kernel_launch_us, 6);
  EXPECT_DOUBLE_EQ(gpu.fp8_gemm_efficiency, h100.fp8_gemm_efficiency);
  EXPECT_EQ(gpu.default_cluster, "dgx-h100");
}

TEST(ResolveGpu, ListsEveryProblemOfAFile) {
  const std::string file = fixture("gpus/broken_gpu.yaml");
  EXPECT_EQ(error_of([&] { resolve_gpu(file); }),
            file + ": missing required key 'memory_bandwidth_gbps'\n" + file +
                ":2: peak_fp32_tflops: expected a positive number, got 'fast'\n" + file +
                ":4: sm_count: expected a positive integer (1 to 2147483647), got '1.5'\n" + file +
                ":5: gemm_efficiency: expected a number in (0, 1], got '1.5'\n" + file +
                ":6: default_cluster: unknown cluster 'dgx-a10'; did you mean 'dgx-a100'? (known: dgx-2h, "
                "dgx-a100, dgx-h100, dgx-h200, dgx-b200, dgx-b300, gb200-nvl72, gb300-nvl72, pcie-a40, pcie-a10)");
}

TEST(ResolveCluster, FindsBuiltinNames) { EXPECT_EQ(resolve_cluster("dgx-h100").gpu.name, "h100-sxm"); }

TEST(ResolveCluster, ReadsAClusterWrittenFromScratch) {
  const auto cluster = resolve_cluster(fixture("clusters/my_cluster.yaml"));
  EXPECT_EQ(cluster.name, "my-cluster");
  EXPECT_EQ(cluster.gpu.name, "a100-80gb");
  EXPECT_EQ(cluster.total_gpus(), 16);
  EXPECT_EQ(cluster.intra_node.name, "NVLink3");
  EXPECT_DOUBLE_EQ(cluster.intra_node.collective_busbw_gbps, 230);
  EXPECT_DOUBLE_EQ(cluster.intra_node.p2p_gbps, 190);
  EXPECT_DOUBLE_EQ(cluster.intra_node.latency_us, 3.4);
  EXPECT_EQ(cluster.inter_node.nics_per_host, 4);
  EXPECT_DOUBLE_EQ(cluster.inter_node.nic_busbw_gbps, 23);
  EXPECT_DOUBLE_EQ(cluster.inter_node.latency_us, 14);
}

TEST(ResolveCluster, MergesNestedOverridesIntoTheBase) {
  const auto cluster = resolve_cluster(fixture("clusters/dgx_a100_slow_nvlink.yaml"));
  const auto& dgx = catalog::find_cluster("dgx-a100");
  EXPECT_EQ(cluster.name, "dgx_a100_slow_nvlink");
  EXPECT_EQ(cluster.num_hosts, 4);
  EXPECT_DOUBLE_EQ(cluster.intra_node.collective_busbw_gbps, 200);
  EXPECT_DOUBLE_EQ(cluster.intra_node.p2p_gbps, dgx.intra_node.p2p_gbps);
  EXPECT_EQ(cluster.intra_node.name, dgx.intra_node.name);
  EXPECT_EQ(cluster.gpu.name, "a100-80gb");
}

TEST(ResolveCluster, AnInlineGpuOverridesTheBaseClustersGpu) {
  const auto cluster = resolve_cluster(fixture("clusters/h100_nvl_like.yaml"));
  EXPECT_EQ(cluster.gpu.name, "h100-94gb");
  EXPECT_DOUBLE_EQ(cluster.gpu.memory_gb, 94);
  EXPECT_DOUBLE_EQ(cluster.gpu.peak_bf16_tflops, catalog::find_gpu("h100-sxm").peak_bf16_tflops);
}

TEST(ResolveCluster, AnInlineGpuWithItsOwnBaseStartsFromIt) {
  const auto cluster = resolve_cluster(fixture("clusters/inline_gpu_with_base.yaml"));
  EXPECT_EQ(cluster.gpu.name, "h200");
  EXPECT_DOUBLE_EQ(cluster.gpu.memory_gb, 100);
  EXPECT_DOUBLE_EQ(cluster.gpu.memory_bandwidth_gbps, 4800);
}

TEST(ResolveCluster, ReadsAGpuFileRelativeToTheClusterFile) {
  const auto cluster = resolve_cluster(fixture("clusters/file_gpu.yaml"));
  EXPECT_EQ(cluster.gpu.name, "my_gpu");
  EXPECT_EQ(cluster.gpus_per_host, 2);
  EXPECT_EQ(cluster.intra_node.name, catalog::find_cluster("pcie-a40").intra_node.name);
}

TEST(ResolveCluster, ListsEveryProblemOfAFileWithNestedKeyPaths) {
  const std::string file = fixture("clusters/broken_cluster.yaml");
  EXPECT_EQ(error_of([&] { resolve_cluster(file); }),
            file +
                ":1: gpu: unknown GPU 'a100-80'; did you mean 'a100-80gb'? (known: v100-sxm3, a10, a40, a100-40gb, "
                "a100-80gb, h100-sxm, h200, b200, b300, gb200, gb300)\n" +
                file + ":3: missing required key 'intra_node.fabric'\n" + file +
                ":3: missing required key 'intra_node.p2p_gbps'\n" + file +
                ":5: unknown key 'intra_node.bandwdith'; expected one of intra_node.name, intra_node.fabric, "
                "intra_node.collective_busbw_gbps, intra_node.p2p_gbps, intra_node.latency_us\n" +
                file + ":6: intra_node.latency_us: expected a number >= 0, got '-1'\n" + file +
                ":7: missing required key 'inter_node.nic_busbw_gbps'");
}

// A cluster names the CPU that issues its kernels by a built-in host CPU's name; the built-in
// racks name Grace, the DGX H100 its Xeon (catalog/host_cpus.cpp).
TEST(ResolveCluster, ReadsTheHostCpu) {
  EXPECT_EQ(resolve_cluster(fixture("clusters/grace_host.yaml")).host_cpu.name, "grace");
  EXPECT_EQ(catalog::find_cluster("gb200-nvl72").host_cpu.name, "grace");
  EXPECT_EQ(catalog::find_cluster("dgx-h100").host_cpu.name, "xeon-platinum-8480c");
  const std::string file = fixture("clusters/unknown_host_cpu.yaml");
  EXPECT_EQ(error_of([&] { resolve_cluster(file); }),
            file + ":2: host_cpu: expected one of xeon-platinum-8480c, grace, got 'epyc-7742'");
}

TEST(ResolveCluster, RejectsValuesOfTheWrongShape) {
  const std::string file = fixture("clusters/list_gpu.yaml");
  EXPECT_EQ(error_of([&] { resolve_cluster(file); }),
            file + ":2: gpu: expected a GPU name, a GPU file or a mapping of GPU fields, got a list\n" + file +
                ":3: intra_node: expected a mapping of keys to values, got 'fast'");
}

TEST(ResolveCluster, ReadsTheTopologyKeys) {
  const auto cluster = resolve_cluster(fixture("clusters/rack_of_trays.yaml"));
  EXPECT_EQ(cluster.num_hosts, 36);
  EXPECT_EQ(cluster.gpus_per_host, 4);
  EXPECT_EQ(cluster.hosts_per_domain, 18);  // 72 GPUs / 4 per host
  EXPECT_EQ(cluster.gpus_per_domain(), 72);
  EXPECT_EQ(cluster.total_gpus(), 144);
  EXPECT_EQ(cluster.intra_node.fabric, cluster::Fabric::nvlink_switch);
  EXPECT_EQ(cluster.inter_node.nics_per_host, 4);
}

// my_cluster.yaml uses the older keys num_nodes, gpus_per_node and nics_per_node: a host of 8 that
// is its own domain.
TEST(ResolveCluster, ReadsTheOlderKeysAsAHostThatIsADomain) {
  const auto cluster = resolve_cluster(fixture("clusters/my_cluster.yaml"));
  EXPECT_EQ(cluster.num_hosts, 2);
  EXPECT_EQ(cluster.gpus_per_host, 8);
  EXPECT_EQ(cluster.gpus_per_domain(), 8);
  EXPECT_EQ(cluster.inter_node.nics_per_host, 4);
}

TEST(ResolveCluster, KeepsTheHostsOfADomainWhenOnlyTheHostChanges) {
  const auto cluster = resolve_cluster(fixture("clusters/half_dgx.yaml"));
  EXPECT_EQ(cluster.gpus_per_host, 4);
  EXPECT_EQ(cluster.gpus_per_domain(), 4);
  EXPECT_EQ(cluster.intra_node.fabric, cluster::Fabric::nvlink_switch);
  EXPECT_EQ(catalog::find_cluster("pcie-a40").intra_node.fabric, cluster::Fabric::pcie);
}

TEST(ResolveCluster, RejectsADomainThatIsNoWholeNumberOfHostsAndAnUnknownFabric) {
  const std::string file = fixture("clusters/bad_topology.yaml");
  EXPECT_EQ(error_of([&] { resolve_cluster(file); }),
            file + ":3: gpus_per_domain: expected a whole number of 4-GPU hosts, got 18 GPUs\n" + file +
                ":5: intra_node.fabric: expected one of nvlink_switch, nvlink_bridge, pcie, got 'nvlink'");
}

TEST(ResolveCluster, RejectsAKeyGivenUnderBothItsNames) {
  const std::string file = fixture("clusters/old_and_new_keys.yaml");
  EXPECT_EQ(error_of([&] { resolve_cluster(file); }),
            file + ":2: gpus_per_node: give gpus_per_host or its older name gpus_per_node, not both\n" + file +
                ":5: inter_node.nics_per_node: give nics_per_host or its older name nics_per_node, not both");
}

TEST(ResolveCluster, ReportsAMissingFile) {
  EXPECT_EQ(error_of([] { resolve_cluster("clusters/none.yaml"); }),
            "cannot open cluster file 'clusters/none.yaml': No such file or directory");
}

}  // namespace distsim::io
