#include "catalog/builtin_gpus.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <map>

#include "catalog/builtin_clusters.hpp"
#include "core/input_error.hpp"

namespace distsim::catalog {

namespace {

using CsvRow = std::map<std::string, std::string>;

//! Splits one CSV line, honouring double-quoted fields (data/hardware.csv quotes its notes).
std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == '"' && quoted && i + 1 < line.size() && line[i + 1] == '"') {
      fields.back() += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  return fields;
}

//! data/hardware.csv keyed by gpu_id.
std::map<std::string, CsvRow> hardware_rows() {
  std::ifstream file(std::string(DISTSIM_SOURCE_DIR) + "/data/hardware.csv");
  std::string line;
  std::getline(file, line);
  const auto header = split_csv_line(line);
  std::map<std::string, CsvRow> rows;
  while (std::getline(file, line)) {
    const auto fields = split_csv_line(line);
    CsvRow row;
    for (size_t i = 0; i < header.size() && i < fields.size(); ++i) {
      row[header[i]] = fields[i];
    }
    rows[row["gpu_id"]] = row;
  }
  return rows;
}

double number(const CsvRow& row, const std::string& column) {
  const std::string& text = row.at(column);
  return text.empty() ? 0.0 : std::stod(text);
}

//! The row id after "data/hardware.csv row " in a source string, or "" when it names none.
std::string cited_row(const std::string& source) {
  const std::string marker = "data/hardware.csv row ";
  const size_t start = source.find(marker);
  if (start == std::string::npos) {
    return "";
  }
  const size_t begin = start + marker.size();
  const size_t end = source.find_first_of(" ,;()", begin);
  return source.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}

std::string gpu_error(std::string_view name) {
  try {
    find_gpu(name);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(BuiltinGpus, EveryFieldIsPositiveAndEveryFractionBelowOne) {
  for (const auto& gpu : builtin_gpus()) {
    SCOPED_TRACE(gpu.name);
    EXPECT_FALSE(gpu.description.empty());
    EXPECT_GT(gpu.peak_fp16_tflops, 0);
    EXPECT_GE(gpu.peak_bf16_tflops, 0);  // 0 on Volta, checked against data/hardware.csv below
    EXPECT_GT(gpu.peak_fp32_tflops, 0);
    EXPECT_GT(gpu.memory_gb, 0);
    EXPECT_GT(gpu.memory_bandwidth_gbps, 0);
    EXPECT_GT(gpu.sm_count, 0);
    EXPECT_GT(gpu.gemm_efficiency, 0.5);
    EXPECT_LT(gpu.gemm_efficiency, 1.0);
    EXPECT_GT(gpu.memory_efficiency, 0.5);
    EXPECT_LT(gpu.memory_efficiency, 1.0);
    EXPECT_GT(gpu.kernel_launch_us, 0);
    EXPECT_LT(gpu.fp8_gemm_efficiency, 1.0);
    // An fp8 efficiency exactly when the GPU has fp8 tensor cores.
    EXPECT_EQ(gpu.peak_fp8_tflops > 0, gpu.fp8_gemm_efficiency > 0);
  }
}

TEST(BuiltinGpus, EveryDefaultClusterIsABuiltinCluster) {
  for (const auto& gpu : builtin_gpus()) {
    EXPECT_NO_THROW(find_cluster(gpu.default_cluster)) << gpu.name;
  }
}

// Each GPU's source names its data/hardware.csv row; the peaks, memory and SM count must match it.
TEST(BuiltinGpus, AgreesWithTheHardwareCsvRowItCites) {
  const auto rows = hardware_rows();
  for (const auto& gpu : builtin_gpus()) {
    SCOPED_TRACE(gpu.name);
    const std::string row_id = cited_row(gpu.source);
    ASSERT_EQ(rows.count(row_id), 1U) << "'" << row_id << "'";
    const CsvRow& row = rows.at(row_id);
    EXPECT_DOUBLE_EQ(gpu.peak_fp16_tflops, number(row, "fp16_tensor_dense_tflops"));
    EXPECT_DOUBLE_EQ(gpu.peak_bf16_tflops, number(row, "bf16_tensor_dense_tflops"));
    EXPECT_DOUBLE_EQ(gpu.peak_fp8_tflops, number(row, "fp8_tensor_dense_tflops"));
    EXPECT_DOUBLE_EQ(gpu.peak_fp32_tflops, number(row, "fp32_nontensor_tflops"));
    EXPECT_DOUBLE_EQ(gpu.memory_gb, number(row, "mem_capacity_gb"));
    EXPECT_DOUBLE_EQ(gpu.memory_bandwidth_gbps, number(row, "mem_bw_GBps"));
    EXPECT_EQ(gpu.sm_count, static_cast<int>(number(row, "sm_or_cu_count")));
  }
}

// docs/reference/hardware.md §5.1: the A100's ceiling is the torch.matmul figure (mli/transformers-benchmarks,
// 230 TF): 230 / 312 = 0.7372. Elsewhere MAMF / peak scaled by the A100's torch.matmul / MAMF,
// 230 / 271.2 = 0.84808: H100 0.84808 · 794.5 / 989.4 = 0.6810, fp8 0.84808 · 1402.6 / 1978.9 =
// 0.6011, B200 0.84808 · 1745 / 2250 = 0.6577.
TEST(BuiltinGpus, GemmEfficiencyIsTheMeasuredCeilingOverPeak) {
  EXPECT_NEAR(find_gpu("a100-80gb").gemm_efficiency, 0.7372, 0.0001);
  EXPECT_NEAR(find_gpu("a100-40gb").gemm_efficiency, 0.7372, 0.0001);
  EXPECT_NEAR(find_gpu("h100-sxm").gemm_efficiency, 0.6810, 0.0001);
  EXPECT_NEAR(find_gpu("h100-sxm").fp8_gemm_efficiency, 0.6011, 0.0001);
  EXPECT_NEAR(find_gpu("b200").gemm_efficiency, 0.6577, 0.0001);
}

// data/hardware.csv row v100_sxm2_32gb: 125 TF fp16, "No BF16/TF32/FP8 on Volta", 15.7 TF fp32, 32 GB at
// 900 GB/s, 80 SMs. The ceiling is the only V100 matmul figure, mli's torch.matmul 95 TF
// (docs/reference/hardware.md §5.1), the same benchmark as the A100's 230 TF: 95 / 125 = 0.76.
// Blackwell's efficiencies (catalog/builtin_gpus.cpp): B300 BF16 MAMF 1769 / 2250 and FP8
// 3353.3 / 4500, GB200 1822 / 2500 and 3615.6 / 5000, each × 230 / 271.2 = 0.84808: 0.6668,
// 0.6320, 0.6181, 0.6133; nvfp4 cuBLASLt 5239 / 10000 × 0.84808 = 0.4443 on every Blackwell part.
TEST(BuiltinGpus, BlackwellEfficienciesComeFromTheirMamfAndTheB200Fp4Measurement) {
  EXPECT_NEAR(find_gpu("b300").gemm_efficiency, 0.6668, 0.0001);
  EXPECT_NEAR(find_gpu("b300").fp8_gemm_efficiency, 0.6320, 0.0001);
  EXPECT_NEAR(find_gpu("gb200").gemm_efficiency, 0.6181, 0.0001);
  EXPECT_NEAR(find_gpu("gb200").fp8_gemm_efficiency, 0.6133, 0.0001);
  EXPECT_EQ(find_gpu("gb300").gemm_efficiency, find_gpu("gb200").gemm_efficiency);
  for (const char* name : {"b200", "b300", "gb200", "gb300"}) {
    EXPECT_NEAR(find_gpu(name).fp4_gemm_efficiency, 0.4443, 0.0001) << name;
    EXPECT_EQ(find_gpu(name).peak_mxfp8_tflops, find_gpu(name).peak_fp8_tflops) << name;
  }
  EXPECT_EQ(find_gpu("h100-sxm").peak_fp4_tflops, 0);
  EXPECT_EQ(find_gpu("h100-sxm").peak_mxfp8_tflops, 0);
}

// Peaks, memory and power of the Blackwell parts (data/hardware.csv rows b200_sxm_180gb,
// b300_sxm_288gb, gb200_186gb, gb300_288gb).
TEST(BuiltinGpus, BlackwellPeaksMemoryAndPower) {
  EXPECT_DOUBLE_EQ(find_gpu("b300").peak_fp4_tflops, 15000);
  EXPECT_DOUBLE_EQ(find_gpu("b300").memory_gb, 288);
  EXPECT_DOUBLE_EQ(find_gpu("gb200").peak_bf16_tflops, 2500);
  EXPECT_DOUBLE_EQ(find_gpu("gb200").peak_fp4_tflops, 10000);
  EXPECT_DOUBLE_EQ(find_gpu("gb200").memory_gb, 186);
  EXPECT_DOUBLE_EQ(find_gpu("gb200").tdp_w, 1200);
  EXPECT_DOUBLE_EQ(find_gpu("gb300").peak_fp4_tflops, 15000);
  EXPECT_DOUBLE_EQ(find_gpu("gb300").tdp_w, 1400);
  EXPECT_EQ(find_gpu("gb300").default_cluster, "gb300-nvl72");
}

TEST(BuiltinGpus, V100Sxm3HasFp16TensorCoresOnlyAndTheTorchMatmulCeiling) {
  const auto& v100 = find_gpu("v100-sxm3");
  EXPECT_DOUBLE_EQ(v100.peak_fp16_tflops, 125);
  EXPECT_EQ(v100.peak_bf16_tflops, 0);
  EXPECT_EQ(v100.peak_fp8_tflops, 0);
  EXPECT_EQ(v100.peak_flops(Dtype::bf16), 0);
  EXPECT_DOUBLE_EQ(v100.memory_gb, 32);
  EXPECT_DOUBLE_EQ(v100.memory_bandwidth_gbps, 900);
  EXPECT_EQ(v100.sm_count, 80);
  EXPECT_DOUBLE_EQ(v100.gemm_efficiency, 0.76);
  EXPECT_DOUBLE_EQ(v100.memory_efficiency, 0.85);  // docs/reference/hardware.md §6: no STREAM data for V100
  EXPECT_EQ(v100.default_cluster, "dgx-2h");
}

TEST(FindGpu, SuggestsTheClosestName) {
  EXPECT_EQ(gpu_error("h100-sx"),
            "unknown GPU 'h100-sx'; did you mean 'h100-sxm'? (known: v100-sxm3, a10, a40, a100-40gb, a100-80gb, "
            "h100-sxm, h200, b200, b300, gb200, gb300)");
  EXPECT_EQ(gpu_error("v100-sxm"),
            "unknown GPU 'v100-sxm'; did you mean 'v100-sxm3'? (known: v100-sxm3, a10, a40, a100-40gb, a100-80gb, "
            "h100-sxm, h200, b200, b300, gb200, gb300)");
}

}  // namespace distsim::catalog

namespace distsim::catalog {

TEST(FindGpu, FindsAPartByItsAliases) {
  EXPECT_EQ(find_gpu("h100").name, "h100-sxm");
  EXPECT_EQ(find_gpu("H100-SXM5").name, "h100-sxm");
  EXPECT_EQ(find_gpu("a100").name, "a100-80gb");
  EXPECT_EQ(find_gpu("a100-sxm4-40gb").name, "a100-40gb");
  EXPECT_EQ(find_gpu("h200-sxm").name, "h200");
}

TEST(FindGpu, EveryAliasNamesABuiltinGpuAndNoAliasIsAName) {
  for (const CatalogAlias& alias : gpu_aliases()) {
    EXPECT_EQ(find_gpu(alias.alias).name, alias.name);
    for (const auto& name : gpu_names()) {
      EXPECT_NE(alias.alias, name);
    }
  }
}

// An exact name wins over a longer one that starts with it: "a10" is the A10, not the A100.
TEST(FindGpu, MatchesWholeNamesOnly) {
  EXPECT_EQ(find_gpu("a10").name, "a10");
  EXPECT_EQ(find_gpu("GB200").name, "gb200");  // a Grace Blackwell GPU, not the HGX b200
  EXPECT_EQ(find_gpu("b200").name, "b200");
  EXPECT_EQ(gpu_error("gb20"),
            "unknown GPU 'gb20'; did you mean 'gb200'? (known: v100-sxm3, a10, a40, a100-40gb, a100-80gb, "
            "h100-sxm, h200, b200, b300, gb200, gb300)");
  EXPECT_EQ(gpu_error("h100-sxm-nvl"),
            "unknown GPU 'h100-sxm-nvl'; did you mean 'h100-sxm'? (known: v100-sxm3, a10, a40, a100-40gb, a100-80gb, "
            "h100-sxm, h200, b200, b300, gb200, gb300)");
}

// By edit distance "h10" is closest to "a10" (1 edit against 5 for "h100-sxm"), and "a100-8" is
// as close to "a10" as to "a100-80gb" (3 edits each, the earlier name winning ties); the
// suggestion prefers the name that starts with what was typed.
TEST(FindGpu, SuggestsANameThatStartsWithWhatWasTyped) {
  EXPECT_EQ(gpu_error("h10"),
            "unknown GPU 'h10'; did you mean 'h100-sxm'? (known: v100-sxm3, a10, a40, a100-40gb, a100-80gb, "
            "h100-sxm, h200, b200, b300, gb200, gb300)");
  EXPECT_EQ(gpu_error("a100-8"),
            "unknown GPU 'a100-8'; did you mean 'a100-80gb'? (known: v100-sxm3, a10, a40, a100-40gb, a100-80gb, "
            "h100-sxm, h200, b200, b300, gb200, gb300)");
}

}  // namespace distsim::catalog
