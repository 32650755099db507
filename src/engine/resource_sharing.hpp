#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/sim_time.hpp"
#include "engine/program.hpp"

namespace distsim::engine {

//! A new predicted end of a running task. Each prediction gets the next version of its task, so
//! the engine drops the earlier ones still in its queue when they come up.
struct Prediction {
  TaskId task = 0;
  SimTime end = 0;
  std::uint32_t version = 0;
};

//! Fluid sharing of resources between the running tasks that use them (in the spirit of
//! SimGrid's flow model, with equal shares): while k tasks use a resource, each progresses at
//! 1/k of its stand-alone speed on it, and a task progresses at its slowest rate, the 1/k of
//! its most crowded resource. Work is counted in stand-alone nanoseconds (a task's duration);
//! when a task starts or ends, only the tasks on its resources whose rate changes are charged
//! the work done so far and get a new end, now + remaining · k, rounded to the nearest ns. A task
//! due to end at that very instant keeps its end, so the order in which tasks start and end at
//! one instant does not change any end. Versions start at 1; the engine's starts have version 0.
class ResourceSharing {
 public:
  //! Every task that uses resources shares them.
  explicit ResourceSharing(const Program& program);
  //! No task shares: for a run that leaves resources out.
  static ResourceSharing unused(const Program& program) { return ResourceSharing(program, Unused{}); }
  //! Only the tasks that end after `contended_from` in `alone` share their resources; the others
  //! are settled: they end as in `alone`, a run in which no two users of a resource ran at once
  //! before that instant (first_contention), so sharing could not have slowed them.
  ResourceSharing(const Program& program, const std::vector<SimTime>& alone_end, SimTime contended_from);

  bool uses_resources(TaskId task) const { return !slot_.empty() && slot_[task] != kNoSlot; }
  //! `task` starts at `now`; returns its end and the new ends of the tasks it slows down. The
  //! span is valid until the next call.
  std::span<const Prediction> start(TaskId task, SimTime now);
  //! `task` ends at `now`; returns the new ends of the tasks it leaves more bandwidth to.
  std::span<const Prediction> finish(TaskId task, SimTime now);
  bool is_current(TaskId task, std::uint32_t version) const { return state_[slot_[task]].version == version; }

 private:
  static constexpr std::uint32_t kNoSlot = ~std::uint32_t{0};
  struct Unused {};

  ResourceSharing(const Program& program, Unused) : program_(program) {}

  //! A running task's progress: work left at `since`, at a rate of 1/divisor, and the end that
  //! gives.
  struct TaskState {
    double remaining = 0;
    SimTime since = 0;
    SimTime end = 0;
    std::uint32_t divisor = 0;  //!< 0 until the task has a rate
    std::uint32_t version = 0;
  };

  std::span<const ResourceId> resources(TaskId task) const {
    const std::uint32_t slot = slot_[task];
    return {resources_.data() + offsets_[slot], offsets_[slot + 1] - offsets_[slot]};
  }
  //! Groups the uses of the tasks that `shares` accepts.
  template <typename Shares>
  void group(const Program& program, Shares shares);
  //! Fills slot_, offsets_ and resources_ when each task's uses were declared together.
  template <typename Shares>
  bool group_in_order(const Program& program, Shares shares);
  //! Fills slot_; returns how many uses each slot declared.
  template <typename Shares>
  std::vector<std::uint32_t> assign_slots(const Program& program, Shares shares);
  //! Fills offsets_ and resources_.
  template <typename Shares>
  void group_by_slot(const Program& program, Shares shares, const std::vector<std::uint32_t>& counts);
  std::uint32_t crowding(TaskId task) const;
  void reschedule_neighbours(TaskId task, SimTime now);

  const Program& program_;
  //! Per task, its index among the tasks that use resources, or kNoSlot; empty when none do.
  std::vector<std::uint32_t> slot_;
  std::vector<std::uint32_t> offsets_;  //!< per slot, into resources_
  std::vector<ResourceId> resources_;
  std::vector<TaskState> state_;              //!< per slot
  std::vector<std::vector<TaskId>> running_;  //!< per resource, its running tasks in start order
  std::vector<TaskId> neighbours_;
  std::vector<Prediction> predictions_;
};

}  // namespace distsim::engine
