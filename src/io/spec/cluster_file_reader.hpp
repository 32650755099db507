#pragma once

#include <functional>
#include <string>

#include "cluster/cluster_spec.hpp"
#include "io/document/mapping_reader.hpp"

namespace distsim::io {

//! Resolves a GPU named in a file: a built-in name, or a path relative to that file.
using GpuResolver = std::function<cluster::GpuSpec(const std::string& name_or_path)>;

//! Reads a cluster in distsim's own schema: name, description, source, base, gpu, num_hosts
//! (default 1), gpus_per_host, gpus_per_domain (default: one host), intra_node {name, fabric,
//! collective_busbw_gbps, p2p_gbps, latency_us} and inter_node {name, nics_per_host,
//! nic_busbw_gbps, latency_us}. The older keys num_nodes, gpus_per_node (a host that is one whole
//! domain) and nics_per_node are still read. `gpu` is a GPU name or path, or an inline GPU mapping;
//! an inline mapping without its own `base:` overrides the base cluster's GPU. Starts from `base`
//! when not null, merging nested mappings key by key; without one every key except the names,
//! num_hosts and gpus_per_domain is required. Problems go to the reader's Diagnostics.
cluster::ClusterSpec read_cluster_mapping(MappingReader& reader, const cluster::ClusterSpec* base,
                                          const std::string& file, const GpuResolver& resolve_gpu);

}  // namespace distsim::io
