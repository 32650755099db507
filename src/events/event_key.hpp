#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "events/event.hpp"

namespace distsim::events {

//! The field after an operator's own that names the GPU type of a compute event on a cluster of
//! several types (Event::gpu_type), left out for type 0.
inline constexpr std::string_view kGpuTypeField = "gpu";

//! The canonical text of an event: its operator's name, then each field of its row of the
//! operator table in order, separated by single spaces, e.g. "gemm m=4096 n=3072 k=1024 bf16" or
//! "all_reduce bytes=8388608 group=16 inter per_node=8", and "gpu=N" for GPU type N > 0
//! ("gemm m=4096 n=3072 k=1024 bf16 gpu=1"). Throws InternalError when the event's
//! dimensions are not the ones its operator's key takes.
std::string format_event_key(const Event& event);

//! What an event's key says, as numbers: two events have equal identities exactly when their keys
//! are equal, without writing the text (the program builder deduplicates events by it).
struct EventIdentity {
  std::vector<std::int64_t> words;
  bool operator==(const EventIdentity&) const = default;
};

struct EventIdentityHash {
  std::size_t operator()(const EventIdentity& identity) const;
};

//! The event's identity, from the same reading of the operator table as format_event_key; throws
//! InternalError where it does.
EventIdentity event_identity(const Event& event);
//! event_identity written into `identity`, reusing its storage.
void write_event_identity(const Event& event, EventIdentity& identity);

//! Reads an event key back into an Event: the inverse of format_event_key, driven by the same
//! operator table. The result has the class, operator, dimensions, dtype and, for communication,
//! collective, bytes, group and placement; its FLOPs and bytes moved stay zero (a key does not
//! carry them). Throws InputError when the key does not name a known operator, its fields are not
//! the ones that operator takes, or it is not written the way distsim writes it; the message names
//! the faulty part, not a file.
Event parse_event_key(std::string_view key);

}  // namespace distsim::events
