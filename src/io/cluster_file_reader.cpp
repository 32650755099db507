#include "io/cluster_file_reader.hpp"

#include "io/document.hpp"
#include "io/gpu_file_reader.hpp"

namespace distsim::io {

namespace {

using cluster::ClusterSpec;
using cluster::GpuSpec;

void read_intra_node(MappingReader& reader, cluster::IntraNodeLink& link, bool from_scratch) {
  std::optional<MappingReader> links = reader.child("intra_node");
  if (!links) {
    return;
  }
  links->reject_unknown_keys({"name", "collective_busbw_gbps", "p2p_gbps", "latency_us"});
  if (from_scratch) {
    links->require({"collective_busbw_gbps", "p2p_gbps", "latency_us"});
  }
  links->read("name", link.name);
  links->read("collective_busbw_gbps", link.collective_busbw_gbps, NumberRule::positive);
  links->read("p2p_gbps", link.p2p_gbps, NumberRule::positive);
  links->read("latency_us", link.latency_us, NumberRule::non_negative);
}

void read_inter_node(MappingReader& reader, cluster::InterNodeLink& link, bool from_scratch) {
  std::optional<MappingReader> links = reader.child("inter_node");
  if (!links) {
    return;
  }
  links->reject_unknown_keys({"name", "nics_per_node", "nic_busbw_gbps", "latency_us"});
  if (from_scratch) {
    links->require({"nics_per_node", "nic_busbw_gbps", "latency_us"});
  }
  links->read("name", link.name);
  links->read("nics_per_node", link.nics_per_node);
  links->read("nic_busbw_gbps", link.nic_busbw_gbps, NumberRule::positive);
  links->read("latency_us", link.latency_us, NumberRule::non_negative);
}

//! An inline GPU starts from its own `base:`, else from the base cluster's GPU, else from scratch.
void read_inline_gpu(MappingReader& reader, ClusterSpec& cluster, bool has_base_cluster, const std::string& file,
                     const GpuResolver& resolve_gpu) {
  std::optional<MappingReader> fields = reader.child("gpu");
  if (!fields) {
    return;
  }
  const std::optional<GpuSpec> own_base = read_base<GpuSpec>(*fields, resolve_gpu);
  const GpuSpec* start = own_base ? &*own_base : has_base_cluster ? &cluster.gpu : nullptr;
  const std::string default_name = start != nullptr ? start->name : file_stem(file) + "-gpu";
  cluster.gpu = read_gpu_mapping(*fields, start, default_name, file);
}

void read_gpu(MappingReader& reader, ClusterSpec& cluster, bool has_base_cluster, const std::string& file,
              const GpuResolver& resolve_gpu) {
  const YAML::Node value = reader.value("gpu");
  if (value.IsMap()) {
    read_inline_gpu(reader, cluster, has_base_cluster, file, resolve_gpu);
    return;
  }
  if (!value.IsScalar()) {
    reader.report("gpu", "expected a GPU name, a GPU file or a mapping of GPU fields, got " + describe(value));
    return;
  }
  try {
    cluster.gpu = resolve_gpu(value.Scalar());
  } catch (const InputError& e) {
    reader.report("gpu", e.what());
  }
}

}  // namespace

ClusterSpec read_cluster_mapping(MappingReader& reader, const ClusterSpec* base, const std::string& file,
                                 const GpuResolver& resolve_gpu) {
  reader.reject_unknown_keys({"name", "description", "source", "base", "gpu", "num_nodes", "gpus_per_node",
                              "intra_node", "inter_node"});
  const bool from_scratch = base == nullptr && !reader.has("base");
  if (from_scratch) {
    reader.require({"gpu", "gpus_per_node", "intra_node", "inter_node"});
  }
  ClusterSpec cluster = base != nullptr ? *base : ClusterSpec{};
  cluster.name = file_stem(file);
  cluster.description = base != nullptr ? "'" + base->name + "' with the overrides of " + file : "cluster file " + file;
  cluster.source = base != nullptr ? file + "; base: " + base->source : file;
  reader.read("name", cluster.name);
  reader.read("description", cluster.description);
  reader.read("source", cluster.source);
  if (reader.has("gpu")) {
    read_gpu(reader, cluster, base != nullptr, file, resolve_gpu);
  }
  reader.read("num_nodes", cluster.num_nodes);
  reader.read("gpus_per_node", cluster.gpus_per_node);
  read_intra_node(reader, cluster.intra_node, from_scratch);
  read_inter_node(reader, cluster.inter_node, from_scratch);
  return cluster;
}

}  // namespace distsim::io
