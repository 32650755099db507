#pragma once

#include <array>
#include <string_view>

namespace distsim {

//! Numeric formats the model computes in. Training runs in fp32, bf16 or fp16; the low-precision
//! formats (fp8, mxfp8, nvfp4) are only GEMM inputs, as TransformerEngine runs them: everything else
//! in such a job stays in the training format (docs/precision.md).
enum class Dtype { fp32, bf16, fp16, fp8, mxfp8, nvfp4 };

inline constexpr std::array<Dtype, 6> kDtypes = {Dtype::fp32, Dtype::bf16,  Dtype::fp16,
                                                 Dtype::fp8,  Dtype::mxfp8, Dtype::nvfp4};

//! Whole bytes per element of the formats a tensor is stored in whole bytes; nvfp4 packs two
//! elements to a byte and has none (0): storage_bytes gives what its tensors take.
constexpr int dtype_bytes(Dtype dtype) {
  switch (dtype) {
    case Dtype::fp32: return 4;
    case Dtype::bf16: return 2;
    case Dtype::fp16: return 2;
    case Dtype::fp8: return 1;
    case Dtype::mxfp8: return 1;
    case Dtype::nvfp4: return 0;
  }
  return 0;
}

//! Bytes per element in memory, block scales included: mxfp8 adds one E8M0 scale byte per 32
//! elements (OCP Microscaling spec v1.0, block size 32), nvfp4 packs two E2M1 elements to a byte
//! and adds one E4M3 scale byte per 16 (TransformerEngine NVFP4BlockScaling); fp8's per-tensor
//! scale is one number per tensor and is not counted.
constexpr double storage_bytes(Dtype dtype) {
  switch (dtype) {
    case Dtype::mxfp8: return 1.0 + 1.0 / 32.0;
    case Dtype::nvfp4: return 0.5 + 1.0 / 16.0;
    default: return dtype_bytes(dtype);
  }
}

constexpr std::string_view dtype_name(Dtype dtype) {
  switch (dtype) {
    case Dtype::fp32: return "fp32";
    case Dtype::bf16: return "bf16";
    case Dtype::fp16: return "fp16";
    case Dtype::fp8: return "fp8";
    case Dtype::mxfp8: return "mxfp8";
    case Dtype::nvfp4: return "nvfp4";
  }
  return "?";
}

}  // namespace distsim
