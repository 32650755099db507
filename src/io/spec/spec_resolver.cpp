#include "io/spec/spec_resolver.hpp"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <vector>

#include "catalog/builtin_clusters.hpp"
#include "catalog/builtin_gpus.hpp"
#include "catalog/builtin_models.hpp"
#include "core/input_error.hpp"
#include "io/document/document.hpp"
#include "io/spec/cluster_file_reader.hpp"
#include "io/spec/gpu_file_reader.hpp"
#include "io/spec/hf_config_reader.hpp"
#include "io/spec/model_file_reader.hpp"

namespace distsim::io {

namespace {

namespace fs = std::filesystem;

//! Where a name is being resolved from: the chain of files whose `base:` (or `gpu:`) led here,
//! outermost first. Relative paths are taken from the last file's folder; a file that appears
//! twice in the chain would recurse forever.
using Chain = std::vector<std::string>;

std::string locate(const std::string& name_or_path, const Chain& chain) {
  if (chain.empty() || fs::path(name_or_path).is_absolute()) {
    return name_or_path;
  }
  return (fs::path(chain.back()).parent_path() / name_or_path).lexically_normal().string();
}

//! The chain for names found inside `path`; throws when `path` is already in it.
Chain enter(const std::string& path, const Chain& chain) {
  std::error_code ignored;
  const fs::path key = fs::weakly_canonical(path, ignored);
  const auto same_file = [&](const std::string& other) { return fs::weakly_canonical(other, ignored) == key; };
  if (std::any_of(chain.begin(), chain.end(), same_file)) {
    std::string cycle;
    for (const auto& file : chain) {
      cycle += file + " -> ";
    }
    throw InputError("the base files form a cycle: " + cycle + path);
  }
  Chain inner = chain;
  inner.push_back(path);
  return inner;
}

model::ModelSpec model_at(const std::string& name_or_path, const Chain& chain);
cluster::GpuSpec gpu_at(const std::string& name_or_path, const Chain& chain);
cluster::ClusterSpec cluster_at(const std::string& name_or_path, const Chain& chain);

model::ModelSpec read_model_document(const Document& document, const Chain& inner) {
  Diagnostics diagnostics(document.path);
  MappingReader reader(document.root, "", diagnostics);
  model::ModelSpec model;
  if (is_hf_config(document.root)) {
    model = read_hf_config(reader, document.path);
  } else {
    const auto base =
        read_base<model::ModelSpec>(reader, [&](const std::string& name) { return model_at(name, inner); });
    model = read_model_mapping(reader, base ? &*base : nullptr, document.path);
  }
  diagnostics.throw_if_any();
  return model;
}

cluster::GpuSpec read_gpu_document(const Document& document, const std::string& default_name, const Chain& inner) {
  Diagnostics diagnostics(document.path);
  MappingReader reader(document.root, "", diagnostics);
  const auto base = read_base<cluster::GpuSpec>(reader, [&](const std::string& name) { return gpu_at(name, inner); });
  cluster::GpuSpec gpu = read_gpu_mapping(reader, base ? &*base : nullptr, default_name, document.path);
  diagnostics.throw_if_any();
  return gpu;
}

cluster::ClusterSpec read_cluster_document(const Document& document, const Chain& inner) {
  Diagnostics diagnostics(document.path);
  MappingReader reader(document.root, "", diagnostics);
  const auto base =
      read_base<cluster::ClusterSpec>(reader, [&](const std::string& name) { return cluster_at(name, inner); });
  const GpuResolver gpus = [&](const std::string& name) { return gpu_at(name, inner); };
  cluster::ClusterSpec cluster = read_cluster_mapping(reader, base ? &*base : nullptr, document.path, gpus);
  diagnostics.throw_if_any();
  return cluster;
}

// An inline mapping is read as a file would be; it enters no chain, since it has no path of its own.

//! Whether `name_or_path` is read as a file: it is spelt as a path, or it is no built-in's name
//! but an existing file's ("garbage.bin", a FIFO "gpu.fifo"), which is then read and refused as
//! what it holds rather than called an unknown name.
template <typename FindBuiltin>
bool names_file(const std::string& name_or_path, FindBuiltin find_builtin) {
  if (looks_like_path(name_or_path)) return true;
  std::error_code error;
  if (!std::filesystem::exists(name_or_path, error)) return false;
  try {
    find_builtin(name_or_path);
    return false;
  } catch (const InputError&) {
    return true;
  }
}

model::ModelSpec model_at(const std::string& name_or_path, const Chain& chain) {
  if (is_inline_mapping(name_or_path)) {
    return read_model_document(load_inline_document(name_or_path, "inline model"), chain);
  }
  if (!names_file(name_or_path, [](const std::string& name) { return catalog::find_model(name); })) {
    return catalog::find_model(name_or_path);
  }
  const std::string path = locate(name_or_path, chain);
  return read_model_document(load_document(path, "model file"), enter(path, chain));
}

cluster::GpuSpec gpu_at(const std::string& name_or_path, const Chain& chain) {
  if (is_inline_mapping(name_or_path)) {
    return read_gpu_document(load_inline_document(name_or_path, "inline GPU"), "", chain);
  }
  if (!names_file(name_or_path, [](const std::string& name) { return catalog::find_gpu(name); })) {
    return catalog::find_gpu(name_or_path);
  }
  const std::string path = locate(name_or_path, chain);
  return read_gpu_document(load_document(path, "GPU file"), file_stem(path), enter(path, chain));
}

cluster::ClusterSpec cluster_at(const std::string& name_or_path, const Chain& chain) {
  if (is_inline_mapping(name_or_path)) {
    return read_cluster_document(load_inline_document(name_or_path, "inline cluster"), chain);
  }
  if (!names_file(name_or_path, [](const std::string& name) { return catalog::find_cluster(name); })) {
    return catalog::find_cluster(name_or_path);
  }
  const std::string path = locate(name_or_path, chain);
  return read_cluster_document(load_document(path, "cluster file"), enter(path, chain));
}

}  // namespace

model::ModelSpec resolve_model(const std::string& name_or_path) { return model_at(name_or_path, {}); }

cluster::GpuSpec resolve_gpu(const std::string& name_or_path) { return gpu_at(name_or_path, {}); }

cluster::ClusterSpec resolve_cluster(const std::string& name_or_path) { return cluster_at(name_or_path, {}); }

options::SpecResolvers spec_resolvers() { return {resolve_model, resolve_gpu, resolve_cluster}; }

}  // namespace distsim::io
