#pragma once

#include <string_view>

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

//! The streams of one device. Tensor-parallel collectives run on their own stream but the
//! compute stream waits for them, as in Megatron-LM; pipeline transfers and the data-parallel
//! reduction overlap with compute; the context-parallel ring exchanges of attention overlap with
//! the attention step they feed the next one of.
enum class StreamKind { compute, tp_comm, pp_send_next, pp_recv_prev, pp_send_prev, pp_recv_next, dp_comm, cp_comm };

inline constexpr int kStreamKinds = 8;

constexpr std::string_view stream_name(StreamKind kind) {
  switch (kind) {
    case StreamKind::compute: return "compute";
    case StreamKind::tp_comm: return "TP comm";
    case StreamKind::pp_send_next: return "PP send (next stage)";
    case StreamKind::pp_recv_prev: return "PP recv (previous stage)";
    case StreamKind::pp_send_prev: return "PP send (previous stage)";
    case StreamKind::pp_recv_next: return "PP recv (next stage)";
    case StreamKind::dp_comm: return "DP comm";
    case StreamKind::cp_comm: return "CP comm";
  }
  return "?";
}

}  // namespace distsim::events
