#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "catalog/builtin_clusters.hpp"
#include "catalog/builtin_gpus.hpp"
#include "catalog/builtin_models.hpp"
#include "io/spec/spec_resolver.hpp"
#include "io/spec/spec_writer.hpp"

namespace distsim::io {

namespace {

std::string written(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / ("distsim_spec_writer_" + name + ".yaml");
  std::ofstream(path) << text;
  return path.string();
}

}  // namespace

// Every built-in entry written, read back by its reader and written again gives the same text:
// the writer leaves out no field the reader takes, and numbers survive the trip exactly.
TEST(SpecWriter, EveryBuiltInModelReadsBackTheSame) {
  for (const auto& model : catalog::builtin_models()) {
    SCOPED_TRACE(model.name);
    const std::string text = model_yaml(model);
    EXPECT_EQ(model_yaml(resolve_model(written("model", text))), text);
  }
}

TEST(SpecWriter, EveryBuiltInGpuReadsBackTheSame) {
  for (const auto& gpu : catalog::builtin_gpus()) {
    SCOPED_TRACE(gpu.name);
    const std::string text = gpu_yaml(gpu);
    EXPECT_EQ(gpu_yaml(resolve_gpu(written("gpu", text))), text);
  }
}

TEST(SpecWriter, EveryBuiltInClusterReadsBackTheSame) {
  for (const auto& cluster : catalog::builtin_clusters()) {
    SCOPED_TRACE(cluster.name);
    const std::string text = cluster_yaml(cluster);
    EXPECT_EQ(cluster_yaml(resolve_cluster(written("cluster", text))), text);
  }
}

}  // namespace distsim::io
