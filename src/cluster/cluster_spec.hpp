#pragma once

#include <string>

#include "cluster/gpu_spec.hpp"

namespace distsim::cluster {

//! The fabric between the GPUs of one node (NVSwitch, NVLink bridges, PCIe).
struct IntraNodeLink {
  std::string name;
  double collective_busbw_gbps = 0;  //!< nccl-tests ring bus bandwidth at large sizes, GB/s
  double p2p_gbps = 0;               //!< one-direction send/recv bandwidth between two GPUs
  double latency_us = 0;             //!< per-hop latency (NCCL's hwLat for the link type)
};

//! The scale-out network: NICs per node and what each achieves in nccl-tests.
struct InterNodeLink {
  std::string name;
  int nics_per_node = 0;
  double nic_busbw_gbps = 0;  //!< achievable bus bandwidth per NIC, GB/s
  double latency_us = 0;      //!< per-hop latency across the network
};

//! A homogeneous cluster: `num_nodes` identical nodes of `gpus_per_node` GPUs.
struct ClusterSpec {
  std::string name;
  std::string description;
  std::string source;
  GpuSpec gpu;
  int num_nodes = 1;
  int gpus_per_node = 1;
  IntraNodeLink intra_node;
  InterNodeLink inter_node;

  int total_gpus() const { return num_nodes * gpus_per_node; }
};

}  // namespace distsim::cluster
