#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace distsim::cluster {

//! The fabric that joins the GPUs of one scale-up domain. NCCL prices its hops by the path type
//! (src/graph/tuning.cc hwLat: NVLink or PCI) and enables LL128 only where every intra-domain hop
//! is NVLink (typeIntra <= PATH_NVB), so the kind decides both.
enum class Fabric {
  nvlink_switch,  //!< every GPU on NVSwitch planes (DGX, HGX, NVL72 racks)
  nvlink_bridge,  //!< GPUs joined pairwise by NVLink bridges; NCCL counts a bridge path as NVLink
  pcie,           //!< GPUs talk through the PCIe root complex
};

inline constexpr std::array kFabrics = {Fabric::nvlink_switch, Fabric::nvlink_bridge, Fabric::pcie};

//! The name used in cluster files and output: "nvlink_switch", "nvlink_bridge" or "pcie".
constexpr std::string_view fabric_name(Fabric fabric) {
  switch (fabric) {
    case Fabric::nvlink_switch: return "nvlink_switch";
    case Fabric::nvlink_bridge: return "nvlink_bridge";
    case Fabric::pcie: return "pcie";
  }
  return "?";
}

inline std::optional<Fabric> fabric_named(std::string_view name) {
  for (const Fabric fabric : kFabrics) {
    if (fabric_name(fabric) == name) {
      return fabric;
    }
  }
  return std::nullopt;
}

inline std::vector<std::string> fabric_names() {
  std::vector<std::string> names;
  names.reserve(kFabrics.size());
  for (const Fabric fabric : kFabrics) {
    names.emplace_back(fabric_name(fabric));
  }
  return names;
}

//! NCCL's LL128 protocol runs only on NVLink paths (tuning.cc: typeIntra <= PATH_NVB).
constexpr bool allows_ll128(Fabric fabric) { return fabric != Fabric::pcie; }

//! One value per NCCL protocol, in NCCL's order {LL, LL128, Simple}.
using PerProtocol = std::array<double, 3>;

// NCCL src/graph/tuning.cc hwLat, Ring row: latency of one ring step in µs per protocol, by the
// path the step takes (hardware.md §4.5).
inline constexpr PerProtocol kNcclNvlinkHopUs = {0.6, 1.9, 3.4};
inline constexpr PerProtocol kNcclPciHopUs = {1.0, 2.5, 5.7};
inline constexpr PerProtocol kNcclNetHopUs = {2.7, 4.0, 14.0};

//! NCCL's nominal hop latencies of one ring step inside a domain of this fabric.
constexpr const PerProtocol& nccl_hop_us(Fabric fabric) {
  return fabric == Fabric::pcie ? kNcclPciHopUs : kNcclNvlinkHopUs;
}

//! The Simple-protocol figure, the one a cluster states as its hop latency.
constexpr double nccl_simple_hop_us(const PerProtocol& hops) { return hops[2]; }

}  // namespace distsim::cluster
