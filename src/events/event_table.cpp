#include "events/event_table.hpp"

#include <numeric>

namespace distsim::events {

EventId EventTable::intern(Event event) {
  EventIdentity identity = event_identity(event);
  const auto found = index_.find(identity);
  if (found != index_.end()) {
    return found->second;
  }
  const auto id = static_cast<EventId>(events_.size());
  events_.push_back(std::move(event));
  instances_.push_back(0);
  index_.emplace(std::move(identity), id);
  return id;
}

std::int64_t EventTable::total_instances() const {
  return std::accumulate(instances_.begin(), instances_.end(), std::int64_t{0});
}

}  // namespace distsim::events
