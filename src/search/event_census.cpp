#include "search/event_census.hpp"

#include <algorithm>
#include <numeric>
#include <set>

#include "core/input_error.hpp"
#include "core/sim_time.hpp"
#include "cost/ring_volume.hpp"

namespace distsim::search {

namespace {

bool is_extrapolated_collective(const events::Event& event) {
  return event.event_class == events::EventClass::collective && event.collective != events::Collective::send_recv;
}

int ceil_div(int a, int b) { return (a + b - 1) / b; }

//! The measured form's duration: the event's own, or for a capped collective the event's scaled
//! back from its group to the measured group by the ring volume.
double measured_seconds(const CensusEvent& entry, const events::Event& measured) {
  double seconds = time_to_seconds(entry.cost.duration);
  if (measured.group_size != entry.event.group_size) {
    seconds *= cost::ring_volume(measured.collective, measured.group_size) /
               cost::ring_volume(entry.event.collective, entry.event.group_size);
  }
  return seconds;
}

}  // namespace

void EventCensus::add_job(CensusJob job, const events::EventTable& events, const std::vector<cost::Cost>& costs) {
  if (costs.size() != events.size()) {
    throw InternalError("event census: " + std::to_string(costs.size()) + " costs for " +
                        std::to_string(events.size()) + " events of job " + job.label);
  }
  job.unique = static_cast<std::int64_t>(events.size());
  job.instances = events.total_instances();
  for (events::EventId id = 0; id < events.size(); ++id) {
    const auto& event = events.at(id);
    const auto [found, inserted] = index_.emplace(event.key(), events_.size());
    if (inserted) {
      events_.push_back({event, costs[id], 0, 0});
    }
    CensusEvent& entry = events_[found->second];
    entry.instances += events.instances(id);
    ++entry.jobs;
  }
  jobs_.push_back(std::move(job));
}

std::int64_t EventCensus::total_instances() const {
  return std::accumulate(jobs_.begin(), jobs_.end(), std::int64_t{0},
                         [](std::int64_t sum, const CensusJob& job) { return sum + job.instances; });
}

std::int64_t EventCensus::sum_of_job_unique() const {
  return std::accumulate(jobs_.begin(), jobs_.end(), std::int64_t{0},
                         [](std::int64_t sum, const CensusJob& job) { return sum + job.unique; });
}

double EventCensus::dedup_ratio() const {
  return events_.empty() ? 0.0 : static_cast<double>(total_instances()) / static_cast<double>(events_.size());
}

events::Event measured_form(const events::Event& event, const ProfilingCostOptions& options) {
  if (!is_extrapolated_collective(event) || event.within_domain) {
    return event;
  }
  const int per_node = std::max(event.ranks_per_domain, 1);
  if (ceil_div(event.group_size, per_node) <= options.max_nodes) {
    return event;
  }
  events::Event measured = event;
  measured.group_size = options.max_nodes * per_node;
  return measured;
}

int profiling_devices(const events::Event& measured) {
  switch (measured.event_class) {
    case events::EventClass::collective: return measured.group_size;
    case events::EventClass::point_to_point: return measured.group_size;  // a send/recv pair or a ring
    default: return 1;
  }
}

ProfilingCost estimate_profiling_cost(const EventCensus& census, const ProfilingCostOptions& options) {
  ProfilingCost result;
  std::set<std::string> measured_keys;
  for (const auto& entry : census.events()) {
    if (options.skip_profiled && entry.cost.source == cost::CostSource::profiled) continue;
    const events::Event measured = measured_form(entry.event, options);
    if (!measured_keys.insert(measured.key()).second) continue;
    result.profile_device_seconds +=
        options.runs_per_event() * measured_seconds(entry, measured) * profiling_devices(measured);
  }
  result.measured_events = static_cast<std::int64_t>(measured_keys.size());
  for (const auto& job : census.jobs()) {
    result.direct_device_seconds += job.iteration_time_s * job.world_size * options.iterations();
  }
  return result;
}

}  // namespace distsim::search
