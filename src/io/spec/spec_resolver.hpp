#pragma once

#include <string>

#include "cluster/cluster_spec.hpp"
#include "cluster/gpu_spec.hpp"
#include "model/model_spec.hpp"
#include "options/job_option.hpp"

namespace distsim::io {

// Each resolve_* turns what a user typed (`--model gpt3-175b`, `--cluster my_cluster.yaml`) into
// a spec. A value that looks like a path (it ends in .yaml, .yml or .json, or contains a '/') is
// read as a file; anything else must be a built-in catalog name. A file may start with
// `base: <name or path>` and override keys of that entry; a relative base path is taken from the
// including file's folder. Every problem is an InputError; those of one file come in one error,
// one problem per line ("model.yaml:3: num_layers: expected a positive integer, got 'many'").

//! A built-in model, a model file in distsim's schema (YAML or JSON), or a Hugging Face
//! config.json (recognised by its `model_type` or its key names).
model::ModelSpec resolve_model(const std::string& name_or_path);

//! A built-in GPU or a GPU file.
cluster::GpuSpec resolve_gpu(const std::string& name_or_path);

//! A built-in node design or a cluster file; a file names its GPU by built-in name, by path, or as
//! an inline mapping of GPU fields.
cluster::ClusterSpec resolve_cluster(const std::string& name_or_path);

//! The three resolvers above, for assembling a job from its settings.
options::SpecResolvers spec_resolvers();

}  // namespace distsim::io
