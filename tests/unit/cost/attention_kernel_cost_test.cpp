#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "catalog/builtin_clusters.hpp"
#include "catalog/builtin_gpus.hpp"
#include "core/input_error.hpp"
#include "cost/analytical_cost_model.hpp"
#include "events/event_factory.hpp"

namespace distsim::cost {

namespace {

cluster::ClusterSpec h100_node() {
  cluster::ClusterSpec cluster = catalog::find_cluster("dgx-h100");
  cluster.gpu = catalog::find_gpu("h100-sxm");
  return cluster;
}

SimTime attention_duration(const cluster::ClusterSpec& cluster, std::string_view kernel, const events::Event& event) {
  return AnalyticalCostModel(cluster, kernel).cost(event).duration;
}

//! One causal forward of Llama-3-8B-like attention: b = 1, 32 query and 8 KV heads of 128, s = 8192.
events::Event causal_forward() {
  return events::EventFactory(Dtype::bf16).attention(false, 1, 32, 8, 8192, 8192, 128, true, 0);
}

}  // namespace

// 4 · 32 · 8192² · 128 / 2 = 549,755,813,888 FLOPs; the streamed bytes (Q, K, V, O: 2 · (2 · 33.6M
// + 2 · 8.4M) · 2 B) take about 72 µs at the H100's achieved bandwidth, so the FLOPs decide.
TEST(AttentionKernelCost, ANamedKernelRunsAtItsMeasuredRate) {
  // cuDNN 9.0 at 320.4 TFLOP/s: 549,755,813,888 / 320.4e12 = 1,715,842.1 ns, + 4 µs launch.
  EXPECT_EQ(attention_duration(h100_node(), "cudnn-9.0", causal_forward()), 1'719'842);
  // cuDNN 9.3 at 514.0 TFLOP/s: 1,069,563.8 ns, + 4 µs.
  EXPECT_EQ(attention_duration(h100_node(), "cudnn-9.3", causal_forward()), 1'073'564);
  // The backward has 2.5 times the FLOPs at the same rate: 4,289,605.3 ns, + 4 µs.
  const events::Event backward = events::EventFactory(Dtype::bf16).attention(true, 1, 32, 8, 8192, 8192, 128, true, 0);
  EXPECT_EQ(attention_duration(h100_node(), "cudnn-9.0", backward), 4'293'605);
}

// The generic kernel keeps 0.68 of the GEMM ceiling: 0.848 · 794.5 · 0.68 = 458.2 TFLOP/s on H100,
// 549,755,813,888 / 458.19e12 = 1,199,855 ns, + 4 µs.
TEST(AttentionKernelCost, TheGenericKernelKeepsItsShareOfTheGemmCeiling) {
  const double rate = 230.0 / 271.2 * 794.5 * 0.68 * 1e12;
  const auto expected = static_cast<SimTime>(std::llround(549'755'813'888.0 / rate * 1e9)) + 4'000;
  EXPECT_EQ(attention_duration(h100_node(), "generic", causal_forward()), expected);
  EXPECT_EQ(expected, 1'203'855);
}

// A part of the same architecture runs the kernel at the same fraction of its own peak: an H100
// given a 500 TFLOP/s bf16 peak runs cuDNN 9.0 at 500 · 320.4 / 989.4 = 161.916 TFLOP/s,
// 549,755,813,888 / 161.916e12 = 3,395,308 ns, + 4 µs.
TEST(AttentionKernelCost, ScalesWithThePeakOfAPartOfTheSameArchitecture) {
  cluster::ClusterSpec slower = h100_node();
  slower.gpu.peak_bf16_tflops = 500;
  EXPECT_EQ(attention_duration(slower, "cudnn-9.0", causal_forward()), 3'399'308);
}

TEST(AttentionKernelCost, AKernelWithoutARateOnTheArchitectureIsRefused) {
  cluster::ClusterSpec blackwell = h100_node();
  blackwell.gpu = catalog::find_gpu("b200");
  try {
    AnalyticalCostModel model(blackwell, "cudnn-9.0");
    FAIL() << "expected an InputError";
  } catch (const InputError& error) {
    EXPECT_STREQ(error.what(), "attention kernel 'cudnn-9.0' has no rate measured on gpu 'b200'");
  }
}

}  // namespace distsim::cost
