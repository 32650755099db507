#include "events/event_table.hpp"

#include <numeric>

namespace distsim::events {

EventId EventTable::intern(const Event& event) {
  if (const auto id = find(event)) return *id;
  return add_looked_up(Event(event));
}

EventId EventTable::intern(Event&& event) {
  if (const auto id = find(event)) return *id;
  return add_looked_up(std::move(event));
}

std::optional<EventId> EventTable::find(const Event& event) {
  write_event_identity(event, looked_up_);
  const auto found = index_.find(looked_up_);
  if (found == index_.end()) return std::nullopt;
  return found->second;
}

EventId EventTable::add_looked_up(Event&& event) {
  const auto id = static_cast<EventId>(events_.size());
  events_.push_back(std::move(event));
  instances_.push_back(0);
  index_.emplace(looked_up_, id);
  return id;
}

std::int64_t EventTable::total_instances() const {
  return std::accumulate(instances_.begin(), instances_.end(), std::int64_t{0});
}

}  // namespace distsim::events
