#pragma once

#include <array>
#include <string_view>

#include "core/name_match.hpp"

namespace distsim::model {

//! The MLP's activation. A gated MLP (SwiGLU, GeGLU) has a gate and an up projection whose
//! product feeds the down projection; the others have one up projection.
//! squared_relu: relu(x)² (Primer, So et al. 2021; Nemotron-4, arXiv 2402.16819 §2).
enum class FfnType { gelu, swiglu, geglu, relu, squared_relu };

struct FfnTypeInfo {
  FfnType type;
  std::string_view name;  //!< as model files and `distsim show` write it
  bool gated;
  //! Other names frameworks give it (Hugging Face's hidden_act, Megatron's flags); the tanh
  //! approximation of GELU costs the same elementwise pass.
  std::array<std::string_view, 3> aliases;
};

inline constexpr std::array<FfnTypeInfo, 5> kFfnTypes{{
    {FfnType::gelu, "gelu", false, {"gelu_new", "gelu_pytorch_tanh", "gelu-tanh"}},
    {FfnType::swiglu, "swiglu", true, {"silu-glu", "swish-glu", ""}},
    {FfnType::geglu, "geglu", true, {"gelu-glu", "", ""}},
    {FfnType::relu, "relu", false, {"", "", ""}},
    {FfnType::squared_relu, "squared_relu", false, {"relu2", "relu squared", "sqrelu"}},
}};

//! The activation `name` names, or its name or an alias by the one name rule
//! (core/name_match.hpp); nullptr when none.
inline const FfnTypeInfo* find_ffn_type(std::string_view name) {
  for (const auto& info : kFfnTypes) {
    if (same_name(name, info.name)) return &info;
    for (const auto alias : info.aliases) {
      if (!alias.empty() && same_name(name, alias)) return &info;
    }
  }
  return nullptr;
}

constexpr const FfnTypeInfo& ffn_type_info(FfnType type) {
  for (const auto& info : kFfnTypes) {
    if (info.type == type) return info;
  }
  return kFfnTypes.front();
}

constexpr bool is_gated(FfnType type) { return ffn_type_info(type).gated; }
constexpr std::string_view ffn_type_name(FfnType type) { return ffn_type_info(type).name; }

}  // namespace distsim::model
