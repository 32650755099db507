#include "io/spec/gpu_file_reader.hpp"

#include <algorithm>
#include <cmath>

#include "catalog/builtin_clusters.hpp"
#include "core/closest_name.hpp"

namespace distsim::io {

namespace {

using cluster::GpuSpec;

// Defaults for a GPU described from scratch, from docs/reference/hardware.md: GEMMs reach
// ~0.80 of the tensor peak (A100 0.82-0.87, H100/H200 0.80, B200 0.78; §5.2) and fp8 GEMMs ~0.70;
// streaming kernels reach 0.85 of the memory bandwidth (§6); the launch overhead is the
// catalog's 4 µs (catalog/builtin_gpus.cpp explains it).
constexpr double kDefaultGemmEfficiency = 0.80;
constexpr double kDefaultFp8GemmEfficiency = 0.70;
// nvfp4 GEMMs: the catalog's B200 figure, cuBLASLt FP4 5239 of 10000 TFLOPS x 0.848
// (catalog/builtin_gpus.cpp explains it).
constexpr double kDefaultFp4GemmEfficiency = 0.44;
constexpr double kDefaultMemoryEfficiency = 0.85;
constexpr double kDefaultKernelLaunchUs = 4.0;

GpuSpec from_scratch() {
  GpuSpec gpu;
  gpu.gemm_efficiency = kDefaultGemmEfficiency;
  gpu.memory_efficiency = kDefaultMemoryEfficiency;
  gpu.kernel_launch_us = kDefaultKernelLaunchUs;
  return gpu;
}

void read_rates(MappingReader& reader, GpuSpec& gpu) {
  reader.read("peak_fp16_tflops", gpu.peak_fp16_tflops, NumberRule::positive);
  reader.read("peak_bf16_tflops", gpu.peak_bf16_tflops, NumberRule::non_negative);
  reader.read("peak_fp8_tflops", gpu.peak_fp8_tflops, NumberRule::non_negative);
  reader.read("peak_mxfp8_tflops", gpu.peak_mxfp8_tflops, NumberRule::non_negative);
  reader.read("peak_fp4_tflops", gpu.peak_fp4_tflops, NumberRule::non_negative);
  reader.read("peak_fp32_tflops", gpu.peak_fp32_tflops, NumberRule::positive);
  reader.read("memory_gb", gpu.memory_gb, NumberRule::positive);
  reader.read("memory_bandwidth_gbps", gpu.memory_bandwidth_gbps, NumberRule::positive);
  reader.read("sm_count", gpu.sm_count);
  reader.read("gemm_efficiency", gpu.gemm_efficiency, NumberRule::fraction);
  reader.read("fp8_gemm_efficiency", gpu.fp8_gemm_efficiency, NumberRule::fraction_or_zero);
  reader.read("fp4_gemm_efficiency", gpu.fp4_gemm_efficiency, NumberRule::fraction_or_zero);
  reader.read("memory_efficiency", gpu.memory_efficiency, NumberRule::fraction);
  reader.read("kernel_launch_us", gpu.kernel_launch_us, NumberRule::non_negative);
  reader.read("tdp_w", gpu.tdp_w, NumberRule::non_negative);
}

//! The architecture must be one distsim knows: the named attention kernels are measured per
//! architecture.
void read_architecture(MappingReader& reader, GpuSpec& gpu) {
  std::string name;
  if (!reader.read("architecture", name)) {
    return;
  }
  const std::vector<std::string> known(cluster::kGpuArchitectures.begin(), cluster::kGpuArchitectures.end());
  if (std::find(known.begin(), known.end(), name) == known.end()) {
    reader.report("architecture", unknown_name_message("architecture", name, known));
    return;
  }
  gpu.architecture = name;
}

//! The node design must be a built-in one: the CLI builds the cluster from it.
void read_default_cluster(MappingReader& reader, GpuSpec& gpu) {
  std::string name;
  if (!reader.read("default_cluster", name)) {
    return;
  }
  const auto names = catalog::cluster_names();
  if (std::find(names.begin(), names.end(), name) == names.end()) {
    reader.report("default_cluster", unknown_name_message("cluster", name, names));
    return;
  }
  gpu.default_cluster = name;
}

//! A derived GPU with another power limit runs at other clocks, which distsim does not derive from
//! watts: the file must also say what the part sustains (a peak or an efficiency), or the job
//! would be priced at the base's rates as if the limit did not exist.
void check_power_limit(MappingReader& reader, const GpuSpec& gpu, const GpuSpec* base) {
  if (base == nullptr || !reader.has("tdp_w") || gpu.tdp_w == base->tdp_w) {
    return;
  }
  for (const char* rate : {"peak_fp16_tflops", "peak_bf16_tflops", "peak_fp8_tflops", "peak_mxfp8_tflops",
                           "peak_fp4_tflops", "gemm_efficiency", "fp8_gemm_efficiency", "fp4_gemm_efficiency"}) {
    if (reader.has(rate)) {
      return;
    }
  }
  reader.report("tdp_w", "a power limit of " + std::to_string(std::lround(gpu.tdp_w)) + " W against the " +
                             std::to_string(std::lround(base->tdp_w)) + " W of '" + base->name +
                             "' changes the clocks, which distsim does not derive from watts; give the rates the part "
                             "sustains at that limit as well (gemm_efficiency, fp8_gemm_efficiency or the peaks)");
}

}  // namespace

GpuSpec read_gpu_mapping(MappingReader& reader, const GpuSpec* base, const std::string& default_name,
                         const std::string& file) {
  reader.reject_unknown_keys({"name",
                              "description",
                              "source",
                              "base",
                              "architecture",
                              "peak_fp16_tflops",
                              "peak_bf16_tflops",
                              "peak_fp8_tflops",
                              "peak_mxfp8_tflops",
                              "peak_fp4_tflops",
                              "peak_fp32_tflops",
                              "memory_gb",
                              "memory_bandwidth_gbps",
                              "sm_count",
                              "gemm_efficiency",
                              "fp8_gemm_efficiency",
                              "fp4_gemm_efficiency",
                              "memory_efficiency",
                              "kernel_launch_us",
                              "tdp_w",
                              "default_cluster"});
  if (base == nullptr && !reader.has("base")) {
    reader.require({"peak_fp16_tflops", "peak_fp32_tflops", "memory_gb", "memory_bandwidth_gbps", "sm_count"});
  }
  GpuSpec gpu = base != nullptr ? *base : from_scratch();
  gpu.name = default_name;
  gpu.description = base != nullptr ? "'" + base->name + "' with the overrides of " + file : "GPU file " + file;
  gpu.source = base != nullptr ? file + "; base: " + base->source : file;
  reader.read("name", gpu.name);
  reader.read("description", gpu.description);
  reader.read("source", gpu.source);
  read_architecture(reader, gpu);
  read_rates(reader, gpu);
  check_power_limit(reader, gpu, base);
  read_default_cluster(reader, gpu);
  // A GPU given fp8 tensor cores without a measured efficiency gets the typical one.
  if (!reader.has("fp8_gemm_efficiency") && gpu.peak_fp8_tflops > 0 && gpu.fp8_gemm_efficiency == 0) {
    gpu.fp8_gemm_efficiency = kDefaultFp8GemmEfficiency;
  }
  if (gpu.peak_fp8_tflops == 0 && gpu.peak_mxfp8_tflops == 0) {
    gpu.fp8_gemm_efficiency = 0;
  }
  if (!reader.has("fp4_gemm_efficiency") && gpu.peak_fp4_tflops > 0 && gpu.fp4_gemm_efficiency == 0) {
    gpu.fp4_gemm_efficiency = kDefaultFp4GemmEfficiency;
  }
  if (gpu.peak_fp4_tflops == 0) {
    gpu.fp4_gemm_efficiency = 0;
  }
  return gpu;
}

}  // namespace distsim::io
