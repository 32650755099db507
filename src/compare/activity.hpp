#pragma once

#include <optional>
#include <string_view>

#include "core/sim_time.hpp"
#include "events/phase.hpp"
#include "events/stream_kind.hpp"

namespace distsim::compare {

//! What an activity occupied on its device: distsim's stream kinds (events::StreamKind, same
//! values, named by events::kStreamKindTable), plus `collective` for a communication kernel whose
//! group a trace does not say (a NCCL kernel in a PyTorch profiler trace).
enum class ActivityKind {
  compute,
  tp_comm,
  pp_send_next,
  pp_recv_prev,
  pp_send_prev,
  pp_recv_next,
  dp_comm,
  cp_comm,
  ep_comm,
  dp_reduce,
  dp_replica,
  etp_comm,
  host,
  collective
};

inline constexpr int kActivityKinds = events::kStreamKinds + 1;
static_assert(static_cast<int>(ActivityKind::collective) == events::kStreamKinds,
              "ActivityKind lists every stream kind, then collective");

//! The activity kind of a stream of distsim's.
constexpr ActivityKind activity_kind(events::StreamKind stream) { return static_cast<ActivityKind>(stream); }

constexpr bool activity_kinds_match_streams() {
  return activity_kind(events::StreamKind::compute) == ActivityKind::compute &&
         activity_kind(events::StreamKind::tp_comm) == ActivityKind::tp_comm &&
         activity_kind(events::StreamKind::pp_send_next) == ActivityKind::pp_send_next &&
         activity_kind(events::StreamKind::pp_recv_prev) == ActivityKind::pp_recv_prev &&
         activity_kind(events::StreamKind::pp_send_prev) == ActivityKind::pp_send_prev &&
         activity_kind(events::StreamKind::pp_recv_next) == ActivityKind::pp_recv_next &&
         activity_kind(events::StreamKind::dp_comm) == ActivityKind::dp_comm &&
         activity_kind(events::StreamKind::dp_reduce) == ActivityKind::dp_reduce &&
         activity_kind(events::StreamKind::dp_replica) == ActivityKind::dp_replica &&
         activity_kind(events::StreamKind::cp_comm) == ActivityKind::cp_comm &&
         activity_kind(events::StreamKind::ep_comm) == ActivityKind::ep_comm &&
         activity_kind(events::StreamKind::etp_comm) == ActivityKind::etp_comm &&
         activity_kind(events::StreamKind::host) == ActivityKind::host;
}
static_assert(activity_kinds_match_streams(), "ActivityKind must keep events::StreamKind's values");

//! Whether the activity ran on the GPU: not the host thread's launches.
constexpr bool on_device(ActivityKind kind) {
  return kind == ActivityKind::collective || events::stream_kind_info(static_cast<events::StreamKind>(kind)).on_device;
}

//! The names the CPU runner writes as "cat" (tools/profiler/distsim_profiler/timeline.py) and the
//! comparison prints: the stream kind's identifier, "collective" for the unknown group.
constexpr std::string_view activity_kind_name(ActivityKind kind) {
  if (kind == ActivityKind::collective) {
    return "collective";
  }
  return events::stream_kind_info(static_cast<events::StreamKind>(kind)).id;
}

constexpr bool is_communication(ActivityKind kind) { return kind != ActivityKind::compute; }

//! How finely a trace tells communication apart, which sets the kinds its activities are compared
//! under: `streams`, distsim's every stream (distsim's and the CPU runner's traces); `groups`, the
//! parallel group a collective ran over, so the three data-parallel streams (dp_comm, dp_reduce,
//! dp_replica) are one kind, dp_comm (a PyTorch profiler trace's NCCL kernels with their process
//! group); `none`, communication only, every kind `collective`.
enum class CommunicationDetail { none, groups, streams };

//! The kind `kind` is compared as at `detail`.
constexpr ActivityKind compared_kind(ActivityKind kind, CommunicationDetail detail) {
  if (!is_communication(kind) || detail == CommunicationDetail::streams) return kind;
  if (detail == CommunicationDetail::none) return ActivityKind::collective;
  return kind == ActivityKind::dp_reduce || kind == ActivityKind::dp_replica ? ActivityKind::dp_comm : kind;
}

//! One stretch of time a device spent on one kind of work, with the part of the iteration it
//! belongs to when the trace says so. Times are nanoseconds on the trace's own clock.
struct Activity {
  ActivityKind kind = ActivityKind::compute;
  std::optional<events::Phase> phase;  //!< empty when the trace does not label it
  int microbatch = -1;                 //!< -1 when the activity belongs to no micro-batch
  SimTime start = 0;
  SimTime end = 0;
  //! Whether `microbatch` is the activity's order on its rank rather than a number its trace
  //! states (Timeline::microbatches_by_order).
  bool microbatch_by_order = false;
};

}  // namespace distsim::compare
