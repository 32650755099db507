#include "compare/measured_group.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <span>

#include "program/comm_group.hpp"

namespace distsim::compare {

namespace {

using program::CommGroup;
using strategy::ParallelDim;

//! The groups an all-to-all is tried on first; the order of the rest is kCollectiveGroups'.
constexpr std::array kAllToAllGroups{CommGroup::expert, CommGroup::context};
constexpr std::array kCollectiveGroups{CommGroup::tensor,   CommGroup::context, CommGroup::expert_tensor,
                                       CommGroup::gradient, CommGroup::shard,   CommGroup::expert_data,
                                       CommGroup::replica,  CommGroup::expert};

//! Whether `members` are `coord`'s group `group`; a hierarchical context group has two levels,
//! the all-to-all one and the ring (program::comm_group_members tells them by the collective).
bool is_group(const strategy::RankLayout& layout, const strategy::Strategy& job, const strategy::RankCoord& coord,
              CommGroup group, const std::vector<int>& members) {
  events::Event event;
  for (const auto collective : {events::Collective::all_to_all, events::Collective::ring_exchange}) {
    event.collective = collective;
    if (program::comm_group_members(layout, job, coord, group, event) == members) return true;
    if (group != CommGroup::context) break;
  }
  return false;
}

std::optional<ActivityKind> first_group(const strategy::RankLayout& layout, const strategy::Strategy& job,
                                        const strategy::RankCoord& coord, std::span<const CommGroup> order,
                                        const std::vector<int>& members) {
  for (const CommGroup group : order) {
    if (is_group(layout, job, coord, group, members)) return activity_kind(program::comm_group_stream(group));
  }
  return std::nullopt;
}

ActivityKind collective_kind(const strategy::RankLayout& layout, const strategy::Strategy& job,
                             const strategy::RankCoord& coord, const MeasuredGroup& group) {
  // A group of one rank is no exchange of the job's, whatever group it also is.
  if (group.members.size() < 2) return ActivityKind::collective;
  if (group.all_to_all) {
    if (const auto kind = first_group(layout, job, coord, kAllToAllGroups, group.members)) return *kind;
  }
  return first_group(layout, job, coord, kCollectiveGroups, group.members).value_or(ActivityKind::collective);
}

//! The transfer's other rank: the one the trace names, or the other member of a pair.
std::optional<int> peer_of(int rank, const MeasuredGroup& group) {
  if (group.peer) return group.peer;
  if (group.members.size() == 2 && (group.members[0] == rank || group.members[1] == rank)) {
    return group.members[0] == rank ? group.members[1] : group.members[0];
  }
  return std::nullopt;
}

ActivityKind transfer_kind(const strategy::RankLayout& layout, int rank, const MeasuredGroup& group) {
  const auto named = peer_of(rank, group);
  if (!named || *named < 0 || *named >= layout.world_size()) return ActivityKind::collective;
  const int peer = *named;
  const strategy::RankCoord coord = layout.coord_of(rank);
  const strategy::RankCoord other = layout.coord_of(peer);
  const int stages = layout.size(ParallelDim::pp);
  const int stage = coord[ParallelDim::pp];
  if (other.with(ParallelDim::pp, stage) != coord || other[ParallelDim::pp] == stage) return ActivityKind::collective;
  const int to = other[ParallelDim::pp];
  const bool next = to == stage + 1 || (to != stage - 1 && to == (stage + 1) % stages);
  const bool previous = !next && (to == stage - 1 || to == (stage + stages - 1) % stages);
  if (!next && !previous) return ActivityKind::collective;
  if (group.sends) return next ? ActivityKind::pp_send_next : ActivityKind::pp_send_prev;
  return next ? ActivityKind::pp_recv_next : ActivityKind::pp_recv_prev;
}

}  // namespace

ActivityKind measured_communication_kind(const strategy::RankLayout& layout, const strategy::Strategy& job, int rank,
                                         const MeasuredGroup& group) {
  if (rank < 0 || rank >= layout.world_size()) return ActivityKind::collective;
  return group.transfer ? transfer_kind(layout, rank, group)
                        : collective_kind(layout, job, layout.coord_of(rank), group);
}

bool label_pipeline_transfers(RankTimeline& rank) {
  bool labelled = false;
  std::map<ActivityKind, int> count;
  for (auto& activity : rank.activities) {  // in start order
    const bool forward = activity.kind == ActivityKind::pp_send_next || activity.kind == ActivityKind::pp_recv_prev;
    const bool backward = activity.kind == ActivityKind::pp_send_prev || activity.kind == ActivityKind::pp_recv_next;
    if ((!forward && !backward) || activity.phase) continue;
    activity.phase = forward ? events::Phase::forward : events::Phase::backward;
    activity.microbatch = count[activity.kind]++;
    activity.microbatch_by_order = true;
    labelled = true;
  }
  return labelled;
}

}  // namespace distsim::compare
