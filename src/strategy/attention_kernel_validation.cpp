#include "catalog/attention_kernels.hpp"
#include "catalog/builtin_gpus.hpp"
#include "strategy/job_checks.hpp"

namespace distsim::strategy::detail {

namespace {

//! The built-in GPUs of the architectures the kernel is measured on.
std::string builtin_gpus_measured(const catalog::AttentionKernel& kernel) {
  std::string list;
  for (const auto& name : catalog::gpu_names()) {
    if (kernel.rate_on(catalog::find_gpu(name).architecture) != nullptr) {
      list += (list.empty() ? "" : ", ") + name;
    }
  }
  return list;
}

}  // namespace

void check_attention_kernel(const JobSpec& job, const SettingNames& names, Problems& problems) {
  const Strategy& s = job.strategy;
  if (s.attention_kernel == catalog::kGenericAttentionKernel) {
    return;
  }
  const std::string setting = name_of(names, "attention_kernel") + " " + quoted(s.attention_kernel);
  if (s.attention == Attention::unfused) {
    problems.push_back(setting + " names a fused attention kernel, but attention is 'unfused'; use attention 'flash' "
                                 "or attention_kernel 'generic'");
    return;
  }
  if (s.dtype != Dtype::bf16 && s.dtype != Dtype::fp16) {
    problems.push_back(setting + " is measured in 16-bit attention, got dtype '" + std::string(dtype_name(s.dtype)) +
                       "'; use dtype bf16 or fp16, or attention_kernel 'generic'");
  }
  const catalog::AttentionKernel& kernel = catalog::find_attention_kernel(s.attention_kernel);
  for (const int type : job.cluster.gpu_types()) {
    const cluster::GpuSpec& gpu = job.cluster.gpu_of_type(type);
    if (kernel.rate_on(gpu.architecture) == nullptr) {
      const std::string architecture = gpu.architecture.empty() ? "an architecture the GPU file does not name"
                                                                : "architecture " + quoted(gpu.architecture);
      problems.push_back(setting + " has no rate measured on gpu " + quoted(gpu.name) + " (" + architecture +
                         "); it is measured on " + catalog::measured_architectures(kernel) +
                         "; built-in GPUs it runs on: " + builtin_gpus_measured(kernel) +
                         "; use attention_kernel 'generic' for the GPU's own GEMM-derived rate");
    }
  }
}

}  // namespace distsim::strategy::detail
