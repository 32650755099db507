#include "engine/resource_sharing.hpp"

#include <algorithm>
#include <cmath>

namespace distsim::engine {

ResourceSharing::ResourceSharing(const Program& program) : program_(program) {
  group(program, [](TaskId) { return true; });
}

ResourceSharing::ResourceSharing(const Program& program, const std::vector<SimTime>& alone_end, SimTime contended_from)
    : program_(program) {
  group(program, [&](TaskId task) { return alone_end[task] > contended_from; });
}

template <typename Shares>
void ResourceSharing::group(const Program& program, Shares shares) {
  if (program.resource_uses().empty()) {
    return;
  }
  if (!group_in_order(program, shares)) {
    const std::vector<std::uint32_t> counts = assign_slots(program, shares);
    group_by_slot(program, shares, counts);
  }
  state_.resize(offsets_.size() - 1);
  running_.resize(program.num_resources());
}

// A builder declares a task's uses one after another as it adds the task, so its uses are
// usually grouped by task already: then one pass gives each task its slot and resources. False
// (and nothing kept) as soon as a task's uses are not all together.
template <typename Shares>
bool ResourceSharing::group_in_order(const Program& program, Shares shares) {
  const auto uses = program.resource_uses();
  slot_.assign(program.num_tasks(), kNoSlot);
  offsets_.assign(1, 0);
  offsets_.reserve(uses.size() + 1);
  resources_.clear();
  resources_.reserve(uses.size());
  for (std::size_t first = 0; first < uses.size();) {
    const TaskId task = uses[first].first;
    if (!shares(task)) {
      while (first < uses.size() && uses[first].first == task) ++first;
      continue;
    }
    if (slot_[task] != kNoSlot) {
      offsets_.clear();
      resources_.clear();
      return false;
    }
    slot_[task] = static_cast<std::uint32_t>(offsets_.size() - 1);
    const std::size_t begin = resources_.size();
    for (; first < uses.size() && uses[first].first == task; ++first) {
      // A task has a few uses: each goes where it belongs among those before it, once.
      const ResourceId resource = uses[first].second;
      std::size_t at = resources_.size();
      while (at > begin && resources_[at - 1] > resource) --at;
      if (at > begin && resources_[at - 1] == resource) continue;
      resources_.insert(resources_.begin() + static_cast<std::ptrdiff_t>(at), resource);
    }
    offsets_.push_back(static_cast<std::uint32_t>(resources_.size()));
  }
  return true;
}

// Slots go to tasks in the order of their first declared use.
template <typename Shares>
std::vector<std::uint32_t> ResourceSharing::assign_slots(const Program& program, Shares shares) {
  slot_.assign(program.num_tasks(), kNoSlot);
  std::vector<std::uint32_t> counts;
  for (const auto& [task, resource] : program.resource_uses()) {
    if (!shares(task)) continue;
    if (slot_[task] == kNoSlot) {
      slot_[task] = static_cast<std::uint32_t>(counts.size());
      counts.push_back(0);
    }
    ++counts[slot_[task]];
  }
  return counts;
}

// Counting sort by slot, then each slot's few resources sorted and deduplicated.
template <typename Shares>
void ResourceSharing::group_by_slot(const Program& program, Shares shares, const std::vector<std::uint32_t>& counts) {
  std::vector<std::uint32_t> fill{0};
  for (std::uint32_t count : counts) {
    fill.push_back(fill.back() + count);
  }
  std::vector<ResourceId> grouped(fill.back());
  for (const auto& [task, resource] : program.resource_uses()) {
    if (shares(task)) grouped[fill[slot_[task]]++] = resource;
  }
  offsets_.assign(1, 0);
  auto first = grouped.begin();
  for (std::uint32_t count : counts) {
    const auto last = first + count;
    std::sort(first, last);
    resources_.insert(resources_.end(), first, std::unique(first, last));
    offsets_.push_back(static_cast<std::uint32_t>(resources_.size()));
    first = last;
  }
}

std::span<const Prediction> ResourceSharing::start(TaskId task, SimTime now) {
  TaskState& state = state_[slot_[task]];
  state.remaining = static_cast<double>(program_.duration(task));
  state.since = now;
  state.divisor = 0;
  for (ResourceId resource : resources(task)) {
    running_[resource].push_back(task);
  }
  predictions_.clear();
  reschedule_neighbours(task, now);
  return predictions_;
}

std::span<const Prediction> ResourceSharing::finish(TaskId task, SimTime now) {
  for (ResourceId resource : resources(task)) {
    auto& running = running_[resource];
    running.erase(std::find(running.begin(), running.end(), task));
  }
  ++state_[slot_[task]].version;
  predictions_.clear();
  reschedule_neighbours(task, now);
  return predictions_;
}

std::uint32_t ResourceSharing::crowding(TaskId task) const {
  std::size_t most = 1;
  for (ResourceId resource : resources(task)) {
    most = std::max(most, running_[resource].size());
  }
  return static_cast<std::uint32_t>(most);
}

// A neighbour on several of the task's resources comes up once per resource; after the first its
// rate is already right.
void ResourceSharing::reschedule_neighbours(TaskId task, SimTime now) {
  neighbours_.clear();
  for (ResourceId resource : resources(task)) {
    neighbours_.insert(neighbours_.end(), running_[resource].begin(), running_[resource].end());
  }
  for (TaskId neighbour : neighbours_) {
    TaskState& state = state_[slot_[neighbour]];
    const std::uint32_t divisor = crowding(neighbour);
    if (divisor == state.divisor || (state.divisor != 0 && state.end == now)) {
      continue;
    }
    if (state.divisor != 0) {
      const double done = static_cast<double>(now - state.since) / state.divisor;
      state.remaining = std::max(0.0, state.remaining - done);
      state.since = now;
    }
    state.divisor = divisor;
    state.end = now + static_cast<SimTime>(std::llround(state.remaining * divisor));
    predictions_.push_back({neighbour, state.end, ++state.version});
  }
}

}  // namespace distsim::engine
