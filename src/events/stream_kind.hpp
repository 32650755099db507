#pragma once

#include <array>
#include <cstddef>
#include <string_view>

namespace distsim::events {

//! The streams of one device. Tensor-parallel collectives run on their own stream but the
//! compute stream waits for them, as in Megatron-LM; pipeline transfers and the data-parallel
//! reduction overlap with compute; the context-parallel ring exchanges of attention overlap with
//! the attention step they feed the next one of; the expert-parallel token dispatch and combine of
//! MoE layers run on their own stream and the compute stream waits for them, as Megatron-Core's
//! token dispatchers block on them. With sharding zero3 the per-layer parameter all-gathers run on
//! the DP stream, the gradient reduce-scatters on their own stream and HSDP's all-reduce across
//! replicas on a third, as PyTorch FSDP2 issues them on separate all-gather, reduce-scatter and
//! all-reduce streams. Beside them runs the device's host thread, which issues every kernel
//! (docs/host_time.md): a device task cannot start before its launch on the host has ended. What
//! each kind is called is in kStreamKindTable.
enum class StreamKind {
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
  host
};

//! How every reader and writer names one stream kind.
struct StreamKindInfo {
  StreamKind kind;
  //! Identifier: compare's activity kinds and the "cat" of the CPU runner's traces
  //! (tools/profiler/distsim_profiler/timeline.py).
  std::string_view id;
  std::string_view label;  //!< trace thread name and report row
  //! The "cat" of distsim's traces (formats.md §1.9): the two pipeline send streams share
  //! "pp_send", the two receive streams "pp_recv", the three data-parallel streams "dp_comm"; the
  //! thread tells them apart.
  std::string_view trace_category;
  //! Whether its tasks run on the GPU; the host thread's do not, and no device activity, busy
  //! time or comparison counts them.
  bool on_device = true;
};

//! Every stream kind, in StreamKind order, which is also a device's stream order and the trace's
//! thread ids.
inline constexpr std::array<StreamKindInfo, 13> kStreamKindTable{{
    {StreamKind::compute, "compute", "compute", "comp"},
    {StreamKind::tp_comm, "tp_comm", "TP comm", "tp_comm"},
    {StreamKind::pp_send_next, "pp_send_next", "PP send (next stage)", "pp_send"},
    {StreamKind::pp_recv_prev, "pp_recv_prev", "PP recv (previous stage)", "pp_recv"},
    {StreamKind::pp_send_prev, "pp_send_prev", "PP send (previous stage)", "pp_send"},
    {StreamKind::pp_recv_next, "pp_recv_next", "PP recv (next stage)", "pp_recv"},
    {StreamKind::dp_comm, "dp_comm", "DP comm", "dp_comm"},
    {StreamKind::cp_comm, "cp_comm", "CP comm", "cp_comm"},
    {StreamKind::ep_comm, "ep_comm", "EP comm", "ep_comm"},
    {StreamKind::dp_reduce, "dp_reduce", "DP reduce-scatter", "dp_comm"},
    {StreamKind::dp_replica, "dp_replica", "DP replica all-reduce", "dp_comm"},
    {StreamKind::etp_comm, "etp_comm", "ETP comm", "ep_comm"},
    {StreamKind::host, "host", "host (kernel launches)", "cuda_runtime", false},
}};

inline constexpr int kStreamKinds = static_cast<int>(kStreamKindTable.size());

constexpr bool stream_table_in_enum_order() {
  for (std::size_t k = 0; k < kStreamKindTable.size(); ++k) {
    if (static_cast<std::size_t>(kStreamKindTable[k].kind) != k) {
      return false;
    }
  }
  return true;
}
static_assert(stream_table_in_enum_order(), "kStreamKindTable must list StreamKind in order");

constexpr const StreamKindInfo& stream_kind_info(StreamKind kind) {
  return kStreamKindTable[static_cast<std::size_t>(kind)];
}

//! Whether a stream carries pipeline transfers between stages, and whether it sends them.
constexpr bool is_pipeline_transfer(StreamKind kind) {
  return kind == StreamKind::pp_send_next || kind == StreamKind::pp_recv_prev || kind == StreamKind::pp_send_prev ||
         kind == StreamKind::pp_recv_next;
}
constexpr bool is_pipeline_send(StreamKind kind) {
  return kind == StreamKind::pp_send_next || kind == StreamKind::pp_send_prev;
}

//! The label of a stream kind, e.g. "PP send (next stage)".
constexpr std::string_view stream_name(StreamKind kind) { return stream_kind_info(kind).label; }

}  // namespace distsim::events
