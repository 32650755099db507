#pragma once

#include <cstddef>
#include <initializer_list>
#include <optional>
#include <vector>

#include "events/phase.hpp"
#include "program/job_program.hpp"
#include "strategy/rank_layout.hpp"

namespace distsim::program {

//! The simulated devices of a job and the groups of them that communicate together. In
//! all-ranks mode the devices are the ranks of the simulated data-parallel indices (every index, or
//! one block per placement class), in rank order; in symmetric mode one device per pipeline stage
//! (the rank whose every other coordinate is 0) stands for its stage, so every group has one
//! member. Groups are the layout's groups along named dimensions, restricted to the simulated
//! devices.
class DeviceGroups {
 public:
  //! `dp_per_shard`: with sharding zero3, the data-parallel indices of one shard group (its
  //! all-gathers and reduce-scatters join the passes of every rank in it); 0 without.
  //! With `gpus`, replicas merge into a placement class only when they run on the same GPU types.
  DeviceGroups(const strategy::RankLayout& layout, SimulatedRanks ranks, int dp_per_shard = 0,
               const strategy::RankCompute* compute = nullptr);

  //! In all-ranks mode, the simulated data-parallel indices and which stands for which.
  const std::optional<strategy::PlacementClasses>& placement_classes() const { return classes_; }

  int num_devices() const { return static_cast<int>(coords_.size()); }
  const strategy::RankCoord& coord(int device) const { return coords_[static_cast<size_t>(device)]; }

  //! Adds one device per simulated rank to `program`: its streams and the two directions of its
  //! share of its host's NICs.
  void add_devices(JobProgram& program) const;

  //! The simulated device at `coord`, or -1 when symmetric mode does not simulate it.
  int device_of(const strategy::RankCoord& coord) const;
  //! The device at the same position as `device` on pipeline stage `stage`.
  int on_stage(int device, int stage) const;

  //! The simulated devices of `coord`'s group along `dims`, in rank order.
  std::vector<int> group_of(const strategy::RankCoord& coord, std::initializer_list<strategy::ParallelDim> dims) const;
  //! Every group along `dims` that has a simulated member, each once, in device order.
  std::vector<std::vector<int>> groups_along(std::initializer_list<strategy::ParallelDim> dims) const;

  //! Devices that share a tensor-parallel group, i.e. the same (cp, dp, pp); one in symmetric mode.
  std::vector<std::vector<int>> tensor_groups() const { return groups_along({strategy::ParallelDim::tp}); }
  //! Devices whose passes are built together because their collectives couple them: the tensor
  //! and context ranks of one (dp, pp), in rank order, so context-major (member c·t + tp); with
  //! expert parallelism, whose groups cross data-parallel ranks, or with sharding zero3, every
  //! data-parallel rank of the stage as well; one in symmetric mode.
  std::vector<std::vector<int>> pass_groups() const;
  //! The members of a pass group (by index) that one communication step on `stream` joins: each
  //! context ring for a CP exchange, each expert-parallel group for an EP exchange, each tensor
  //! group for a TP collective, each shard group for a ZeRO-3 all-gather or reduce-scatter, each
  //! replica group for HSDP's all-reduce.
  std::vector<std::vector<size_t>> step_groups(const std::vector<int>& members, events::StreamKind stream) const;
  //! The simulated devices that reduce gradients together (same tp and pp, every cp and dp, in rank
  //! order), each group led by its member with cp = dp = 0; one device each in symmetric mode.
  std::vector<std::vector<int>> gradient_groups() const {
    return groups_along({strategy::ParallelDim::cp, strategy::ParallelDim::dp});
  }
  //! The simulated devices that hold the same experts (the expert data-parallel groups), each
  //! once, in the order of their first member.
  std::vector<std::vector<int>> expert_data_groups() const;

 private:
  void add_device(const strategy::RankCoord& coord, int ranks);
  //! The simulated members of `coord`'s expert group along `dim`, in rank order.
  std::vector<int> expert_group_of(const strategy::RankCoord& coord, strategy::ExpertDim dim) const;
  //! The coordinate that names the group a step of `device` on `stream` joins (its members share it).
  strategy::RankCoord step_group_leader(int device, events::StreamKind stream) const;

  const strategy::RankLayout& layout_;
  int dp_per_shard_;
  std::optional<strategy::PlacementClasses> classes_;  //!< all-ranks mode only
  //! group_of in symmetric mode, without walking the group.
  std::vector<int> leaders_in_group(const strategy::RankCoord& coord,
                                    std::initializer_list<strategy::ParallelDim> dims) const;

  std::vector<strategy::RankCoord> coords_;  //!< per device
  std::vector<int> ranks_;                   //!< per device, the ranks it stands for
  //! Per device, the first rank of its expert-parallel and its expert tensor-parallel group, found
  //! once: finding them walks the stage's ranks, and every EP and ETP step asks.
  std::vector<strategy::RankCoord> ep_leaders_;
  std::vector<strategy::RankCoord> etp_leaders_;
};

//! In all-ranks mode, the device of the rank at `coord` with its data-parallel index replaced by
//! the one simulated at `position` (of `classes`).
int replica_device(const strategy::RankLayout& layout, const strategy::PlacementClasses& classes,
                   const strategy::RankCoord& coord, int position);

}  // namespace distsim::program
