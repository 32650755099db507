#include "catalog/attention_kernels.hpp"

#include "catalog/builtin_gpus.hpp"
#include "catalog/find_by_name.hpp"

namespace distsim::catalog {

namespace {

// TransformerEngine's attention notebook (docs/examples/attention/attention.ipynb, running
// benchmarks/attention/benchmark_attention.py case test_3 on an H100 80GB HBM3: b = 2, 32 query
// and 4 KV heads of 128, s = 8192, causal, forward + backward = 3.848e12 FLOPs) in its two
// published versions (docs/cost_models.md §2.1).
constexpr const char* kTeNotebookFirst =
    "TransformerEngine attention.ipynb, first version (June 2024, 'TE 1.7, cuDNN 9.0'): 12.0122 ms for 3.848e12 "
    "FLOPs";
constexpr const char* kTeNotebookCurrent =
    "TransformerEngine attention.ipynb, current version ('TE 2.0, cuDNN 9.3'): cuDNN 7.4875 ms, flash-attn 2.4.2 "
    "11.8879 ms for 3.848e12 FLOPs";
// FlashAttention-3 (Shah et al., arXiv 2407.08608), Figs. 5 and 6 on an H100 80GB SXM5, head
// dimension 128, s = 8K: forward 646 and backward 559 TFLOP/s (the backward figure has no causal
// variant). Forward plus backward at distsim's 1 : 2.5 FLOP split: 3.5 / (1/646 + 2.5/559).
constexpr double kFa3Forward = 646.0;
constexpr double kFa3Backward = 559.0;
constexpr double kFa3Tflops = 3.5 / (1.0 / kFa3Forward + 2.5 / kFa3Backward);

//! The entry of "generic": no measurement, the GPU's GEMM ceiling times the cost model's 0.68.
AttentionKernel generic_kernel() {
  return {std::string(kGenericAttentionKernel),
          "fused attention at 0.68 of the GPU's GEMM ceiling, on any GPU (FlashAttention-2's ratio on A100; "
          "docs/cost_models.md §2)",
          {}};
}

}  // namespace

const AttentionKernelRate* AttentionKernel::rate_on(std::string_view architecture) const {
  for (const auto& rate : rates) {
    if (!architecture.empty() && rate.architecture == architecture) return &rate;
  }
  return nullptr;
}

const std::vector<AttentionKernel>& attention_kernels() {
  static const std::vector<AttentionKernel> kernels = [] {
    // Each rate is a fraction of the peak of the catalog's entry for the GPU measured.
    const double h100_peak = find_gpu("h100-sxm").peak_bf16_tflops;
    const double a100_peak = find_gpu("a100-80gb").peak_bf16_tflops;
    return std::vector<AttentionKernel>{
        {"cudnn-9.0",
         "cuDNN 9.0's fused attention through TransformerEngine (NGC containers of early 2024)",
         {{"hopper", "H100 SXM5 80GB", 320.4, h100_peak, kTeNotebookFirst}}},
        {"cudnn-9.3",
         "cuDNN 9.3's fused attention through TransformerEngine 2.0 (the latest release measured)",
         {{"hopper", "H100 SXM5 80GB", 514.0, h100_peak, kTeNotebookCurrent}}},
        {"flash-attn-2",
         "FlashAttention-2 (Dao, arXiv 2307.08691)",
         {// FA2 Figs. 5 and 6, A100 80GB SXM4, head dimension 128, s = 4K-16K: forward 224 / 148 and
          // backward 195 / 175 TFLOP/s without / with the causal mask, mean 185.5.
          {"ampere", "A100 SXM4 80GB", 185.5, a100_peak, "FlashAttention-2 paper, Figs. 5 and 6 (mean)"},
          {"hopper", "H100 SXM5 80GB", 323.7, h100_peak, kTeNotebookCurrent}}},
        {"flash-attn-3",
         "FlashAttention-3 (Shah et al., arXiv 2407.08608), Hopper only",
         {{"hopper", "H100 SXM5 80GB", kFa3Tflops, h100_peak,
           "FlashAttention-3 paper, Figs. 5 and 6, head dim 128, s = 8K: forward 646, backward 559 TFLOP/s"}}}};
  }();
  return kernels;
}

const std::vector<AttentionKernel>& attention_kernel_choices() {
  static const std::vector<AttentionKernel> choices = [] {
    std::vector<AttentionKernel> all{generic_kernel()};
    all.insert(all.end(), attention_kernels().begin(), attention_kernels().end());
    return all;
  }();
  return choices;
}

std::vector<std::string> attention_kernel_names() {
  std::vector<std::string> names;
  for (const auto& kernel : attention_kernel_choices()) names.push_back(kernel.name);
  return names;
}

const AttentionKernel& find_attention_kernel(std::string_view name) {
  return detail::find_by_name(attention_kernels(), name, "attention kernel");
}

const AttentionKernelRate* attention_kernel_rate(std::string_view kernel, const cluster::GpuSpec& gpu) {
  if (kernel == kGenericAttentionKernel) return nullptr;
  return find_attention_kernel(kernel).rate_on(gpu.architecture);
}

std::string measured_architectures(const AttentionKernel& kernel) {
  std::string text;
  for (const auto& rate : kernel.rates) {
    if (!text.empty()) text += ", ";
    text += rate.architecture + " (" + rate.measured_on + ")";
  }
  return text;
}

}  // namespace distsim::catalog
