#include <gtest/gtest.h>

#include "catalog/builtin_clusters.hpp"
#include "cost/analytical_cost_model.hpp"
#include "events/event_factory.hpp"

namespace distsim::cost {

// An 8192³ GEMM on dgx-b200 (B200: 148 SMs, 8000 GB/s at 0.85 · 0.78, 4 µs launch). 128×128 tiles
// fill it exactly (tile efficiency 1); 64·64 = 4096 tiles on 148 SMs take ⌈4096/148⌉ = 28 waves,
// wave efficiency 4096 / (28·148) = 0.988417.
//
// nvfp4: peak 10000 TFLOPS × (230/271.2 · 5239/10000 = 0.444310) = 4443.10 TFLOPS; 2·8192³ =
// 1.099512e12 FLOPs / (4443.10e12 · 0.988417) = 250.365 µs. Its bytes, (2·8192²)·0.5625 for the
// inputs and 8192²·2 for the bf16 output = 209,715,200 B, stream in 39.54 µs, so compute binds:
// 250.365 + 4 = 254.365 µs.
TEST(Nvfp4GemmCost, PeakTimesEfficiencyTimesWaveQuantization) {
  const AnalyticalCostModel model(catalog::find_cluster("dgx-b200"));
  const events::EventFactory factory(Dtype::bf16);
  const events::Event gemm = factory.low_precision_gemm(Dtype::nvfp4, 8192, 8192, 8192);
  EXPECT_EQ(gemm.key(), "gemm m=8192 n=8192 k=8192 nvfp4");
  EXPECT_DOUBLE_EQ(gemm.bytes_moved, 209'715'200.0);
  EXPECT_EQ(model.cost(gemm).duration, 254'365);
}

// The same shape in bf16: 2250 TFLOPS × 230/271.2 · 1745/2250 = 1479.9 TFLOPS, 1.099512e12 /
// (1479.9e12 · 0.988417) = 751.668 µs + 4 µs = 755.668 µs, 2.97 times the nvfp4 time.
TEST(Nvfp4GemmCost, TheSameShapeInBf16) {
  const AnalyticalCostModel model(catalog::find_cluster("dgx-b200"));
  const events::EventFactory factory(Dtype::bf16);
  EXPECT_EQ(model.cost(factory.gemm(8192, 8192, 8192)).duration, 755'668);
}

// H100 has no nvfp4 tensor cores: a hand-made nvfp4 event (validation refuses such jobs) falls
// back to the 16-bit rate instead of a zero one.
TEST(Nvfp4GemmCost, WithoutFp4TensorCoresTheSixteenBitRateStands) {
  const AnalyticalCostModel model(catalog::find_cluster("dgx-h100"));
  const events::EventFactory factory(Dtype::bf16);
  const events::Event nvfp4 = factory.low_precision_gemm(Dtype::nvfp4, 8192, 8192, 8192);
  const events::Event bf16 = factory.gemm(8192, 8192, 8192);
  EXPECT_EQ(model.cost(nvfp4).duration, model.cost(bf16).duration);
}

}  // namespace distsim::cost
