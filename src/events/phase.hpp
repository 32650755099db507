#pragma once

#include <array>
#include <string_view>

#include "events/stream_kind.hpp"

namespace distsim::events {

//! Which part of the training iteration a task belongs to. A schedule that splits the backward
//! pass runs its weight-gradient GEMMs as weight_gradient; otherwise they are part of backward.
enum class Phase { forward, backward, recompute, optimizer, weight_gradient };

inline constexpr std::array<Phase, 5> kPhases{Phase::forward, Phase::backward, Phase::recompute, Phase::optimizer,
                                              Phase::weight_gradient};

constexpr std::string_view phase_name(Phase phase) {
  switch (phase) {
    case Phase::forward: return "fwd";
    case Phase::backward: return "bwd";
    case Phase::recompute: return "recompute";
    case Phase::optimizer: return "optim";
    case Phase::weight_gradient: return "wgrad";
  }
  return "?";
}

}  // namespace distsim::events
