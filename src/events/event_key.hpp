#pragma once

#include <string>
#include <string_view>

#include "events/event.hpp"

namespace distsim::events {

//! The canonical text of an event: its operator's name, then each field of its row of the
//! operator table in order, separated by single spaces, e.g. "gemm m=4096 n=3072 k=1024 bf16" or
//! "all_reduce bytes=8388608 group=16 inter per_node=8". Throws InternalError when the event's
//! dimensions are not the ones its operator's key takes.
std::string format_event_key(const Event& event);

//! Reads an event key back into an Event: the inverse of format_event_key, driven by the same
//! operator table. The result has the class, operator, dimensions, dtype and, for communication,
//! collective, bytes, group and placement; its FLOPs and bytes moved stay zero (a key does not
//! carry them). Throws InputError when the key does not name a known operator, its fields are not
//! the ones that operator takes, or it is not written the way distsim writes it; the message names
//! the faulty part, not a file.
Event parse_event_key(std::string_view key);

}  // namespace distsim::events
