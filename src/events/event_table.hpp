#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "events/event.hpp"
#include "events/event_key.hpp"

namespace distsim::events {

using EventId = std::uint32_t;

//! The job's unique events, deduplicated by key (compared as identities, without writing the
//! text), each with the number of tasks that use it.
class EventTable {
 public:
  //! Returns the id of the event with this key, adding it on first sight.
  EventId intern(const Event& event);
  EventId intern(Event&& event);
  //! Counts `count` more tasks of event `id`.
  void add_instances(EventId id, std::int64_t count) { instances_[id] += count; }

  const Event& at(EventId id) const { return events_[id]; }
  std::size_t size() const { return events_.size(); }
  std::int64_t instances(EventId id) const { return instances_[id]; }
  std::int64_t total_instances() const;
  const std::vector<Event>& all() const { return events_; }

 private:
  std::vector<Event> events_;
  std::vector<std::int64_t> instances_;
  //! The id of an event with the identity of `event`, which it writes into looked_up_.
  std::optional<EventId> find(const Event& event);
  //! Adds `event`, whose identity find() has just written into looked_up_.
  EventId add_looked_up(Event&& event);

  //! Whether event `id`'s identity is the one in looked_up_.
  bool is_looked_up(EventId id) const;
  //! Puts `id` into the first free slot of its probe sequence.
  void place(EventId id);

  static constexpr EventId kFreeSlot = ~EventId{0};
  // The index is open addressing with linear probing over slots_ (a power of two, at most half
  // full), each slot an event id; every event's identity words lie one after another in
  // identity_words_, so a lookup compares stored hashes and then one run of words, without the
  // node and key allocations of a node-based map.
  std::vector<EventId> slots_;
  std::vector<std::size_t> hashes_;               //!< per event
  std::vector<std::int64_t> identity_words_;      //!< every event's identity, in id order
  std::vector<std::size_t> identity_offsets_{0};  //!< per event and one past the last, into identity_words_
  EventIdentity looked_up_;                       //!< the identity find() wrote last, kept to reuse its storage
  std::size_t looked_up_hash_ = 0;
};

}  // namespace distsim::events
