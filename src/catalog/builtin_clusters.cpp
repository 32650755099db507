#include "catalog/builtin_clusters.hpp"

#include "catalog/builtin_gpus.hpp"
#include "catalog/find_by_name.hpp"

namespace distsim::catalog {

namespace {

using cluster::ClusterSpec;
using cluster::Fabric;
using cluster::InterNodeLink;
using cluster::IntraNodeLink;

// Per-hop latencies are NCCL's own ring constants for the Simple protocol, the one used for the
// large messages that dominate training (src/graph/tuning.cc hwLat, docs/reference/hardware.md §4.5).
constexpr double kNvlinkHopUs = cluster::nccl_simple_hop_us(cluster::kNcclNvlinkHopUs);

// DGX A100's measured NVLink3 hop (docs/cost_models.md §4): nccl-tests#123 timed a 128-byte ring
// all-reduce at 10.0 / 16.9 / 33.7 µs on 2 / 4 / 8 GPUs; with NCCL's LL base 6.6 µs, least
// squares over 2(n−1) steps gives 1.90 µs per LL hop, × NCCL's Simple/LL ratio 3.4/0.6 = 10.8 µs.
// Independently, the Simple-protocol sizes 64-512 MiB land within −6 % to −1 % with it and −19 %
// to −4 % with the nominal 3.4 µs (ml-engineering, Azure, Vidur; data/collectives.csv).
constexpr double kA100NvlinkHopUs = 10.8;
constexpr double kPciHopUs = cluster::nccl_simple_hop_us(cluster::kNcclPciHopUs);
constexpr double kNetHopUs = cluster::nccl_simple_hop_us(cluster::kNcclNetHopUs);

// NDR 400 Gb/s ConnectX-7: "46-48 GB/s per NIC" (NVIDIA maintainer, nccl-tests#290).
constexpr double kNdrNicGbps = 47.0;

// Every NVLink4 node (H100, H200) uses the NCCL send/recv measured on a DGX H100: 347.7 GB/s at
// 64 MiB (microsoft/vidur profile, data/collectives.csv). It is an NCCL figure like the A100's
// 195.1 GB/s; nvbandwidth's copy-engine 396.4 GB/s on H200 is an upper bound NCCL does not reach.
constexpr double kNvlink4P2pGbps = 347.7;

// No PCIe A10/A40 server has published nccl-tests figures (docs/reference/hardware.md §7 item 6), so these are
// [derived, unvalidated]: PCIe Gen4 x16 carries 31 GB/s per direction (data/hardware.csv), and
// NCCL reaches about 0.65 of a link's rate in send/recv (A100: 195.1 of 300 GB/s), giving
// ~20 GB/s; NCCL itself assumes 12 GB/s for Gen3 x16 (PCI_BW, docs/reference/hardware.md §1.1), 0.76 of 15.75.
// One 100 Gb/s NIC: 12.5 GB/s line rate × 0.92 (docs/reference/hardware.md §4.2 rule of thumb) = 11.5 GB/s,
// against NCCL's NET_BW assumption of 12 GB/s.
constexpr double kPcieGen4Gbps = 20.0;
constexpr double kNic100GGbps = 12.5 * 0.92;

IntraNodeLink pcie_gen4() {
  return {"PCIe Gen4 x16 through the host (no NVLink)", kPcieGen4Gbps, kPcieGen4Gbps, kPciHopUs, Fabric::pcie};
}

InterNodeLink ndr_x8() { return {"8x NDR 400 Gb/s InfiniBand (ConnectX-7, one per GPU)", 8, kNdrNicGbps, kNetHopUs}; }

ClusterSpec dgx_a100() {
  return {
      .name = "dgx-a100",
      .description = "DGX A100: 8x A100 SXM4 80GB on NVLink3 + 6 NVSwitch, 8x HDR 200 Gb/s InfiniBand",
      .source = "hardware.md §2 (MLPerf dgxa100 system JSON); data/collectives.csv: all_reduce ring busbw "
                "234.9 GB/s at 16 GiB (ml-engineering, §4.1), sendrecv 195.1 GB/s at 1 GiB "
                "(li-plus/playground); 24 GB/s per HDR NIC (NVIDIA/nccl#412; 8 x 24 = 192 GB/s "
                "measured, nccl#812); NVLink hop 10.8 us fitted on nccl-tests#123 (docs/cost_models.md §4), "
                "NET hop NCCL tuning.cc Ring/Simple 14 us (§4.5)",
      .gpu = find_gpu("a100-80gb"),
      .num_hosts = 1,
      .gpus_per_host = 8,
      .hosts_per_domain = 1,
      .intra_node = {"NVLink3 + NVSwitch (600 GB/s bidirectional per GPU)", 234.9, 195.1, kA100NvlinkHopUs,
                     Fabric::nvlink_switch},
      .inter_node = {"8x HDR 200 Gb/s InfiniBand (ConnectX-6, one per GPU)", 8, 24.0, kNetHopUs},
  };
}

// The ring figure, not NVLS (~480 GB/s): NVLS speeds up all-reduce only, and choosing it is the
// collective cost model's job.
ClusterSpec dgx_h100() {
  return {
      .name = "dgx-h100",
      .description = "DGX H100: 8x H100 SXM5 on NVLink4 + 4 NVSwitch, 8x NDR 400 Gb/s InfiniBand",
      .source = "hardware.md §2 (MLPerf dgxh100 system JSON); ring busbw ~370 GB/s = 82% of 450 "
                "(hardware.md §4.1, nccl-tests#212/#326; NCCL topo.h 20.6 GB/s x 18 links = 371); "
                "p2p 347.7 GB/s NCCL sendrecv at 64 MiB (data/collectives.csv, microsoft/vidur); "
                "47 GB/s per NDR NIC (nccl-tests#290); hop latencies NCCL tuning.cc (§4.5)",
      .gpu = find_gpu("h100-sxm"),
      .num_hosts = 1,
      .gpus_per_host = 8,
      .hosts_per_domain = 1,
      .intra_node = {"NVLink4 + NVSwitch (900 GB/s bidirectional per GPU)", 370.0, kNvlink4P2pGbps, kNvlinkHopUs,
                     Fabric::nvlink_switch},
      .inter_node = ndr_x8(),
  };
}

ClusterSpec dgx_h200() {
  return {
      .name = "dgx-h200",
      .description = "DGX H200: 8x H200 on NVLink4 + NVSwitch, 8x NDR 400 Gb/s InfiniBand",
      .source = "hardware.md §2 (MLPerf H200-SXM-141GBx8 JSON: 10x 400G IB, 8 taken as compute rails, "
                "§7 item 5); data/collectives.csv: all_reduce ring busbw 367.2 GB/s at 16 GiB "
                "(NCCL_NVLS_ENABLE=0, ml-engineering); p2p as dgx-h100 (same NVLink4 fabric; "
                "nvbandwidth copy 396.4 GB/s is an upper bound); 47 GB/s per NDR NIC (nccl-tests#290)",
      .gpu = find_gpu("h200"),
      .num_hosts = 1,
      .gpus_per_host = 8,
      .hosts_per_domain = 1,
      .intra_node = {"NVLink4 + NVSwitch (900 GB/s bidirectional per GPU)", 367.2, kNvlink4P2pGbps, kNvlinkHopUs,
                     Fabric::nvlink_switch},
      .inter_node = ndr_x8(),
  };
}

// No send/recv measurement exists for B200. [derived, unvalidated] It is scaled from the NVLink4
// one by the ratio of measured ring busbw, 682.2 / 367.2, which keeps B200's lower ring
// efficiency (76% of 900 GB/s against 82% of 450).
ClusterSpec dgx_b200() {
  return {
      .name = "dgx-b200",
      .description = "DGX B200: 8x B200 on NVLink5 + NVSwitch, 8x NDR 400 Gb/s InfiniBand",
      .source = "hardware.md §2 (MLPerf B200-SXM-180GBx8 JSON: 10x 400G IB, 8 taken as compute rails, "
                "§7 item 5); data/collectives.csv: all_reduce ring busbw 682.2 GB/s at 8 GiB (AWS p6-b200, "
                "ml-engineering); p2p derived: 347.7 x 682.2/367.2 = 646 GB/s, unvalidated; "
                "47 GB/s per NDR NIC (nccl-tests#290)",
      .gpu = find_gpu("b200"),
      .num_hosts = 1,
      .gpus_per_host = 8,
      .hosts_per_domain = 1,
      .intra_node = {"NVLink5 + NVSwitch (1800 GB/s bidirectional per GPU)", 682.2, kNvlink4P2pGbps * 682.2 / 367.2,
                     kNvlinkHopUs, Fabric::nvlink_switch},
      .inter_node = ndr_x8(),
  };
}

// No nccl-tests figures exist for V100 nodes (docs/reference/hardware.md §7 item 7), so both NVSwitch-fabric
// rates are [derived, unvalidated]. Ring busbw: NCCL's own per-link assumption SM70_NVLINK_BW
// 20 GB/s x 6 NVLink2 links = 120 GB/s (topo.h, docs/reference/hardware.md §1.1); the same model gives 240 for
// A100 and 371 for H100 against 234.9 and ~370 measured. Send/recv: 150 GB/s per direction
// x 0.65, the fraction NCCL reaches on A100 (195.1 of 300 GB/s).
constexpr double kNvlink2RingGbps = 20.0 * 6;
constexpr double kNvlink2P2pGbps = 150.0 * 195.1 / 300.0;

// DGX-2H: 16 GPUs on one NVSwitch plane, so every intra-node group has the full per-GPU rate.
ClusterSpec dgx_2h() {
  return {
      .name = "dgx-2h",
      .description = "DGX-2H: 16x V100 SXM3 32GB on NVLink2 + 12 NVSwitch, 8x EDR 100 Gb/s InfiniBand",
      .source = "hardware.md §2 (MLPerf v0.7 dgx2h_n64 JSON; pcper.com: 8 EDR NICs); links derived, "
                "unvalidated: ring busbw NCCL topo.h SM70_NVLINK_BW 20 GB/s x 6 links = 120 GB/s, p2p "
                "150 x 195.1/300 = 97.6 GB/s, 100 Gb/s NIC 12.5 GB/s x 0.92 = 11.5 GB/s (hardware.md "
                "§1.1, §4.1, §4.2, §7 item 7); hop latencies NCCL tuning.cc Ring/Simple NVLink 3.4, "
                "NET 14 us (§4.5)",
      .gpu = find_gpu("v100-sxm3"),
      .num_hosts = 1,
      .gpus_per_host = 16,
      .hosts_per_domain = 1,
      .intra_node = {"NVLink2 + NVSwitch (300 GB/s bidirectional per GPU)", kNvlink2RingGbps, kNvlink2P2pGbps,
                     kNvlinkHopUs, Fabric::nvlink_switch},
      .inter_node = {"8x EDR 100 Gb/s InfiniBand (ConnectX-5)", 8, kNic100GGbps, kNetHopUs},
  };
}

// Four PCIe cards per node is the DistSim paper's setting (16 A10 GPUs in 4 nodes).
ClusterSpec pcie_node(const char* name, const char* gpu_name, const char* description) {
  return {
      .name = name,
      .description = description,
      .source = "DistSim paper (Lu et al., CF'23) 4 GPUs per node; hardware.md §2 (typical PCIe A10/A40 "
                "node, NIC count a free parameter); links [derived, unvalidated]: PCIe Gen4 x16 31 GB/s "
                "x 0.65 = 20 GB/s, 100 Gb/s NIC 12.5 GB/s x 0.92 = 11.5 GB/s (hardware.md §1.1, §4.2, "
                "§7 item 6); hop latencies NCCL tuning.cc Ring/Simple PCI 5.7, NET 14 us (§4.5)",
      .gpu = find_gpu(gpu_name),
      .num_hosts = 1,
      .gpus_per_host = 4,
      .hosts_per_domain = 1,
      .intra_node = pcie_gen4(),
      .inter_node = {"1x 100 Gb/s NIC", 1, kNic100GGbps, kNetHopUs},
  };
}

std::vector<ClusterSpec> make_clusters() {
  return {
      dgx_2h(),
      dgx_a100(),
      dgx_h100(),
      dgx_h200(),
      dgx_b200(),
      pcie_node("pcie-a40", "a40", "4x A40 PCIe per node over PCIe Gen4, one 100 Gb/s NIC"),
      pcie_node("pcie-a10", "a10", "4x A10 PCIe per node over PCIe Gen4, one 100 Gb/s NIC"),
  };
}

}  // namespace

const std::vector<cluster::ClusterSpec>& builtin_clusters() {
  static const std::vector<cluster::ClusterSpec> clusters = make_clusters();
  return clusters;
}

const cluster::ClusterSpec& find_cluster(std::string_view name) {
  return detail::find_by_name(builtin_clusters(), name, "cluster");
}

std::vector<std::string> cluster_names() { return detail::names_of(builtin_clusters()); }

}  // namespace distsim::catalog
