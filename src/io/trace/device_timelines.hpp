#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "api/simulation.hpp"
#include "engine/program.hpp"
#include "events/phase.hpp"
#include "strategy/rank_layout.hpp"

namespace distsim::io {

//! One appearance of a task on one of a device's streams in the whole job's timeline: the task of
//! the simulated program, and when and for which micro-batch it runs. A shorter run whose middle
//! repeats (steady::TimelineRepeats) shows its repeated tasks once per repeat.
struct Activity {
  engine::TaskId task = 0;
  engine::StreamId stream = 0;
  int appearance = 0;  //!< which appearance of the task, from 0
  int microbatch = -1;
  SimTime start = 0;
  SimTime end = 0;
};

//! Each simulated device's activities, on every stream in the order the stream runs them. Indexed
//! once, so every rank that shares a device (symmetric mode) is written from the same list instead
//! of a per-rank copy.
class DeviceTimelines {
 public:
  explicit DeviceTimelines(const api::Simulation& simulation);

  std::span<const Activity> of(std::size_t device) const {
    return {activities_.data() + offsets_[device], offsets_[device + 1] - offsets_[device]};
  }
  bool uses(std::size_t device, events::StreamKind kind) const {
    return (kinds_used_[device] >> static_cast<unsigned>(kind) & 1U) != 0;
  }
  //! A number for each appearance of each task, the task's own for its first.
  std::uint64_t appearance_id(const Activity& activity) const {
    return std::uint64_t{activity.task} + static_cast<std::uint64_t>(activity.appearance) * tasks_;
  }

 private:
  std::vector<std::size_t> offsets_;
  std::vector<Activity> activities_;
  std::vector<unsigned> kinds_used_;
  std::uint64_t tasks_ = 0;
};

//! The ranks a trace or report shows, in rank order: those of data-parallel replica 0 (every
//! tensor rank of every stage), or every rank.
std::vector<int> shown_ranks(const strategy::RankLayout& layout, bool every_rank);

}  // namespace distsim::io
