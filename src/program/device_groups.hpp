#pragma once

#include <cstddef>
#include <vector>

#include "events/phase.hpp"
#include "program/job_program.hpp"
#include "strategy/rank_layout.hpp"

namespace distsim::program {

//! The simulated devices of a job and the groups of them that communicate together. In
//! all-ranks mode every rank is a device; in symmetric mode one device per pipeline stage (the
//! rank with tp = dp = cp = 0) stands for its stage, so every group has one member.
class DeviceGroups {
 public:
  DeviceGroups(const strategy::Strategy& strategy, const strategy::RankLayout& layout, bool all_ranks);

  int num_devices() const { return static_cast<int>(coords_.size()); }
  const strategy::RankCoord& coord(int device) const { return coords_[static_cast<size_t>(device)]; }

  //! Adds one device per simulated rank to `program`: its streams and the two directions of its
  //! share of the node's NICs.
  void add_devices(JobProgram& program) const;

  //! The simulated device at `coord`, or -1 when symmetric mode does not simulate it.
  int device_of(strategy::RankCoord coord) const;
  //! The device at the same (tp, dp, cp) position as `device`, on pipeline stage `stage`.
  int on_stage(int device, int stage) const;

  //! Devices that share a tensor-parallel group, i.e. the same (cp, dp, pp); one in symmetric mode.
  std::vector<std::vector<int>> tensor_groups() const;
  //! Devices whose passes are built together because their collectives couple them: the tensor
  //! and context ranks of one (dp, pp), context-major (member c·t + tp); one in symmetric mode.
  std::vector<std::vector<int>> pass_groups() const;
  //! The members of a pass group (by index) that one communication step on `stream` joins: each
  //! context ring for a CP exchange, each tensor group for a TP collective.
  std::vector<std::vector<size_t>> step_groups(size_t group_size, events::StreamKind stream) const;
  //! The simulated devices that reduce gradients with `coord` (same tp and pp, every cp and dp, in
  //! rank order); one in symmetric mode.
  std::vector<int> gradient_group(strategy::RankCoord coord) const;

 private:
  //! Simulated members of the tensor and of the context groups: every rank in all-ranks mode, one
  //! device in symmetric mode.
  int tensor_members() const { return all_ranks_ ? strategy_.tensor_parallel : 1; }
  int context_members() const { return all_ranks_ ? strategy_.context_parallel : 1; }

  const strategy::Strategy& strategy_;
  const strategy::RankLayout& layout_;
  bool all_ranks_;
  std::vector<strategy::RankCoord> coords_;  //!< per device
};

}  // namespace distsim::program
