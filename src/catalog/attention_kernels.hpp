#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "cluster/gpu_spec.hpp"

namespace distsim::catalog {

//! The attention kernel a job names when it names none: fused attention at a fixed fraction of the
//! GPU's own GEMM ceiling (docs/cost_models.md §2), for any GPU.
inline constexpr std::string_view kGenericAttentionKernel = "generic";

//! One measurement of a fused attention kernel: forward plus backward of a causal, head-dim-128
//! training shape, FLOPs counted as distsim counts them (4·b·heads·s²·d halved by the mask,
//! ×2.5 for backward), on one GPU of an architecture.
struct AttentionKernelRate {
  std::string architecture;  //!< the GpuSpec::architecture the rate holds for
  std::string measured_on;   //!< the GPU of the measurement
  double tflops = 0;         //!< measured 16-bit rate
  double peak_tflops = 0;    //!< that GPU's dense bf16 peak
  std::string source;

  //! The fraction of the 16-bit tensor peak the kernel reaches; another part of the same
  //! architecture runs it at that fraction of its own peak.
  double fraction_of_peak() const { return tflops / peak_tflops; }
};

//! A fused attention library release with its measured rates, one per architecture measured.
struct AttentionKernel {
  std::string name;
  std::string description;
  std::vector<AttentionKernelRate> rates;

  //! The rate measured on this architecture, or nullptr.
  const AttentionKernelRate* rate_on(std::string_view architecture) const;
};

//! The named kernels, each with its sources (docs/cost_models.md §2.1).
const std::vector<AttentionKernel>& attention_kernels();

//! "generic" (no measurement) first, then every named kernel: the values of --attention-kernel,
//! with what each means.
const std::vector<AttentionKernel>& attention_kernel_choices();

//! The names of attention_kernel_choices, in order.
std::vector<std::string> attention_kernel_names();

//! The named kernel; throws InputError naming the closest one.
const AttentionKernel& find_attention_kernel(std::string_view name);

//! The named kernel's rate on the GPU, or nullptr when its architecture has none.
const AttentionKernelRate* attention_kernel_rate(std::string_view kernel, const cluster::GpuSpec& gpu);

//! The kernel's measured architectures with the GPU each was measured on: "hopper (H100 SXM5 80GB)".
std::string measured_architectures(const AttentionKernel& kernel);

}  // namespace distsim::catalog
