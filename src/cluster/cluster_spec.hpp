#pragma once

#include <string>

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

//! A homogeneous cluster of `num_hosts` identical hosts of `gpus_per_host` GPUs. A host is one
//! machine: its GPUs share its NICs. A scale-up domain is `hosts_per_domain` consecutive hosts
//! whose GPUs all reach each other over the intra-domain fabric: one host on a DGX, 18 four-GPU
//! trays in a GB200 NVL72 rack.
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

  int total_gpus() const { return num_hosts * gpus_per_host; }
  int gpus_per_domain() const { return gpus_per_host * hosts_per_domain; }
  bool operator==(const ClusterSpec&) const = default;
};

}  // namespace distsim::cluster
