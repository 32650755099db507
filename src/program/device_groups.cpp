#include "program/device_groups.hpp"

#include <algorithm>
#include <utility>

#include "program/comm_group.hpp"

namespace distsim::program {

using events::StreamKind;
using strategy::ParallelDim;
using strategy::RankCoord;

namespace {

//! The rank that stands for its stage in symmetric mode: every coordinate but the stage is 0.
RankCoord stage_leader(const RankCoord& coord) { return RankCoord{{ParallelDim::pp, coord[ParallelDim::pp]}}; }

RankCoord expert_group_leader(const strategy::RankLayout& layout, const RankCoord& coord, strategy::ExpertDim dim) {
  return layout.coord_of(layout.expert_group_members(coord, dim).front());
}

}  // namespace

int replica_device(const strategy::RankLayout& layout, const strategy::PlacementClasses& classes,
                   const RankCoord& coord, int position) {
  const int tp = layout.size(ParallelDim::tp);
  const int cp = layout.size(ParallelDim::cp);
  return coord[ParallelDim::tp] +
         tp * (coord[ParallelDim::cp] + cp * (position + classes.simulated_indices() * coord[ParallelDim::pp]));
}

DeviceGroups::DeviceGroups(const strategy::RankLayout& layout, SimulatedRanks ranks, int dp_per_shard,
                           const strategy::RankCompute* compute)
    : layout_(layout), dp_per_shard_(dp_per_shard) {
  if (ranks == SimulatedRanks::one_per_stage) {
    const int stage_ranks = layout_.world_size() / layout_.size(ParallelDim::pp);
    for (int stage = 0; stage < layout_.size(ParallelDim::pp); ++stage) {
      add_device(RankCoord{{ParallelDim::pp, stage}}, stage_ranks);
    }
    return;
  }
  classes_.emplace(layout_, dp_per_shard, ranks == SimulatedRanks::every_rank_by_class, compute);
  // In rank order, which replica_device counts.
  for (int pp = 0; pp < layout_.size(ParallelDim::pp); ++pp) {
    for (int position = 0; position < classes_->simulated_indices(); ++position) {
      for (int cp = 0; cp < layout_.size(ParallelDim::cp); ++cp) {
        for (int tp = 0; tp < layout_.size(ParallelDim::tp); ++tp) {
          add_device({{ParallelDim::tp, tp},
                      {ParallelDim::cp, cp},
                      {ParallelDim::dp, classes_->simulated_index(position)},
                      {ParallelDim::pp, pp}},
                     classes_->indices_standing_for(position));
        }
      }
    }
  }
}

void DeviceGroups::add_device(const RankCoord& coord, int ranks) {
  coords_.push_back(coord);
  ranks_.push_back(ranks);
  ep_leaders_.push_back(expert_group_leader(layout_, coord, strategy::ExpertDim::ep));
  etp_leaders_.push_back(expert_group_leader(layout_, coord, strategy::ExpertDim::etp));
}

void DeviceGroups::add_devices(JobProgram& program) const {
  for (size_t d = 0; d < coords_.size(); ++d) {
    const RankCoord& coord = coords_[d];
    DeviceInfo device{layout_.rank_of(coord), coord, ranks_[d], program.program.num_streams()};
    const auto index = static_cast<int>(program.devices.size());
    for (const auto& stream : events::kStreamKindTable) {
      program.program.add_stream();
      program.streams.push_back({index, stream.kind});
    }
    device.nic_send = program.program.add_resource();
    device.nic_receive = program.program.add_resource();
    program.devices.push_back(device);
  }
}

int DeviceGroups::device_of(const RankCoord& coord) const {
  if (classes_) {
    const int position = classes_->simulated_position(coord[ParallelDim::dp]);
    return position < 0 ? -1 : replica_device(layout_, *classes_, coord, position);
  }
  return coord == stage_leader(coord) ? coord[ParallelDim::pp] : -1;
}

int DeviceGroups::on_stage(int device, int stage) const {
  return device_of(coord(device).with(ParallelDim::pp, stage));
}

std::vector<int> DeviceGroups::group_of(const RankCoord& coord, std::initializer_list<ParallelDim> dims) const {
  if (!classes_) return leaders_in_group(coord, dims);
  std::vector<int> devices;
  for (const int rank : layout_.group_members(coord, dims)) {
    const int device = device_of(layout_.coord_of(rank));
    if (device >= 0) {
      devices.push_back(device);
    }
  }
  return devices;
}

// A member leads its stage when all its coordinates but the stage are 0: the group's members with
// its coordinates along `dims` set to 0, if the others are 0 already.
std::vector<int> DeviceGroups::leaders_in_group(const RankCoord& coord, std::initializer_list<ParallelDim> dims) const {
  const bool along_stages = std::find(dims.begin(), dims.end(), ParallelDim::pp) != dims.end();
  RankCoord leader = coord;
  for (const ParallelDim dim : dims) leader[dim] = 0;
  if (!(leader == stage_leader(leader))) return {};
  if (!along_stages) return {leader[ParallelDim::pp]};
  std::vector<int> stages(static_cast<size_t>(layout_.size(ParallelDim::pp)));
  for (size_t stage = 0; stage < stages.size(); ++stage) stages[stage] = static_cast<int>(stage);
  return stages;
}

// Each group is listed once, through its member whose coordinates along `dims` are all 0.
std::vector<std::vector<int>> DeviceGroups::groups_along(std::initializer_list<ParallelDim> dims) const {
  std::vector<std::vector<int>> groups;
  for (const auto& coord : coords_) {
    if (std::all_of(dims.begin(), dims.end(), [&](ParallelDim dim) { return coord[dim] == 0; })) {
      groups.push_back(group_of(coord, dims));
    }
  }
  return groups;
}

std::vector<std::vector<int>> DeviceGroups::pass_groups() const {
  if (layout_.folding().expert_parallel > 1 || dp_per_shard_ > 0) {
    return groups_along({ParallelDim::tp, ParallelDim::cp, ParallelDim::dp});
  }
  return groups_along({ParallelDim::tp, ParallelDim::cp});
}

std::vector<int> DeviceGroups::expert_group_of(const RankCoord& coord, strategy::ExpertDim dim) const {
  std::vector<int> devices;
  for (const int rank : layout_.expert_group_members(coord, dim)) {
    const int device = device_of(layout_.coord_of(rank));
    if (device >= 0) {
      devices.push_back(device);
    }
  }
  return devices;
}

std::vector<std::vector<int>> DeviceGroups::expert_data_groups() const {
  std::vector<std::vector<int>> groups;
  for (int device = 0; device < num_devices(); ++device) {
    std::vector<int> group = expert_group_of(coord(device), strategy::ExpertDim::edp);
    if (!group.empty() && group.front() == device) {
      groups.push_back(std::move(group));
    }
  }
  return groups;
}

RankCoord DeviceGroups::step_group_leader(int device, StreamKind stream) const {
  const RankCoord& coord = coords_[static_cast<size_t>(device)];
  const int dp = coord[ParallelDim::dp];
  switch (in_pass_group(stream)) {
    case CommGroup::context: return coord.with(ParallelDim::cp, 0);
    case CommGroup::shard: return coord.with(ParallelDim::cp, 0).with(ParallelDim::dp, dp - dp % dp_per_shard_);
    case CommGroup::replica: return coord.with(ParallelDim::dp, dp % dp_per_shard_);
    case CommGroup::expert: return ep_leaders_[static_cast<size_t>(device)];
    case CommGroup::expert_tensor: return etp_leaders_[static_cast<size_t>(device)];
    default: return coord.with(ParallelDim::tp, 0);
  }
}

// Members that differ only along the step's dimensions (for an EP exchange: that share an
// expert-parallel group) join one step; groups come in the order of their first member.
std::vector<std::vector<size_t>> DeviceGroups::step_groups(const std::vector<int>& members, StreamKind stream) const {
  std::vector<RankCoord> leaders;
  std::vector<std::vector<size_t>> groups;
  for (size_t m = 0; m < members.size(); ++m) {
    const RankCoord leader = step_group_leader(members[m], stream);
    const auto found = std::find(leaders.begin(), leaders.end(), leader);
    if (found == leaders.end()) {
      leaders.push_back(leader);
      groups.push_back({m});
    } else {
      groups[static_cast<size_t>(found - leaders.begin())].push_back(m);
    }
  }
  return groups;
}

}  // namespace distsim::program
