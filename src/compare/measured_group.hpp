#pragma once

#include <optional>
#include <vector>

#include "compare/activity.hpp"
#include "compare/timeline.hpp"
#include "strategy/rank_layout.hpp"
#include "strategy/strategy.hpp"

namespace distsim::compare {

//! What a measured trace says of the ranks one communication activity ran with: a collective's
//! process group, or a point-to-point transfer's peer (a PyTorch profiler trace's NCCL kernel
//! arguments, docs/compare.md).
struct MeasuredGroup {
  std::vector<int> members;  //!< the group's global ranks, increasing; empty when the trace does not say them
  bool transfer = false;     //!< a send or a receive rather than a collective
  bool sends = false;        //!< for a transfer: whether this rank is the sender
  //! A transfer's other rank; when the trace does not say it, the other member of a group of two.
  std::optional<int> peer;
  bool all_to_all = false;  //!< whether the collective is an all-to-all
};

//! The kind distsim gives the communication `group` describes on `rank` of `job`, laid out by
//! `layout` (Megatron's rank order, with the job's expert folding):
//! - a transfer with the same position on the next or the previous pipeline stage: pp_send_next,
//!   pp_send_prev, pp_recv_prev or pp_recv_next. The adjacent stage is tried first, then the
//!   interleaved schedule's wrap from the last stage to the first, so with two stages a transfer
//!   from stage 1 to stage 0 is a send to the previous stage;
//! - a collective whose members are one of the rank's groups (program::CommGroup, the groups the
//!   simulation places its events on): that group's stream (program::comm_group_stream). Where one
//!   set of ranks is several of the groups, an all-to-all is the expert (then the context) group's,
//!   and any other collective the first of the rest in the order tensor, context, expert tensor,
//!   gradient, shard, expert data, replica;
//! - otherwise `collective`: a group that is none of the job's (the whole world's, for a barrier),
//!   or one the trace does not name.
ActivityKind measured_communication_kind(const strategy::RankLayout& layout, const strategy::Strategy& job, int rank,
                                         const MeasuredGroup& group);

//! Gives each pipeline transfer of `rank` that its trace left unlabelled (one launched outside
//! every pass's range) the phase its direction means, forward for activations to the next stage
//! and backward for gradients to the previous one, and its order among the rank's transfers of
//! that kind as its micro-batch (relabel_by_predicted_order renumbers them as the schedule runs
//! them). Returns whether it labelled any.
bool label_pipeline_transfers(RankTimeline& rank);

}  // namespace distsim::compare
