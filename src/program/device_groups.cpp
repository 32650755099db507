#include "program/device_groups.hpp"

namespace distsim::program {

using events::StreamKind;

DeviceGroups::DeviceGroups(const strategy::Strategy& strategy, const strategy::RankLayout& layout, bool all_ranks)
    : strategy_(strategy), layout_(layout), all_ranks_(all_ranks) {
  if (all_ranks_) {
    for (int rank = 0; rank < layout_.world_size(); ++rank) {
      coords_.push_back(layout_.coord_of(rank));
    }
  } else {
    for (int stage = 0; stage < strategy_.pipeline_parallel; ++stage) {
      coords_.push_back({0, 0, stage});
    }
  }
}

void DeviceGroups::add_devices(JobProgram& program) const {
  for (const auto& coord : coords_) {
    DeviceInfo device{layout_.rank_of(coord), coord, program.program.num_streams()};
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

int DeviceGroups::device_of(strategy::RankCoord coord) const {
  if (all_ranks_) {
    return layout_.rank_of(coord);
  }
  return coord.tp == 0 && coord.dp == 0 && coord.cp == 0 ? coord.pp : -1;
}

int DeviceGroups::on_stage(int device, int stage) const {
  const auto& from = coord(device);
  return device_of({from.tp, from.dp, stage, from.cp});
}

std::vector<std::vector<int>> DeviceGroups::tensor_groups() const {
  std::vector<std::vector<int>> groups;
  for (const auto& coord : coords_) {
    if (coord.tp != 0) {
      continue;
    }
    std::vector<int> members;
    for (int tp = 0; tp < tensor_members(); ++tp) {
      members.push_back(device_of({tp, coord.dp, coord.pp, coord.cp}));
    }
    groups.push_back(std::move(members));
  }
  return groups;
}

std::vector<std::vector<int>> DeviceGroups::pass_groups() const {
  std::vector<std::vector<int>> groups;
  for (const auto& coord : coords_) {
    if (coord.tp != 0 || coord.cp != 0) {
      continue;
    }
    std::vector<int> members;
    for (int cp = 0; cp < context_members(); ++cp) {
      for (int tp = 0; tp < tensor_members(); ++tp) {
        members.push_back(device_of({tp, coord.dp, coord.pp, cp}));
      }
    }
    groups.push_back(std::move(members));
  }
  return groups;
}

std::vector<std::vector<size_t>> DeviceGroups::step_groups(size_t group_size, StreamKind stream) const {
  const auto tensor = static_cast<size_t>(tensor_members());
  const size_t context = group_size / tensor;
  const bool ring = stream == StreamKind::cp_comm;
  std::vector<std::vector<size_t>> groups(ring ? tensor : context);
  for (size_t c = 0; c < context; ++c) {
    for (size_t t = 0; t < tensor; ++t) {
      groups[ring ? t : c].push_back(c * tensor + t);
    }
  }
  return groups;
}

std::vector<int> DeviceGroups::gradient_group(strategy::RankCoord coord) const {
  std::vector<int> members;
  for (int dp = 0; dp < (all_ranks_ ? strategy_.data_parallel : 1); ++dp) {
    for (int cp = 0; cp < context_members(); ++cp) {
      members.push_back(device_of({coord.tp, dp, coord.pp, cp}));
    }
  }
  return members;
}

}  // namespace distsim::program
