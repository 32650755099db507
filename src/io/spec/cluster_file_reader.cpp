#include "io/spec/cluster_file_reader.hpp"

#include "catalog/host_cpus.hpp"
#include "io/document/document.hpp"
#include "io/spec/gpu_file_reader.hpp"

namespace distsim::io {

namespace {

using cluster::ClusterSpec;
using cluster::GpuSpec;

//! A key and its older synonym may not both be given.
void only_one_of(MappingReader& reader, std::string_view key, std::string_view old_key) {
  if (reader.has(key) && reader.has(old_key)) {
    reader.report(old_key, "give " + std::string(key) + " or its older name " + std::string(old_key) + ", not both");
  }
}

//! The built-in host CPUs by name (catalog/host_cpus.hpp).
std::vector<Choice<cluster::HostCpu>> host_cpu_choices() {
  std::vector<Choice<cluster::HostCpu>> choices;
  for (const auto& cpu : catalog::builtin_host_cpus()) choices.push_back({cpu.name, cpu});
  return choices;
}

std::vector<Choice<cluster::Fabric>> fabric_choices() {
  std::vector<Choice<cluster::Fabric>> choices;
  choices.reserve(cluster::kFabrics.size());
  for (const cluster::Fabric fabric : cluster::kFabrics) {
    choices.push_back({cluster::fabric_name(fabric), fabric});
  }
  return choices;
}

void read_intra_node(MappingReader& reader, cluster::IntraNodeLink& link, bool from_scratch) {
  std::optional<MappingReader> links = reader.child("intra_node");
  if (!links) {
    return;
  }
  links->reject_unknown_keys({"name", "fabric", "collective_busbw_gbps", "p2p_gbps", "latency_us"});
  if (from_scratch) {
    links->require({"fabric", "collective_busbw_gbps", "p2p_gbps", "latency_us"});
  }
  links->read("name", link.name);
  links->read_choice("fabric", link.fabric, fabric_choices());
  links->read("collective_busbw_gbps", link.collective_busbw_gbps, NumberRule::positive);
  links->read("p2p_gbps", link.p2p_gbps, NumberRule::positive);
  links->read("latency_us", link.latency_us, NumberRule::non_negative);
}

void read_inter_node(MappingReader& reader, cluster::InterNodeLink& link, bool from_scratch) {
  std::optional<MappingReader> links = reader.child("inter_node");
  if (!links) {
    return;
  }
  links->reject_unknown_keys({"name", "nics_per_host", "nics_per_node", "nic_busbw_gbps", "latency_us"});
  if (from_scratch && !links->has("nics_per_node")) {
    links->require({"nics_per_host"});
  }
  if (from_scratch) {
    links->require({"nic_busbw_gbps", "latency_us"});
  }
  only_one_of(*links, "nics_per_host", "nics_per_node");
  links->read("name", link.name);
  links->read("nics_per_host", link.nics_per_host);
  links->read("nics_per_node", link.nics_per_host);
  links->read("nic_busbw_gbps", link.nic_busbw_gbps, NumberRule::positive);
  links->read("latency_us", link.latency_us, NumberRule::non_negative);
}

//! A base whose domain spans several hosts (an NVL72 rack) keeps its domain's GPUs when a file
//! gives only gpus_per_host: the rack does not grow with its trays. The hosts must fill it.
void keep_multi_host_domain(MappingReader& reader, ClusterSpec& cluster, int base_gpus_per_host) {
  const int domain = base_gpus_per_host * cluster.hosts_per_domain;
  if (cluster.gpus_per_host <= 0 || domain % cluster.gpus_per_host != 0) {
    reader.report("gpus_per_host", std::to_string(cluster.gpus_per_host) + "-GPU hosts do not fill the " +
                                       std::to_string(domain) +
                                       "-GPU scale-up domain of the base cluster (the hosts of a domain must "
                                       "divide it); give gpus_per_domain as well");
    return;
  }
  cluster.hosts_per_domain = domain / cluster.gpus_per_host;
}

//! gpus_per_host and gpus_per_domain, or the older gpus_per_node, which means a host that is a
//! whole domain. Without gpus_per_domain a one-host domain stays one host and a multi-host domain
//! keeps its GPUs.
void read_topology(MappingReader& reader, ClusterSpec& cluster) {
  only_one_of(reader, "num_hosts", "num_nodes");
  only_one_of(reader, "gpus_per_host", "gpus_per_node");
  reader.read("num_hosts", cluster.num_hosts);
  reader.read("num_nodes", cluster.num_hosts);
  if (reader.read("gpus_per_node", cluster.gpus_per_host)) {
    cluster.hosts_per_domain = 1;
    if (reader.has("gpus_per_domain")) {
      reader.report("gpus_per_domain", "gpus_per_node means a host that is one whole domain; give gpus_per_host "
                                       "with gpus_per_domain");
    }
    return;
  }
  const int base_gpus_per_host = cluster.gpus_per_host;
  const bool new_host_size = reader.read("gpus_per_host", cluster.gpus_per_host);
  int domain = 0;
  if (!reader.read("gpus_per_domain", domain)) {
    if (new_host_size && cluster.hosts_per_domain > 1) {
      keep_multi_host_domain(reader, cluster, base_gpus_per_host);
    }
    return;
  }
  if (domain % cluster.gpus_per_host != 0) {
    reader.report("gpus_per_domain", "expected a whole number of " + std::to_string(cluster.gpus_per_host) +
                                         "-GPU hosts, got " + std::to_string(domain) + " GPUs");
    return;
  }
  cluster.hosts_per_domain = domain / cluster.gpus_per_host;
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

//! `host_groups`: a list of {gpu, hosts}, each GPU a name, a file or a mapping as `gpu` takes it.
//! The cluster's hosts are the groups' in order; one GPU in every group makes a one-type cluster.
void read_host_groups(MappingReader& reader, ClusterSpec& cluster, bool has_base_cluster, const std::string& file,
                      const GpuResolver& resolve_gpu) {
  for (const char* key : {"gpu", "num_hosts", "num_nodes"}) {
    if (reader.has(key)) {
      reader.report(
          key, std::string("host_groups give each group's GPU and hosts; give ") + key + " inside each group instead");
    }
  }
  std::vector<cluster::HostGroup> groups;
  for (MappingReader& item : reader.children("host_groups")) {
    item.reject_unknown_keys({"gpu", "hosts"});
    item.require({"gpu", "hosts"});
    ClusterSpec holder = cluster;
    if (item.has("gpu")) read_gpu(item, holder, has_base_cluster, file, resolve_gpu);
    cluster::HostGroup group{holder.gpu, 0};
    if (!item.read("hosts", group.hosts)) continue;
    groups.push_back(group);
  }
  if (groups.empty()) return;
  cluster.gpu = groups.front().gpu;
  cluster.num_hosts = 0;
  bool one_type = true;
  for (const auto& group : groups) {
    cluster.num_hosts += group.hosts;
    one_type = one_type && group.gpu == groups.front().gpu;
  }
  if (!one_type) cluster.host_groups = std::move(groups);
}

}  // namespace

ClusterSpec read_cluster_mapping(MappingReader& reader, const ClusterSpec* base, const std::string& file,
                                 const GpuResolver& resolve_gpu) {
  reader.reject_unknown_keys({"name", "description", "source", "base", "gpu", "host_groups", "num_hosts",
                              "gpus_per_host", "gpus_per_domain", "intra_node", "inter_node", "num_nodes",
                              "gpus_per_node", "host_cpu"});
  const bool from_scratch = base == nullptr && !reader.has("base");
  if (from_scratch && !reader.has("gpus_per_node")) {
    reader.require({"gpus_per_host"});
  }
  if (from_scratch) {
    reader.require({"intra_node", "inter_node"});
    if (!reader.has("host_groups")) reader.require({"gpu"});
  }
  ClusterSpec cluster = base != nullptr ? *base : ClusterSpec{};
  cluster.name = file_stem(file);
  cluster.description = base != nullptr ? "'" + base->name + "' with the overrides of " + file : "cluster file " + file;
  cluster.source = base != nullptr ? file + "; base: " + base->source : file;
  reader.read("name", cluster.name);
  reader.read("description", cluster.description);
  reader.read("source", cluster.source);
  if (reader.has("host_groups")) {
    read_host_groups(reader, cluster, base != nullptr, file, resolve_gpu);
  } else if (reader.has("gpu")) {
    read_gpu(reader, cluster, base != nullptr, file, resolve_gpu);
    cluster.host_groups.clear();
  }
  if (cluster.mixed() && !reader.has("host_groups")) {
    for (const char* key : {"num_hosts", "num_nodes"}) {
      if (reader.has(key))
        reader.report(key, "the base cluster's host_groups give its hosts; give host_groups instead");
    }
  }
  read_topology(reader, cluster);
  read_intra_node(reader, cluster.intra_node, from_scratch);
  read_inter_node(reader, cluster.inter_node, from_scratch);
  reader.read_choice("host_cpu", cluster.host_cpu, host_cpu_choices());
  return cluster;
}

}  // namespace distsim::io
