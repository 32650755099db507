#pragma once

#include <string>
#include <vector>

#include "cluster/fabric.hpp"
#include "cluster/gpu_spec.hpp"
#include "cluster/host_cpu.hpp"

namespace distsim::cluster {

//! The fabric inside one scale-up (NVLink) domain: what a group whose members all sit in one
//! domain communicates over.
struct IntraNodeLink {
  std::string name;
  double collective_busbw_gbps = 0;  //!< nccl-tests ring bus bandwidth at large sizes, GB/s
  double p2p_gbps = 0;               //!< one-direction send/recv bandwidth between two GPUs
  double latency_us = 0;             //!< per-hop latency of the Simple protocol (0: NCCL's for the fabric)
  Fabric fabric = Fabric::nvlink_switch;

  bool operator==(const IntraNodeLink&) const = default;
};

//! The scale-out network between domains: NICs per host and what each achieves in nccl-tests.
struct InterNodeLink {
  std::string name;
  int nics_per_host = 0;
  double nic_busbw_gbps = 0;  //!< achievable bus bandwidth per NIC, GB/s
  double latency_us = 0;      //!< per-hop latency across the network

  bool operator==(const InterNodeLink&) const = default;
};

//! Hosts of one GPU type in a cluster of several: the cluster's host design (GPUs per host, the
//! links inside and between domains, the host CPU) with this GPU in it.
struct HostGroup {
  GpuSpec gpu;
  int hosts = 0;
  bool operator==(const HostGroup&) const = default;
};

//! A cluster of `num_hosts` hosts of `gpus_per_host` GPUs. A host is one machine: its GPUs share
//! its NICs. A scale-up domain is `hosts_per_domain` consecutive hosts whose GPUs all reach each
//! other over the intra-domain fabric: one host on a DGX, 18 four-GPU trays in a GB200 NVL72 rack.
//! Every host has `gpu`, unless the cluster lists `host_groups`: then its hosts are the groups' in
//! their order (ranks fill them in that order unless the job assigns GPUs to stages), `num_hosts`
//! is their sum and `gpu` the first group's.
struct ClusterSpec {
  std::string name;
  std::string description;
  std::string source;
  GpuSpec gpu;
  int num_hosts = 1;
  int gpus_per_host = 1;
  int hosts_per_domain = 1;
  IntraNodeLink intra_node;
  InterNodeLink inter_node;
  //! The CPU that issues the kernels (catalog/host_cpus.hpp); none named: a DGX H100's.
  HostCpu host_cpu = {};
  //! A cluster of several GPU types, one group per run of hosts; empty when every host has `gpu`.
  std::vector<HostGroup> host_groups = {};

  int total_gpus() const { return num_hosts * gpus_per_host; }
  //! Whether the hosts hold more than one GPU type.
  bool mixed() const { return !host_groups.empty(); }
  //! The GPU types: a GPU type is the index of the first host group with that GPU (by name), so
  //! that groups of one GPU share it; 0 is the type of a cluster that lists no groups.
  int gpu_type_of_group(int group) const {
    const std::string& gpu_name = host_groups.at(static_cast<size_t>(group)).gpu.name;
    int first = 0;
    while (host_groups[static_cast<size_t>(first)].gpu.name != gpu_name) ++first;
    return first;
  }
  //! The GPU of type `type` (gpu_type_of_group); `gpu` for type 0 of a one-type cluster.
  const GpuSpec& gpu_of_type(int type) const { return mixed() ? host_groups.at(static_cast<size_t>(type)).gpu : gpu; }
  //! The memory of the GPU type with the least, in GB as GpuSpec::memory_gb.
  double least_gpu_memory_gb() const {
    double least = gpu.memory_gb;
    for (const auto& group : host_groups) least = group.gpu.memory_gb < least ? group.gpu.memory_gb : least;
    return least;
  }
  //! Every GPU type once, in group order: {0} for a one-type cluster.
  std::vector<int> gpu_types() const {
    std::vector<int> types{0};
    for (int group = 1; group < static_cast<int>(host_groups.size()); ++group) {
      if (gpu_type_of_group(group) == group) types.push_back(group);
    }
    return types;
  }
  int gpus_per_domain() const { return gpus_per_host * hosts_per_domain; }
  bool operator==(const ClusterSpec&) const = default;
};

}  // namespace distsim::cluster
