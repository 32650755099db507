#include "events/event.hpp"

#include "core/input_error.hpp"
#include "events/event_key.hpp"

namespace distsim::events {

std::int64_t Event::dim(std::string_view name) const {
  for (const auto& d : dims) {
    if (d.name == name) {
      return d.value;
    }
  }
  throw InternalError("event '" + key() + "' has no dimension '" + std::string(name) + "'");
}

std::int64_t Event::dim_or(std::string_view name, std::int64_t fallback) const {
  for (const auto& d : dims) {
    if (d.name == name) {
      return d.value;
    }
  }
  return fallback;
}

std::string Event::key() const { return format_event_key(*this); }

}  // namespace distsim::events
