#pragma once

#include <array>
#include <string_view>

namespace distsim::model {

//! The MLP's activation. A gated MLP (SwiGLU, GeGLU) has a gate and an up projection whose
//! product feeds the down projection; the others have one up projection.
//! squared_relu: relu(x)² (Primer, So et al. 2021; Nemotron-4, arXiv 2402.16819 §2).
enum class FfnType { gelu, swiglu, geglu, relu, squared_relu };

struct FfnTypeInfo {
  FfnType type;
  std::string_view name;  //!< as model files and `distsim show` write it
  bool gated;
};

inline constexpr std::array<FfnTypeInfo, 5> kFfnTypes{{
    {FfnType::gelu, "gelu", false},
    {FfnType::swiglu, "swiglu", true},
    {FfnType::geglu, "geglu", true},
    {FfnType::relu, "relu", false},
    {FfnType::squared_relu, "squared_relu", false},
}};

constexpr const FfnTypeInfo& ffn_type_info(FfnType type) {
  for (const auto& info : kFfnTypes) {
    if (info.type == type) return info;
  }
  return kFfnTypes.front();
}

constexpr bool is_gated(FfnType type) { return ffn_type_info(type).gated; }
constexpr std::string_view ffn_type_name(FfnType type) { return ffn_type_info(type).name; }

}  // namespace distsim::model
