#include "catalog/builtin_gpus.hpp"

#include "catalog/find_by_name.hpp"

namespace distsim::catalog {

namespace {

using cluster::GpuSpec;

// Fixed per-kernel overhead, from one measurement (docs/reference/hardware.md §5.2): a 1024³ FP16 GEMM on
// A100-80GB runs at 119.4 TFLOPS, i.e. 2·1024³ / 119.4e12 = 18.0 µs. The wave-quantized FLOP
// estimate is 14.0 µs: 128×128 tiles give 64 tiles on 108 SMs (wave efficiency 0.593), at the
// A100 cuBLASLt ceiling below, 259.3 TFLOPS × 0.593 = 153.8 TFLOPS. The 4.0 µs left is launch and ramp-up
// cost that does not scale with FLOPs (with MAMF's 271.2 it was 4.6 µs); 4 µs is used for every
// GPU, as no other GPU has a small-GEMM measurement that would separate it.
constexpr double kKernelLaunchUs = 4.0;

// The A100 cuBLASLt ceiling that the launch figure above comes from: a least-squares fit (log
// error) of the cost model's tile/wave formula, with the 4 µs launch, to the five A100-80GB fp16
// cuBLASLt shapes of 2048³ and larger (docs/reference/hardware.md §5.2: 221.8, 228.0, 253.7, 256.5 and 250.8
// TFLOPS at 2048³, 4096³, 8192³, 16384³, 6144×12288×12288) gives 259.3 TFLOPS, residuals
// +13 / −7 / −2 / −1 / −3 %. Those rows are a tuned cuBLASLt harness after 10k warm-up runs.
//
// What the GEMMs of a PyTorch training step reach on A100: mli/transformers-benchmarks measures
// torch.matmul at 230 TF fp16 on A100 80GB (docs/reference/hardware.md §5.1, "other reference points"), 0.887 of
// the cuBLASLt ceiling. The published A100 runs of the calibration set (docs/cost_models.md §8) launch their GEMMs
// through PyTorch, so the model uses this figure as the A100 ceiling.
constexpr double kA100PytorchMatmulTflops = 230.0;

// Where only MAMF is measured (docs/reference/hardware.md §5.1: the best shape of a brute-force sweep), the
// ceiling is MAMF scaled by the one GPU that has both figures: on A100 SXM torch.matmul reaches
// 230 of MAMF's 271.2 TF, 0.848.
constexpr double kMatmulShareOfMamf = kA100PytorchMatmulTflops / 271.2;

// Every entry's tdp_w is the tdp_w column of its data/hardware.csv row (the V100 SXM3's 450 W is in
// that row's notes); the Blackwell entries below cite their own.
//
// docs/reference/hardware.md §6 found no STREAM measurement for these parts and recommends 0.85 of the spec
// bandwidth for HBM; it is unvalidated for GDDR6 (A10, A40).
constexpr double kUnmeasuredMemoryEfficiency = 0.85;

// No GEMM measurement exists for A10 or A40 (data/hardware.csv). The closest data point is the
// power-capped PCIe Ampere part: A100 PCIe BF16 MAMF 252.9 of 312 TFLOPS (docs/reference/hardware.md §5.1).
constexpr double kPcieAmpereGemmEfficiency = kMatmulShareOfMamf * 252.9 / 312.0;

// The DGX-2H's V100 SXM3 is the GV100 die of the SXM2 part at a 450 W limit; data/hardware.csv has
// only the SXM2 row and notes the SXM3 variant (32 GB, 450 W, 1.7 GHz) without a tensor peak.
// 1.7 GHz would give 640 TC x 128 FLOP/clk x 1.7 GHz = 139 TF [derived, unvalidated]; the cited
// 125 TF is kept, as it is also the peak the Megatron-LM README uses for these runs.
//
// The only V100 matmul figure is mli/transformers-benchmarks' torch.matmul at 95 TF (V100 16GB,
// docs/reference/hardware.md §5.1), the same benchmark as the A100's 230 TF above: 0.76 of the 125 TF peak.
constexpr double kV100PytorchMatmulTflops = 95.0;

// Volta has no bf16 tensor cores (data/hardware.csv v100 row: "No BF16/TF32/FP8 on Volta"), so
// peak_bf16_tflops is 0; a bf16 job is priced at the fp16 rate by the cost model and reports an
// MFU of 0.
GpuSpec v100_sxm3() {
  return {
      .name = "v100-sxm3",
      .description = "NVIDIA V100 SXM3 32GB (Volta GV100, DGX-2H): 125 TFLOPS fp16 dense, no bf16, "
                     "32 GB HBM2 at 900 GB/s",
      .source = "data/hardware.csv row v100_sxm2_32gb (hardware.md §1; same GV100 die, SXM3 variant in "
                "its notes, §2 DGX-2H); gemm_efficiency = torch.matmul 95 TF (mli/transformers-benchmarks, "
                "hardware.md §5.1) of 125 TF; memory_efficiency 0.85 default, no STREAM data for V100 (§6)",
      .architecture = "volta",
      .peak_fp16_tflops = 125,
      .peak_bf16_tflops = 0,
      .peak_fp8_tflops = 0,
      .peak_fp32_tflops = 15.7,
      .memory_gb = 32,
      .memory_bandwidth_gbps = 900,
      .sm_count = 80,
      .gemm_efficiency = kV100PytorchMatmulTflops / 125.0,
      .fp8_gemm_efficiency = 0,
      .memory_efficiency = kUnmeasuredMemoryEfficiency,
      .kernel_launch_us = kKernelLaunchUs,
      .tdp_w = 450,
      .default_cluster = "dgx-2h",
  };
}

GpuSpec a10() {
  return {
      .name = "a10",
      .description = "NVIDIA A10 PCIe (Ampere GA102): 125 TFLOPS fp16/bf16 dense, 24 GB GDDR6 at 600 GB/s",
      .source = "data/hardware.csv row a10_pcie_24gb (datasheet values, unverified on an NVIDIA page, "
                "hardware.md §1, §7 item 1); gemm_efficiency borrowed from A100 PCIe MAMF 252.9/312 x 0.848 "
                "(hardware.md §5.1); memory_efficiency 0.85 default, unvalidated for GDDR6 (§6)",
      .architecture = "ampere-ga102",
      .peak_fp16_tflops = 125,
      .peak_bf16_tflops = 125,
      .peak_fp8_tflops = 0,
      .peak_fp32_tflops = 31.2,
      .memory_gb = 24,
      .memory_bandwidth_gbps = 600,
      .sm_count = 72,
      .gemm_efficiency = kPcieAmpereGemmEfficiency,
      .fp8_gemm_efficiency = 0,
      .memory_efficiency = kUnmeasuredMemoryEfficiency,
      .kernel_launch_us = kKernelLaunchUs,
      .tdp_w = 150,
      .default_cluster = "pcie-a10",
  };
}

GpuSpec a40() {
  return {
      .name = "a40",
      .description = "NVIDIA A40 PCIe (Ampere GA102): 149.7 TFLOPS fp16/bf16 dense, 48 GB GDDR6 at 696 GB/s",
      .source = "data/hardware.csv row a40_pcie_48gb (hardware.md §1); gemm_efficiency borrowed from "
                "A100 PCIe MAMF 252.9/312 x 0.848 (hardware.md §5.1); memory_efficiency 0.85 default, "
                "unvalidated for GDDR6 (§6)",
      .architecture = "ampere-ga102",
      .peak_fp16_tflops = 149.7,
      .peak_bf16_tflops = 149.7,
      .peak_fp8_tflops = 0,
      .peak_fp32_tflops = 37.4,
      .memory_gb = 48,
      .memory_bandwidth_gbps = 696,
      .sm_count = 84,
      .gemm_efficiency = kPcieAmpereGemmEfficiency,
      .fp8_gemm_efficiency = 0,
      .memory_efficiency = kUnmeasuredMemoryEfficiency,
      .kernel_launch_us = kKernelLaunchUs,
      .tdp_w = 300,
      .default_cluster = "pcie-a40",
  };
}

// The MAMF row says "A100 SXM" without the memory size; the tensor cores and clocks of the two
// SXM4 parts are identical, so both use it.
GpuSpec a100_40gb() {
  return {
      .name = "a100-40gb",
      .description = "NVIDIA A100 SXM4 40GB (Ampere GA100): 312 TFLOPS fp16/bf16 dense, 40 GB HBM2 at 1555 GB/s",
      .source = "data/hardware.csv row a100_sxm4_40gb (hardware.md §1); gemm_efficiency = torch.matmul 230 TF "
                "(mli/transformers-benchmarks, §5.1) of 312 TF; memory_efficiency 0.85 default, no STREAM data (§6)",
      .architecture = "ampere",
      .peak_fp16_tflops = 312,
      .peak_bf16_tflops = 312,
      .peak_fp8_tflops = 0,
      .peak_fp32_tflops = 19.5,
      .memory_gb = 40,
      .memory_bandwidth_gbps = 1555,
      .sm_count = 108,
      .gemm_efficiency = kA100PytorchMatmulTflops / 312.0,
      .fp8_gemm_efficiency = 0,
      .memory_efficiency = kUnmeasuredMemoryEfficiency,
      .kernel_launch_us = kKernelLaunchUs,
      .tdp_w = 400,
      .default_cluster = "dgx-a100",
  };
}

GpuSpec a100_80gb() {
  return {
      .name = "a100-80gb",
      .description = "NVIDIA A100 SXM4 80GB (Ampere GA100): 312 TFLOPS fp16/bf16 dense, 80 GB HBM2e at 2039 GB/s",
      .source =
          "data/hardware.csv row a100_sxm4_80gb (hardware.md §1); gemm_efficiency = torch.matmul 230 TF "
          "(mli/transformers-benchmarks, §5.1) of 312 TF; memory_efficiency = BabelStream Triad 1.70/2.039 TB/s (§6)",
      .architecture = "ampere",
      .peak_fp16_tflops = 312,
      .peak_bf16_tflops = 312,
      .peak_fp8_tflops = 0,
      .peak_fp32_tflops = 19.5,
      .memory_gb = 80,
      .memory_bandwidth_gbps = 2039,
      .sm_count = 108,
      .gemm_efficiency = kA100PytorchMatmulTflops / 312.0,
      .fp8_gemm_efficiency = 0,
      .memory_efficiency = 1700.0 / 2039.0,
      .kernel_launch_us = kKernelLaunchUs,
      .tdp_w = 400,
      .default_cluster = "dgx-a100",
  };
}

GpuSpec h100_sxm() {
  return {
      .name = "h100-sxm",
      .description = "NVIDIA H100 SXM5 80GB (Hopper): 989.4 TFLOPS bf16 / 1978.9 fp8 dense, 80 GB HBM3 at 3350 GB/s",
      .source = "data/hardware.csv row h100_sxm5_80gb (hardware.md §1); gemm_efficiency = BF16 MAMF "
                "794.5/989.4, fp8_gemm_efficiency = FP8 MAMF 1402.6/1978.9 (§5.1), each x 0.848 (A100 "
                "torch.matmul/MAMF); memory_efficiency "
                "= BabelStream Triad 2.97/3.35 TB/s (§6)",
      .architecture = "hopper",
      .peak_fp16_tflops = 989.4,
      .peak_bf16_tflops = 989.4,
      .peak_fp8_tflops = 1978.9,
      .peak_fp32_tflops = 66.9,
      .memory_gb = 80,
      .memory_bandwidth_gbps = 3350,
      .sm_count = 132,
      .gemm_efficiency = kMatmulShareOfMamf * 794.5 / 989.4,
      .fp8_gemm_efficiency = kMatmulShareOfMamf * 1402.6 / 1978.9,
      .memory_efficiency = 2970.0 / 3350.0,
      .kernel_launch_us = kKernelLaunchUs,
      .tdp_w = 700,
      .default_cluster = "dgx-h100",
  };
}

GpuSpec h200() {
  return {
      .name = "h200",
      .description = "NVIDIA H200 SXM 141GB (Hopper): 989.4 TFLOPS bf16 / 1978.9 fp8 dense, 141 GB HBM3e at 4800 GB/s",
      .source = "data/hardware.csv row h200_sxm_141gb (hardware.md §1); gemm_efficiency = BF16 MAMF "
                "794.5/989.4 (listed as the same as H100), fp8_gemm_efficiency = FP8 MAMF "
                "1453.4/1978.9 (§5.1), each x 0.848 (A100 torch.matmul/MAMF); memory_efficiency = BabelStream Triad "
                "4.15/4.8 TB/s (§6)",
      .architecture = "hopper",
      .peak_fp16_tflops = 989.4,
      .peak_bf16_tflops = 989.4,
      .peak_fp8_tflops = 1978.9,
      .peak_fp32_tflops = 66.9,
      .memory_gb = 141,
      .memory_bandwidth_gbps = 4800,
      .sm_count = 132,
      .gemm_efficiency = kMatmulShareOfMamf * 794.5 / 989.4,
      .fp8_gemm_efficiency = kMatmulShareOfMamf * 1453.4 / 1978.9,
      .memory_efficiency = 4150.0 / 4800.0,
      .kernel_launch_us = kKernelLaunchUs,
      .tdp_w = 700,
      .default_cluster = "dgx-h200",
  };
}

// Blackwell's dense FP4 tensor rate is twice its FP8 rate. The NVFP4 peak is the one of the source's
// "nvfp4" column where it has one (B200, B300) and of its "fp4" column otherwise (GB200, GB300):
// stas00/ml-engineering compute/accelerator/README.md (commit 744d01e), TFLOPS table, citing the
// DGX B200 and DGX B300 datasheets and the GB200 and GB300 NVL72 pages.
//
// No source read here gives the SM count of B300, GB200 or GB300 (ml-engineering lists B300's as
// "not disclosed"); they use B200's device-reported 148 (hardware.md §7 item 4) [derived,
// unvalidated], which only the tile and wave quantization of small GEMMs reads.
constexpr int kBlackwellSmCount = 148;

// MXFP8 GEMMs: Blackwell's tensor cores apply the per-32-element E8M0 scales inside the MMA
// (TransformerEngine's MXFP8BlockScaling recipe needs Blackwell), at the fp8 rate, so
// peak_mxfp8_tflops is the fp8 peak and fp8_gemm_efficiency serves both [derived: no MXFP8 MAMF
// is published].
//
// NVFP4 GEMMs: the one large-GEMM measurement found is cuBLASLt (cublasTest 13.3) FP4 x FP4 at
// 8192^3 on B200, 5239 TFLOPS (deepseek-ai/DeepGEMM PR#348; MXFP4 operands, which run on the same
// FP4 tensor-core path as NVFP4's 16-element blocks): 0.5239 of B200's 10000 TFLOPS nvfp4 peak,
// scaled like every MAMF by 0.848 (A100 torch.matmul/MAMF). The other Blackwell parts have no FP4
// measurement and use B200's fraction [derived, unvalidated].
constexpr double kFp4CublasShareOfPeak = 5239.0 / 10000.0;
constexpr double kFp4GemmEfficiency = kMatmulShareOfMamf * kFp4CublasShareOfPeak;

// No STREAM measurement exists for any Blackwell part (hardware.md §6).
GpuSpec b200() {
  return {
      .name = "b200",
      .description = "NVIDIA B200 (Blackwell, HGX/DGX): 2250 TFLOPS bf16 / 4500 fp8 / 10000 nvfp4 dense, 180 GB "
                     "HBM3e at 8000 GB/s, NVLink 5 (900 GB/s per direction), 1000 W",
      .source = "data/hardware.csv row b200_sxm_180gb (hardware.md §1; SM count 148 is a community "
                "value, §7 item 4; nvfp4 10000 and TDP 1000 W in the same row, from the DGX B200 datasheet); "
                "gemm_efficiency = BF16 MAMF 1745/2250, fp8_gemm_efficiency = FP8 "
                "MAMF 3432.5/4500 (§5.1), each x 0.848 (A100 torch.matmul/MAMF); memory_efficiency 0.85 default, no "
                "STREAM data (§6)",
      .architecture = "blackwell",
      .peak_fp16_tflops = 2250,
      .peak_bf16_tflops = 2250,
      .peak_fp8_tflops = 4500,
      .peak_mxfp8_tflops = 4500,
      .peak_fp4_tflops = 10000,
      .peak_fp32_tflops = 80,
      .memory_gb = 180,
      .memory_bandwidth_gbps = 8000,
      .sm_count = kBlackwellSmCount,
      .gemm_efficiency = kMatmulShareOfMamf * 1745.0 / 2250.0,
      .fp8_gemm_efficiency = kMatmulShareOfMamf * 3432.5 / 4500.0,
      .fp4_gemm_efficiency = kFp4GemmEfficiency,
      .memory_efficiency = kUnmeasuredMemoryEfficiency,
      .kernel_launch_us = kKernelLaunchUs,
      .tdp_w = 1000,
      .default_cluster = "dgx-b200",
  };
}

// B300 (Blackwell Ultra, HGX/DGX B300): the same bf16/fp8 peaks as B200 and 1.5x its NVFP4 rate,
// 288 GB HBM3e at 8 TB/s (ml-engineering compute/accelerator/README.md, commit 744d01e: TFLOPS
// table citing the DGX B300 datasheet, memory table, power table "1000 W maximum TGP" citing the
// DGX B300 power-capping guide); MAMF BF16 1769 and FP8 3353.3 TFLOPS (same file, torch 2.9.1+cu130).
GpuSpec b300() {
  return {
      .name = "b300",
      .description = "NVIDIA B300 (Blackwell Ultra, HGX/DGX): 2250 TFLOPS bf16 / 4500 fp8 / 15000 nvfp4 dense, "
                     "288 GB HBM3e at 8000 GB/s, NVLink 5 (900 GB/s per direction), 1000 W",
      .source = "data/hardware.csv row b300_sxm_288gb, from stas00/ml-engineering compute/accelerator/README.md "
                "(commit 744d01e): peaks (DGX B300 datasheet), memory, 1000 W max TGP (DGX B300 power capping); "
                "gemm_efficiency = BF16 MAMF "
                "1769/2250, fp8_gemm_efficiency = FP8 MAMF 3353.3/4500, each x 0.848 (A100 torch.matmul/MAMF, "
                "hardware.md §5.1); SM count 148 from B200 [derived, unvalidated]; memory_efficiency 0.85 "
                "default, no STREAM data (hardware.md §6)",
      .architecture = "blackwell-ultra",
      .peak_fp16_tflops = 2250,
      .peak_bf16_tflops = 2250,
      .peak_fp8_tflops = 4500,
      .peak_mxfp8_tflops = 4500,
      .peak_fp4_tflops = 15000,
      .peak_fp32_tflops = 80,
      .memory_gb = 288,
      .memory_bandwidth_gbps = 8000,
      .sm_count = kBlackwellSmCount,
      .gemm_efficiency = kMatmulShareOfMamf * 1769.0 / 2250.0,
      .fp8_gemm_efficiency = kMatmulShareOfMamf * 3353.3 / 4500.0,
      .fp4_gemm_efficiency = kFp4GemmEfficiency,
      .memory_efficiency = kUnmeasuredMemoryEfficiency,
      .kernel_launch_us = kKernelLaunchUs,
      .tdp_w = 1000,
      .default_cluster = "dgx-b300",
  };
}

// One Blackwell GPU of a GB200 superchip (two per Grace CPU, four per NVL72 compute tray): the B200
// die at a higher power limit, so higher peaks than the HGX part (ml-engineering
// compute/accelerator/README.md, commit 744d01e, TFLOPS table note 23 citing the GB200 NVL72 page;
// memory 186 GB per NVIDIA's MIG table, same file; 1200 W per-GPU maximum power per NVIDIA Mission
// Control's power FAQ, same file). MAMF BF16 1822 and FP8 3615.6 TFLOPS (same file).
GpuSpec gb200() {
  return {
      .name = "gb200",
      .description = "NVIDIA GB200 (one Blackwell GPU of a Grace Blackwell superchip): 2500 TFLOPS bf16 / 5000 fp8 "
                     "/ 10000 fp4 dense, 186 GB HBM3e at 8000 GB/s, NVLink 5 (900 GB/s per direction), 1200 W",
      .source = "data/hardware.csv row gb200_186gb, from stas00/ml-engineering compute/accelerator/README.md "
                "(commit 744d01e): peaks (GB200 NVL72 page, per GPU), 186 GB (NVIDIA MIG table), 1200 W (Mission "
                "Control power FAQ); gemm_efficiency = BF16 "
                "MAMF 1822/2500, fp8_gemm_efficiency = FP8 MAMF 3615.6/5000, each x 0.848 (A100 "
                "torch.matmul/MAMF, hardware.md §5.1); SM count 148 from B200 [derived, unvalidated]; "
                "memory_efficiency 0.85 default, no STREAM data (hardware.md §6)",
      .architecture = "blackwell",
      .peak_fp16_tflops = 2500,
      .peak_bf16_tflops = 2500,
      .peak_fp8_tflops = 5000,
      .peak_mxfp8_tflops = 5000,
      .peak_fp4_tflops = 10000,
      .peak_fp32_tflops = 80,
      .memory_gb = 186,
      .memory_bandwidth_gbps = 8000,
      .sm_count = kBlackwellSmCount,
      .gemm_efficiency = kMatmulShareOfMamf * 1822.0 / 2500.0,
      .fp8_gemm_efficiency = kMatmulShareOfMamf * 3615.6 / 5000.0,
      .fp4_gemm_efficiency = kFp4GemmEfficiency,
      .memory_efficiency = kUnmeasuredMemoryEfficiency,
      .kernel_launch_us = kKernelLaunchUs,
      .tdp_w = 1200,
      .default_cluster = "gb200-nvl72",
  };
}

// One Blackwell Ultra GPU of a GB300 superchip: GB200's bf16/fp8 peaks with 1.5x the fp4 rate and
// 288 GB (ml-engineering compute/accelerator/README.md, commit 744d01e, TFLOPS table note 24 citing
// the GB300 NVL72 page; 1400 W per-GPU maximum power, Mission Control power FAQ, same file). 288 GB
// is the B300 part's HBM3e; the GB300 NVL72 page's rack total is not read here [S]. No MAMF is
// published for GB300; GB200's, the same generation in the same rack design, is used [derived].
GpuSpec gb300() {
  return {
      .name = "gb300",
      .description = "NVIDIA GB300 (one Blackwell Ultra GPU of a Grace Blackwell superchip): 2500 TFLOPS bf16 / "
                     "5000 fp8 / 15000 fp4 dense, 288 GB HBM3e at 8000 GB/s, NVLink 5 (900 GB/s per direction), "
                     "1400 W",
      .source = "data/hardware.csv row gb300_288gb, from stas00/ml-engineering compute/accelerator/README.md "
                "(commit 744d01e): peaks (GB300 NVL72 page, per GPU), 1400 W (Mission Control power FAQ); 288 GB as "
                "B300 [S]; efficiencies = GB200's MAMF "
                "1822/2500 and 3615.6/5000 x 0.848 [derived, no GB300 MAMF]; SM count 148 from B200 [derived, "
                "unvalidated]; memory_efficiency 0.85 default (hardware.md §6)",
      .architecture = "blackwell-ultra",
      .peak_fp16_tflops = 2500,
      .peak_bf16_tflops = 2500,
      .peak_fp8_tflops = 5000,
      .peak_mxfp8_tflops = 5000,
      .peak_fp4_tflops = 15000,
      .peak_fp32_tflops = 80,
      .memory_gb = 288,
      .memory_bandwidth_gbps = 8000,
      .sm_count = kBlackwellSmCount,
      .gemm_efficiency = kMatmulShareOfMamf * 1822.0 / 2500.0,
      .fp8_gemm_efficiency = kMatmulShareOfMamf * 3615.6 / 5000.0,
      .fp4_gemm_efficiency = kFp4GemmEfficiency,
      .memory_efficiency = kUnmeasuredMemoryEfficiency,
      .kernel_launch_us = kKernelLaunchUs,
      .tdp_w = 1400,
      .default_cluster = "gb300-nvl72",
  };
}

}  // namespace

const std::vector<cluster::GpuSpec>& builtin_gpus() {
  static const std::vector<cluster::GpuSpec> gpus = {
      v100_sxm3(), a10(), a40(), a100_40gb(), a100_80gb(), h100_sxm(), h200(), b200(), b300(), gb200(), gb300(),
  };
  return gpus;
}

const std::vector<CatalogAlias>& gpu_aliases() {
  // Unqualified names mean the part of the DGX system: the H100 and A100 PCIe and NVL boards have
  // other clocks, power limits and memory, and are not in the catalog.
  static const std::vector<CatalogAlias> aliases = {
      {"h100", "h100-sxm"},
      {"h100-sxm5", "h100-sxm"},
      {"h100-sxm5-80gb", "h100-sxm"},
      {"a100", "a100-80gb"},
      {"a100-sxm4", "a100-80gb"},
      {"a100-sxm4-80gb", "a100-80gb"},
      {"a100-sxm4-40gb", "a100-40gb"},
      {"h200-sxm", "h200"},
      {"h200-sxm-141gb", "h200"},
      {"v100-sxm3-32gb", "v100-sxm3"},
      {"b200-180gb", "b200"},
      {"b300-288gb", "b300"},
      {"gb200-186gb", "gb200"},
      {"gb300-288gb", "gb300"},
  };
  return aliases;
}

const cluster::GpuSpec& find_gpu(std::string_view name) {
  return detail::find_by_name(builtin_gpus(), name, "GPU", gpu_aliases());
}

std::vector<std::string> gpu_names() { return detail::names_of(builtin_gpus()); }

}  // namespace distsim::catalog
