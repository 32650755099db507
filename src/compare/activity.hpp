#pragma once

#include <optional>
#include <string_view>

#include "core/sim_time.hpp"
#include "events/phase.hpp"

namespace distsim::compare {

//! What an activity occupied on its device: distsim's eight streams (events::StreamKind, in the
//! same order), plus `collective` for a communication kernel whose group a trace does not say
//! (a NCCL kernel in a PyTorch profiler trace).
enum class ActivityKind {
  compute,
  tp_comm,
  pp_send_next,
  pp_recv_prev,
  pp_send_prev,
  pp_recv_next,
  dp_comm,
  cp_comm,
  collective
};

inline constexpr int kActivityKinds = 9;

//! The names the CPU runner writes as "cat" (tools/profiler/distsim_profiler/timeline.py) and the
//! comparison prints: the stream kind's identifier, "collective" for the unknown group.
constexpr std::string_view activity_kind_name(ActivityKind kind) {
  switch (kind) {
    case ActivityKind::compute: return "compute";
    case ActivityKind::tp_comm: return "tp_comm";
    case ActivityKind::pp_send_next: return "pp_send_next";
    case ActivityKind::pp_recv_prev: return "pp_recv_prev";
    case ActivityKind::pp_send_prev: return "pp_send_prev";
    case ActivityKind::pp_recv_next: return "pp_recv_next";
    case ActivityKind::dp_comm: return "dp_comm";
    case ActivityKind::cp_comm: return "cp_comm";
    case ActivityKind::collective: return "collective";
  }
  return "?";
}

constexpr bool is_communication(ActivityKind kind) { return kind != ActivityKind::compute; }

//! One stretch of time a device spent on one kind of work, with the part of the iteration it
//! belongs to when the trace says so. Times are nanoseconds on the trace's own clock.
struct Activity {
  ActivityKind kind = ActivityKind::compute;
  std::optional<events::Phase> phase;  //!< empty when the trace does not label it
  int microbatch = -1;                  //!< -1 when the activity belongs to no micro-batch
  SimTime start = 0;
  SimTime end = 0;
};

}  // namespace distsim::compare
