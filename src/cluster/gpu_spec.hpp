#pragma once

#include <array>
#include <string>
#include <string_view>

#include "core/dtype.hpp"

namespace distsim::cluster {

//! The tensor-core generations a GPU may name as its architecture; GA102 (sm86: A10, A40) is apart
//! from GA100 (sm80: A100) because its SMs have less shared memory, which sets attention's tiles.
inline constexpr std::array<std::string_view, 7> kGpuArchitectures{"volta",  "ampere",    "ampere-ga102",   "ada",
                                                                   "hopper", "blackwell", "blackwell-ultra"};

//! One GPU type: its peak rates, memory, and the fractions of peak that real kernels reach.
//! Figures come from data/hardware.csv (the GPU table of docs/reference/hardware.md); `source`
//! names the rows and documents they were taken from.
struct GpuSpec {
  std::string name;
  std::string description;
  std::string source;
  //! The tensor-core generation (kGpuArchitectures): which named
  //! attention kernels have a measured rate on the part (catalog/attention_kernels.hpp); empty
  //! for a GPU file that does not say.
  std::string architecture;
  double peak_fp16_tflops = 0;  //!< dense tensor-core peak
  double peak_bf16_tflops = 0;  //!< 0 when the GPU has no bf16 tensor cores
  double peak_fp8_tflops = 0;   //!< 0 when the GPU has no fp8 tensor cores
  //! MXFP8 (e4m3 with a shared E8M0 scale per 32 elements) on tensor cores that read block scales
  //! (Blackwell: the fp8 rate); 0 on Hopper, whose fp8 GEMMs take only per-tensor scales.
  double peak_mxfp8_tflops = 0;
  double peak_fp4_tflops = 0;   //!< NVFP4 (Blackwell); 0 when the GPU has no fp4 tensor cores
  double peak_fp32_tflops = 0;  //!< non-tensor fp32
  double memory_gb = 0;
  double memory_bandwidth_gbps = 0;  //!< GB/s, 1e9 bytes
  int sm_count = 0;
  double gemm_efficiency = 0;      //!< achievable fraction of tensor peak on large GEMMs
  double fp8_gemm_efficiency = 0;  //!< the same for fp8 and mxfp8 GEMMs (Hopper and later)
  double fp4_gemm_efficiency = 0;  //!< the same for nvfp4 GEMMs (Blackwell)
  double memory_efficiency = 0;    //!< achievable fraction of memory bandwidth
  double kernel_launch_us = 0;     //!< fixed per-kernel overhead
  double tdp_w = 0;                //!< board power limit (TDP/TGP), watts; 0 when not stated
  std::string default_cluster;     //!< node design used when only the GPU is named

  bool operator==(const GpuSpec&) const = default;

  //! Dense tensor peak for a GEMM input format, in FLOP/s; 0 when unsupported.
  double peak_flops(Dtype dtype) const {
    switch (dtype) {
      case Dtype::fp16: return peak_fp16_tflops * 1e12;
      case Dtype::bf16: return peak_bf16_tflops * 1e12;
      case Dtype::fp8: return peak_fp8_tflops * 1e12;
      case Dtype::mxfp8: return peak_mxfp8_tflops * 1e12;
      case Dtype::nvfp4: return peak_fp4_tflops * 1e12;
      case Dtype::fp32: return peak_fp32_tflops * 1e12;
    }
    return 0;
  }

  //! The achievable fraction of that peak on large GEMMs.
  double gemm_efficiency_of(Dtype dtype) const {
    switch (dtype) {
      case Dtype::fp8:
      case Dtype::mxfp8: return fp8_gemm_efficiency;
      case Dtype::nvfp4: return fp4_gemm_efficiency;
      default: return gemm_efficiency;
    }
  }
};

}  // namespace distsim::cluster
