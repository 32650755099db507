#include "catalog/attention_kernels.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "catalog/builtin_gpus.hpp"
#include "core/input_error.hpp"

namespace distsim::catalog {

// The rates of docs/cost_models.md §2.1 as fractions of the measuring GPU's bf16 peak.
TEST(AttentionKernels, EachRateIsItsMeasurementOverThePeakOfTheGpuMeasured) {
  EXPECT_NEAR(find_attention_kernel("cudnn-9.0").rate_on("hopper")->fraction_of_peak(), 320.4 / 989.4, 1e-12);
  EXPECT_NEAR(find_attention_kernel("cudnn-9.3").rate_on("hopper")->fraction_of_peak(), 514.0 / 989.4, 1e-12);
  EXPECT_NEAR(find_attention_kernel("flash-attn-2").rate_on("ampere")->fraction_of_peak(), 185.5 / 312.0, 1e-12);
  // FlashAttention-3: forward 646 and backward 559 TFLOP/s, the backward 2.5 times the forward's
  // FLOPs: 3.5 / (1/646 + 2.5/559) = 581.370 TFLOP/s.
  EXPECT_NEAR(find_attention_kernel("flash-attn-3").rate_on("hopper")->tflops, 581.370, 1e-3);
  EXPECT_EQ(find_attention_kernel("flash-attn-3").rate_on("ampere"), nullptr);
  EXPECT_EQ(find_attention_kernel("cudnn-9.0").rate_on("blackwell"), nullptr);
  EXPECT_EQ(find_attention_kernel("cudnn-9.0").rate_on(""), nullptr);
}

TEST(AttentionKernels, TheGenericKernelComesFirstAndNeedsNoRate) {
  const auto names = attention_kernel_names();
  ASSERT_FALSE(names.empty());
  EXPECT_EQ(names.front(), "generic");
  EXPECT_EQ(attention_kernel_rate("generic", find_gpu("h100-sxm")), nullptr);
  EXPECT_NE(attention_kernel_rate("cudnn-9.0", find_gpu("h200")), nullptr);
}

TEST(AttentionKernels, AnUnknownNameSuggestsTheClosest) {
  try {
    find_attention_kernel("cudnn-9.1");
    FAIL() << "expected an InputError";
  } catch (const InputError& error) {
    EXPECT_STREQ(error.what(),
                 "unknown attention kernel 'cudnn-9.1'; did you mean 'cudnn-9.0'? (known: cudnn-9.0, cudnn-9.3, "
                 "flash-attn-2, flash-attn-3)");
  }
}

TEST(AttentionKernels, EveryBuiltInGpuNamesAKnownArchitecture) {
  for (const auto& gpu : builtin_gpus()) {
    SCOPED_TRACE(gpu.name);
    EXPECT_NE(std::find(cluster::kGpuArchitectures.begin(), cluster::kGpuArchitectures.end(), gpu.architecture),
              cluster::kGpuArchitectures.end());
  }
}

TEST(AttentionKernels, NamesTheArchitecturesMeasured) {
  EXPECT_EQ(measured_architectures(find_attention_kernel("flash-attn-2")),
            "ampere (A100 SXM4 80GB), hopper (H100 SXM5 80GB)");
}

}  // namespace distsim::catalog
