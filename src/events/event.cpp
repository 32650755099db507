#include "events/event.hpp"

#include "core/input_error.hpp"

namespace distsim::events {

std::string_view collective_name(Collective collective) {
  switch (collective) {
    case Collective::all_reduce: return "all_reduce";
    case Collective::all_gather: return "all_gather";
    case Collective::reduce_scatter: return "reduce_scatter";
    case Collective::send_recv: return "send_recv";
    case Collective::ring_exchange: return "ring_exchange";
  }
  return "?";
}

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

std::string Event::key() const {
  std::string text = op;
  if (is_communication()) {
    text += " bytes=" + std::to_string(bytes) + " group=" + std::to_string(group_size);
    text += intra_node ? " intra" : " inter";
    if (!intra_node) {
      text += " per_node=" + std::to_string(ranks_per_node);
    }
    return text;
  }
  for (const auto& d : dims) {
    text += " " + d.name + "=" + std::to_string(d.value);
  }
  text += " ";
  text += dtype_name(dtype);
  return text;
}

std::string_view event_class_name(EventClass event_class) {
  switch (event_class) {
    case EventClass::gemm: return "gemm";
    case EventClass::attention: return "attention";
    case EventClass::memory_bound: return "memory_bound";
    case EventClass::collective: return "collective";
    case EventClass::point_to_point: return "point_to_point";
  }
  return "?";
}

}  // namespace distsim::events
