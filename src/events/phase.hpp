#pragma once

#include <string_view>

#include "events/stream_kind.hpp"

namespace distsim::events {

//! Which part of the training iteration a task belongs to.
enum class Phase { forward, backward, recompute, optimizer };

constexpr std::string_view phase_name(Phase phase) {
  switch (phase) {
    case Phase::forward: return "fwd";
    case Phase::backward: return "bwd";
    case Phase::recompute: return "recompute";
    case Phase::optimizer: return "optim";
  }
  return "?";
}

}  // namespace distsim::events
