#include <gtest/gtest.h>

#include "cost/analytical_cost_model.hpp"
#include "events/event_factory.hpp"

namespace distsim::cost {

namespace {

// The H100 SXM's figures from docs/reference/hardware.md, written out here so that the
// expectations below stay hand-computable whatever the catalog's calibration does: 1978.9 TFLOPS
// fp8 and 989.4 bf16 dense (§1), FP8 MAMF 1402.6 and BF16 MAMF 794.5 TFLOPS (§5.1), 132 SMs,
// 3350 GB/s at BabelStream's 2970 GB/s (§6), and a 4 µs launch.
cluster::ClusterSpec hand_built_h100_node() {
  cluster::ClusterSpec cluster;
  cluster.name = "h100-node";
  cluster.gpu.name = "h100";
  cluster.gpu.peak_fp16_tflops = 989.4;
  cluster.gpu.peak_bf16_tflops = 989.4;
  cluster.gpu.peak_fp8_tflops = 1978.9;
  cluster.gpu.gemm_efficiency = 794.5 / 989.4;
  cluster.gpu.fp8_gemm_efficiency = 1402.6 / 1978.9;
  cluster.gpu.memory_bandwidth_gbps = 3350;
  cluster.gpu.memory_efficiency = 2970.0 / 3350.0;
  cluster.gpu.sm_count = 132;
  cluster.gpu.kernel_launch_us = 4;
  cluster.num_hosts = 1;
  cluster.gpus_per_host = 8;
  return cluster;
}

SimTime duration(const events::Event& event) { return AnalyticalCostModel(hand_built_h100_node()).cost(event).duration; }

}  // namespace

// 8192³ in fp8: 64 × 64 = 4096 tiles of 128×128 fill ⌈4096/132⌉ = 32 waves of 132 SMs, wave
// efficiency 4096/4224 = 0.969697, tiles whole. Rate 1978.9e12 · (1402.6/1978.9) · 0.969697 =
// 1.360097e15 FLOP/s; 2·8192³ = 1.0995116e12 FLOP take 808.407 µs. Memory 268,435,456 B /
// 2970e9 B/s = 90.4 µs is shorter. Plus 4 µs launch: 812.407 µs.
TEST(Fp8GemmCost, PricesAnFp8GemmAtTheFp8Ceiling) {
  EXPECT_EQ(duration(events::EventFactory(Dtype::bf16).fp8_gemm(8192, 8192, 8192)), 812'407);
}

// The same GEMM in bf16 at 794.5e12 · 0.969697 = 7.704242e14 FLOP/s: 1427.151 + 4 = 1431.151 µs,
// 1.76 times the fp8 time (the MAMF ratio 1402.6/794.5 = 1.765, diluted by the launch).
TEST(Fp8GemmCost, Bf16TakesTheMamfRatioLonger) {
  EXPECT_EQ(duration(events::EventFactory(Dtype::bf16).gemm(8192, 8192, 8192)), 1'431'151);
}

// Tiles and waves as for bf16: n = 1000 pads to 1024 (tile efficiency 0.9765625), 64 × 8 = 512
// tiles take 4 waves of 132 (0.969697). 2·8192·1000·4096 / (1402.6e12 · 0.9765625 · 0.969697) =
// 50.525 µs against 18.2 µs of memory; plus 4 µs: 54.525 µs.
TEST(Fp8GemmCost, KeepsTheTileAndWaveQuantization) {
  EXPECT_EQ(duration(events::EventFactory(Dtype::bf16).fp8_gemm(8192, 1000, 4096)), 54'525);
}

// 8192 · 4096 · (2 + 1 + 1) = 134,217,728 B at 2970e9 B/s times the model's 0.78 training-kernel
// fraction (2316.6e9 B/s) = 57.937 µs, plus 4 µs.
TEST(Fp8GemmCost, PricesTheCastTransposeByItsBytes) {
  EXPECT_EQ(duration(events::EventFactory(Dtype::bf16).fp8_cast_transpose(8192, 4096)), 61'937);
}

}  // namespace distsim::cost
