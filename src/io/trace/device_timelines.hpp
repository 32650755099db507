#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "engine/program.hpp"
#include "events/phase.hpp"
#include "program/job_program.hpp"
#include "strategy/rank_layout.hpp"

namespace distsim::io {

//! A task placed on one of a device's streams.
struct Activity {
  engine::TaskId task = 0;
  engine::StreamId stream = 0;
};

//! Each simulated device's activities in task order, which on every stream is the order the
//! stream runs them. Indexed once, so every rank that shares a device (symmetric mode) is
//! written from the same list instead of a per-rank copy.
class DeviceTimelines {
 public:
  explicit DeviceTimelines(const program::JobProgram& program);

  std::span<const Activity> of(std::size_t device) const {
    return {activities_.data() + offsets_[device], offsets_[device + 1] - offsets_[device]};
  }
  bool uses(std::size_t device, events::StreamKind kind) const {
    return (kinds_used_[device] >> static_cast<unsigned>(kind) & 1U) != 0;
  }

 private:
  std::vector<std::size_t> offsets_;
  std::vector<Activity> activities_;
  std::vector<unsigned> kinds_used_;
};

//! The ranks a trace or report shows, in rank order: those of data-parallel replica 0 (every
//! tensor rank of every stage), or every rank.
std::vector<int> shown_ranks(const strategy::RankLayout& layout, bool every_rank);

}  // namespace distsim::io
