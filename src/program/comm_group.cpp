#include "program/comm_group.hpp"

#include <algorithm>

namespace distsim::program {

using events::StreamKind;
using strategy::ExpertDim;
using strategy::ParallelDim;

CommGroup in_pass_group(StreamKind stream) {
  switch (stream) {
    case StreamKind::tp_comm: return CommGroup::tensor;
    case StreamKind::cp_comm: return CommGroup::context;
    case StreamKind::ep_comm: return CommGroup::expert;
    case StreamKind::etp_comm: return CommGroup::expert_tensor;
    case StreamKind::dp_comm:
    case StreamKind::dp_reduce: return CommGroup::shard;
    case StreamKind::dp_replica: return CommGroup::replica;
    default: return CommGroup::none;
  }
}

StreamKind comm_group_stream(CommGroup group) {
  switch (group) {
    case CommGroup::none: return StreamKind::compute;
    case CommGroup::tensor: return StreamKind::tp_comm;
    case CommGroup::context: return StreamKind::cp_comm;
    case CommGroup::expert: return StreamKind::ep_comm;
    case CommGroup::expert_tensor: return StreamKind::etp_comm;
    case CommGroup::expert_data:
    case CommGroup::gradient:
    case CommGroup::shard:
    case CommGroup::stages: return StreamKind::dp_comm;
    case CommGroup::replica: return StreamKind::dp_replica;
  }
  return StreamKind::compute;
}

namespace {

//! Under a2a+p2p the ring exchanges run over the ring level and the other context collectives
//! over the all-to-all level, as the pass builder places them (events/pass_builder_cp.cpp).
std::vector<int> context_members(const strategy::RankLayout& layout, const strategy::Strategy& strategy,
                                 const strategy::RankCoord& coord, const events::Event& event) {
  if (strategy.cp_comm_type != strategy::CpCommType::a2a_p2p) {
    return layout.group_members(coord, {ParallelDim::cp});
  }
  const bool a2a_level = event.collective != events::Collective::ring_exchange;
  return layout.context_level_members(coord, strategy.cp_a2a_size, a2a_level);
}

std::vector<int> stage_members(const strategy::RankLayout& layout, const strategy::RankCoord& coord,
                               std::span<const int> stages) {
  std::vector<int> members;
  members.reserve(stages.size());
  for (const int stage : stages) members.push_back(layout.rank_of(coord.with(ParallelDim::pp, stage)));
  std::sort(members.begin(), members.end());
  members.erase(std::unique(members.begin(), members.end()), members.end());
  return members;
}

}  // namespace

std::vector<int> comm_group_members(const strategy::RankLayout& layout, const strategy::Strategy& strategy,
                                    const strategy::RankCoord& coord, CommGroup group, const events::Event& event,
                                    std::span<const int> stages) {
  switch (group) {
    case CommGroup::none: return {};
    case CommGroup::tensor: return layout.group_members(coord, {ParallelDim::tp});
    case CommGroup::context: return context_members(layout, strategy, coord, event);
    case CommGroup::expert: return layout.expert_group_members(coord, ExpertDim::ep);
    case CommGroup::expert_tensor: return layout.expert_group_members(coord, ExpertDim::etp);
    case CommGroup::expert_data: return layout.expert_group_members(coord, ExpertDim::edp);
    case CommGroup::gradient: return layout.group_members(coord, {ParallelDim::cp, ParallelDim::dp});
    case CommGroup::shard: return layout.shard_group_members(coord, strategy.shard_data_parallel());
    case CommGroup::replica: return layout.replica_group_members(coord, strategy.shard_data_parallel());
    case CommGroup::stages: return stage_members(layout, coord, stages);
  }
  return {};
}

}  // namespace distsim::program
