#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "events/event.hpp"

namespace distsim::profile {

//! The operator names `distsim events` can print as the first word of an event key.
const std::vector<std::string>& known_operator_names();


//! Reads an event key back into an Event: the inverse of events::Event::key(). The result has the
//! class, operator, dimensions, dtype and, for communication, collective, bytes, group and placement;
//! its FLOPs and bytes moved stay zero (a key does not carry them). Throws InputError when the key
//! does not name a known operator, its fields are not the ones that operator takes, or it is not
//! written the way distsim writes it; the message names the faulty part, not a file.
events::Event parse_event_key(std::string_view key);

}  // namespace distsim::profile
