#pragma once

#include <string>

#include "cluster/cluster_spec.hpp"
#include "model/model_spec.hpp"

namespace distsim::io {

// Each *_yaml writes a spec as the file its reader takes (model_file_reader, gpu_file_reader,
// cluster_file_reader): every field under its key, numbers in their shortest exact form, so that
// reading the text back gives the same spec. `distsim show` prints built-in entries this way for
// a user to edit and pass back.

std::string model_yaml(const model::ModelSpec& model);
std::string gpu_yaml(const cluster::GpuSpec& gpu);
//! The cluster with its GPU as an inline mapping of GPU fields.
std::string cluster_yaml(const cluster::ClusterSpec& cluster);

}  // namespace distsim::io
