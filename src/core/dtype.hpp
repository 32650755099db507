#pragma once

#include <array>
#include <string_view>

namespace distsim {

//! Numeric formats the model computes in. Only GEMM inputs run in fp8; everything else in a
//! job with fp8 GEMMs stays bf16.
enum class Dtype { fp32, bf16, fp16, fp8 };

inline constexpr std::array<Dtype, 4> kDtypes = {Dtype::fp32, Dtype::bf16, Dtype::fp16, Dtype::fp8};

//! Bytes per element.
constexpr int dtype_bytes(Dtype dtype) {
  switch (dtype) {
    case Dtype::fp32: return 4;
    case Dtype::bf16: return 2;
    case Dtype::fp16: return 2;
    case Dtype::fp8: return 1;
  }
  return 0;
}

constexpr std::string_view dtype_name(Dtype dtype) {
  switch (dtype) {
    case Dtype::fp32: return "fp32";
    case Dtype::bf16: return "bf16";
    case Dtype::fp16: return "fp16";
    case Dtype::fp8: return "fp8";
  }
  return "?";
}

}  // namespace distsim
