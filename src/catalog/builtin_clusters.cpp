#include "catalog/builtin_clusters.hpp"

#include <string>
#include <utility>

#include "catalog/builtin_gpus.hpp"
#include "catalog/find_by_name.hpp"
#include "catalog/host_cpus.hpp"

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
      .host_cpu = find_host_cpu("xeon-platinum-8480c"),
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

// NVLink 5 (B200 and later): ring busbw measured on 8 B200 (AWS p6-b200, NCCL_NVLS_ENABLE=0, 8 GiB,
// ml-engineering; data/collectives.csv).
constexpr double kNvlink5RingGbps = 682.2;
// No send/recv measurement exists for B200. [derived, unvalidated] It is scaled from the NVLink4
// one by the ratio of measured ring busbw, 682.2 / 367.2, which keeps B200's lower ring
// efficiency (76% of 900 GB/s against 82% of 450).
constexpr double kNvlink5P2pGbps = kNvlink4P2pGbps * kNvlink5RingGbps / 367.2;

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
      .intra_node = {"NVLink5 + NVSwitch (1800 GB/s bidirectional per GPU)", kNvlink5RingGbps, kNvlink5P2pGbps,
                     kNvlinkHopUs, Fabric::nvlink_switch},
      .inter_node = ndr_x8(),
  };
}

// DGX B300: 8x B300 on the NVLink 5 switch fabric of DGX B200, with eight single-port ConnectX-8
// at 800 Gb/s (ml-engineering network/README.md, commit 744d01e, inter-node table "NVIDIA DGX B300
// XDR", citing the DGX B300 specifications). No nccl-tests figure exists for B300 or for a
// ConnectX-8: the NVLink figures are dgx-b200's (the same NVLink 5 switch generation) and the NIC
// reaches NDR's measured share of its line rate, 47 of 50 GB/s, of 100 GB/s [derived, unvalidated].
constexpr double kXdrNicGbps = 100.0 * kNdrNicGbps / 50.0;

ClusterSpec dgx_b300() {
  return {
      .name = "dgx-b300",
      .description = "DGX B300: 8x B300 on NVLink5 + NVSwitch, 8x ConnectX-8 800 Gb/s",
      .source = "ml-engineering network/README.md (commit 744d01e): DGX B300 XDR, 8 ConnectX-8 at 800 Gb/s; "
                "NVLink ring busbw 682.2 GB/s and p2p 646 GB/s as dgx-b200 (same NVLink 5 switches) [derived]; "
                "NIC 100 GB/s x 47/50 (NDR's measured share, nccl-tests#290) = 94 GB/s [derived, unvalidated]; "
                "hop latencies NCCL tuning.cc (hardware.md §4.5)",
      .gpu = find_gpu("b300"),
      .num_hosts = 1,
      .gpus_per_host = 8,
      .hosts_per_domain = 1,
      .intra_node = {"NVLink5 + NVSwitch (1800 GB/s bidirectional per GPU)", kNvlink5RingGbps, kNvlink5P2pGbps,
                     kNvlinkHopUs, Fabric::nvlink_switch},
      .inter_node = {"8x ConnectX-8 800 Gb/s (one per GPU)", 8, kXdrNicGbps, kNetHopUs},
  };
}

