#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "catalog/attention_kernels.hpp"
#include "cluster/cluster_spec.hpp"
#include "model/model_spec.hpp"

namespace distsim::io {

// A spec is written as the mapping its reader takes (model_file_reader, gpu_file_reader,
// cluster_file_reader): every field under its key, in the reader's order, so that reading it back
// gives the same spec. The *_json forms hold typed values (numbers as numbers) for JSON outputs and
// inline specs of a job; the *_yaml forms are the same mapping as a YAML file, numbers in their
// shortest exact form. `distsim show` prints built-in entries this way for a user to edit and pass
// back, and `distsim list --json` prints every entry of a catalog this way.

nlohmann::ordered_json model_json(const model::ModelSpec& model);
nlohmann::ordered_json gpu_json(const cluster::GpuSpec& gpu);
//! The cluster with its GPU as an inline mapping of GPU fields.
nlohmann::ordered_json cluster_json(const cluster::ClusterSpec& cluster);

//! An attention kernel with the rate, the fraction of the 16-bit peak and the source of every
//! architecture it is measured on (none for "generic").
nlohmann::ordered_json attention_kernel_json(const catalog::AttentionKernel& kernel);

//! The cluster's hosts for a job line: "4 x 8 h100-sxm", or on a cluster of several GPU types each
//! host group's, "2 x 8 h100-sxm + 2 x 8 a100-sxm4-80gb" (`times` between the counts).
std::string hosts_text(const cluster::ClusterSpec& cluster, std::string_view times = " x ");

std::string model_yaml(const model::ModelSpec& model);
std::string gpu_yaml(const cluster::GpuSpec& gpu);
std::string cluster_yaml(const cluster::ClusterSpec& cluster);

//! A mapping on one line in YAML's flow style, "{name: tiny, num_layers: 2, ...}": the form a
//! spec takes inline in a job's settings (`--model '{...}'`, resolved by io::resolve_model).
std::string flow_yaml(const nlohmann::ordered_json& mapping);

}  // namespace distsim::io
