#include "events/event_table.hpp"

#include <algorithm>
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
  looked_up_hash_ = EventIdentityHash()(looked_up_);
  if (slots_.empty()) return std::nullopt;
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t slot = looked_up_hash_ & mask; slots_[slot] != kFreeSlot; slot = (slot + 1) & mask) {
    if (is_looked_up(slots_[slot])) return slots_[slot];
  }
  return std::nullopt;
}

bool EventTable::is_looked_up(EventId id) const {
  if (hashes_[id] != looked_up_hash_) return false;
  const std::size_t begin = identity_offsets_[id];
  const std::size_t end = identity_offsets_[id + 1];
  return std::equal(identity_words_.begin() + static_cast<std::ptrdiff_t>(begin),
                    identity_words_.begin() + static_cast<std::ptrdiff_t>(end), looked_up_.words.begin(),
                    looked_up_.words.end());
}

void EventTable::place(EventId id) {
  const std::size_t mask = slots_.size() - 1;
  std::size_t slot = hashes_[id] & mask;
  while (slots_[slot] != kFreeSlot) slot = (slot + 1) & mask;
  slots_[slot] = id;
}

EventId EventTable::add_looked_up(Event&& event) {
  const auto id = static_cast<EventId>(events_.size());
  events_.push_back(std::move(event));
  instances_.push_back(0);
  hashes_.push_back(looked_up_hash_);
  identity_words_.insert(identity_words_.end(), looked_up_.words.begin(), looked_up_.words.end());
  identity_offsets_.push_back(identity_words_.size());
  if (2 * events_.size() > slots_.size()) {
    slots_.assign(std::max<std::size_t>(64, 2 * slots_.size()), kFreeSlot);
    for (EventId placed = 0; placed <= id; ++placed) place(placed);
  } else {
    place(id);
  }
  return id;
}

std::int64_t EventTable::total_instances() const {
  return std::accumulate(instances_.begin(), instances_.end(), std::int64_t{0});
}

}  // namespace distsim::events
