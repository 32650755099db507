#include "profile/profile_cost_model.hpp"

#include <cmath>

#include "core/input_error.hpp"
#include "cost/ring_volume.hpp"
#include "events/event_key.hpp"

namespace distsim::profile {

namespace {

bool extrapolates(const events::Event& event) {
  return event.event_class == events::EventClass::collective && event.collective != events::Collective::send_recv;
}

double microseconds_to_nanoseconds(double microseconds) { return microseconds * 1e3; }

}  // namespace

ProfileCostModel::ProfileCostModel(const std::vector<ProfileRecord>& records) {
  for (const auto& record : records) {
    const double nanoseconds = microseconds_to_nanoseconds(record.median_us);
    by_key_[record.key] = static_cast<SimTime>(std::llround(nanoseconds));
    events::Event event;
    try {
      event = events::parse_event_key(record.key);
    } catch (const InputError& e) {
      throw InputError("stored measurement '" + record.key + "' for hardware '" + record.hardware + "': " + e.what());
    }
    if (extrapolates(event)) {
      collectives_[shape_of(event)][event.group_size] = nanoseconds;
    }
  }
}

ProfileCostModel::MessageShape ProfileCostModel::shape_of(const events::Event& event) {
  return {event.collective, event.bytes, event.within_domain, event.within_domain ? 0 : event.ranks_per_domain};
}

std::optional<cost::Cost> ProfileCostModel::try_cost(const events::Event& event) const {
  const auto found = by_key_.find(event.key());
  if (found != by_key_.end()) {
    return cost::Cost{found->second, cost::CostSource::profiled};
  }
  return extrapolate(event);
}

std::optional<cost::Cost> ProfileCostModel::extrapolate(const events::Event& event) const {
  if (!extrapolates(event)) {
    return std::nullopt;
  }
  const auto measured = collectives_.find(shape_of(event));
  if (measured == collectives_.end()) {
    return std::nullopt;
  }
  // The largest measured group below the target: groups are only scaled up, as in the paper.
  const auto above = measured->second.lower_bound(event.group_size);
  if (above == measured->second.begin()) {
    return std::nullopt;
  }
  const auto& [group, nanoseconds] = *std::prev(above);
  const double scale =
      cost::ring_volume(event.collective, event.group_size) / cost::ring_volume(event.collective, group);
  return cost::Cost{static_cast<SimTime>(std::llround(nanoseconds * scale)), cost::CostSource::extrapolated};
}

}  // namespace distsim::profile