// A GB200 NVL72 rack: 18 compute trays (hosts) of 4 GPUs, every GPU's 18 NVLink 5 links on the
// rack's NVLink switch trays, so the 72 GPUs are one scale-up domain; each tray has four
// single-port ConnectX-7 at 400 Gb/s, one per GPU (ml-engineering network/README.md, commit
// 744d01e, citing the DGX GB200 user guide's networking page). Ring busbw 679.6 GB/s: Azure ND
// GB200 v6, all_reduce on the 4 GPUs of one tray at 8 GiB, Ring, NCCL 2.25.1 (data/collectives.csv);
// a tray's GPUs meet only through the switch trays, so a ring of any size in the rack runs on the
// same links. The full rack's default (NVLS) all-reduce reaches 834.6 GB/s (coreweave/nccl-tests
// PR#43); NVLS is not modelled, as on DGX H100. Across racks NCCL treats each NVLink domain as one
// node (NCCL_MNNVL_ENABLE) and drives every member's NIC: two racks reach 793 GB/s at 8 GiB
// (coreweave/nccl-tests README, "2 Racks", NCCL 2.26.2), which the ring model's min(intra busbw,
// members per domain x NIC share) = min(679.6, 72 x 47) reproduces within its NVLS gap.
ClusterSpec nvl72(const char* name, const char* gpu_name, const char* description, const char* nic_name,
                  double nic_gbps, const char* nic_source) {
  return {
      .name = name,
      .description = description,
      .source = std::string("72-GPU NVLink domain of 18 four-GPU trays; ring busbw 679.6 GB/s (Azure ND GB200 v6, "
                            "4 GPUs, Ring, 8 GiB, data/collectives.csv); p2p 646 GB/s as dgx-b200 [derived]; ") +
                nic_source + "; hop latencies NCCL tuning.cc (hardware.md §4.5)",
      .gpu = find_gpu(gpu_name),
      .num_hosts = 18,
      .gpus_per_host = 4,
      .hosts_per_domain = 18,
      .intra_node = {"NVLink5 switch trays (1800 GB/s bidirectional per GPU, 72 GPUs)", 679.6, kNvlink5P2pGbps,
                     kNvlinkHopUs, Fabric::nvlink_switch},
      .inter_node = {nic_name, 4, nic_gbps, kNetHopUs},
      .host_cpu = find_host_cpu("grace"),
  };
}

// GB300 NVL72: the same rack with Blackwell Ultra GPUs and one ConnectX-8 800 Gb/s per GPU on
// Quantum-X800 (ml-engineering network/README.md, commit 744d01e: "Quantum-X800 is used by ... GB300
// NVL72", ConnectX-8 its adapter). No nccl-tests figure exists for it: GB200's NVLink figures
// [derived], the XDR NIC as dgx-b300's [derived, unvalidated].
std::vector<ClusterSpec> rack_clusters() {
  return {
      nvl72("gb200-nvl72", "gb200",
            "GB200 NVL72 rack: 72x GB200 in one NVLink 5 domain of 18 four-GPU trays, 4x NDR "
            "400 Gb/s per tray",
            "4x NDR 400 Gb/s InfiniBand per tray (ConnectX-7, one per GPU)", kNdrNicGbps,
            "NICs: 4 ConnectX-7 400 Gb/s per tray (DGX GB200 user guide via ml-engineering), 47 GB/s each "
            "(nccl-tests#290)"),
      nvl72("gb300-nvl72", "gb300",
            "GB300 NVL72 rack: 72x GB300 in one NVLink 5 domain of 18 four-GPU trays, 4x "
            "ConnectX-8 800 Gb/s per tray",
            "4x ConnectX-8 800 Gb/s per tray (one per GPU)", kXdrNicGbps,
            "NICs: ConnectX-8 800 Gb/s per GPU on Quantum-X800 (ml-engineering), 100 GB/s x 47/50 = 94 GB/s "
            "[derived, unvalidated]"),
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
  std::vector<ClusterSpec> clusters = {
      dgx_2h(), dgx_a100(), dgx_h100(), dgx_h200(), dgx_b200(), dgx_b300(),
  };
  for (ClusterSpec& rack : rack_clusters()) {
    clusters.push_back(std::move(rack));
  }
  clusters.push_back(pcie_node("pcie-a40", "a40", "4x A40 PCIe per node over PCIe Gen4, one 100 Gb/s NIC"));
  clusters.push_back(pcie_node("pcie-a10", "a10", "4x A10 PCIe per node over PCIe Gen4, one 100 Gb/s NIC"));
  return clusters;
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
