#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "cost/cost_model.hpp"
#include "events/event_table.hpp"

namespace distsim::search {

//! One job of a census: what it is, what running it costs, and how much its events deduplicate.
struct CensusJob {
  std::string label;            //!< "2M8P1D mbs 1 1f1b"
  int world_size = 1;           //!< devices the job runs on
  double iteration_time_s = 0;  //!< simulated
  std::int64_t unique = 0;      //!< the job's own unique events
  std::int64_t instances = 0;   //!< its tasks, counted on every rank

  double dedup_ratio() const { return unique > 0 ? static_cast<double>(instances) / static_cast<double>(unique) : 0.0; }
};

//! A unique event of a set of jobs: its price (from the first job that has it), its tasks summed
//! over the jobs, and how many jobs use it.
struct CensusEvent {
  events::Event event;
  cost::Cost cost;
  std::int64_t instances = 0;
  int jobs = 0;
};

//! The unique events of several jobs, deduplicated across jobs by event key. Jobs come in the
//! order they were added, events in the order they were first seen, so the census of the same
//! jobs in the same order is always the same.
class EventCensus {
 public:
  //! Adds a job's unique events with their costs (`costs[id]` prices `events.at(id)`). Fills in
  //! the job's unique and instance counts from the table.
  void add_job(CensusJob job, const events::EventTable& events, const std::vector<cost::Cost>& costs);

  const std::vector<CensusJob>& jobs() const { return jobs_; }
  const std::vector<CensusEvent>& events() const { return events_; }

  //! Tasks of every job, on every rank.
  std::int64_t total_instances() const;
  //! The jobs' own unique counts added up: what profiling each job separately would measure.
  std::int64_t sum_of_job_unique() const;
  double dedup_ratio() const;

 private:
  std::vector<CensusJob> jobs_;
  std::vector<CensusEvent> events_;
  std::unordered_map<std::string, std::size_t> index_;
};

//! How the profiler measures (tools/profiler/distsim_profile.py, docs/profiler.md) and how long
//! the direct runs it is compared with last.
struct ProfilingCostOptions {
  int warmup = 3;     //!< the profiler's --warmup
  int repeats = 20;   //!< the profiler's --repeats
  int max_nodes = 2;  //!< DistSim profiles on at most two nodes
  //! Leave out events already measured (source profiled), as the profiler's --skip-profiled does.
  bool skip_profiled = false;
  //! Iterations of each job run directly; 0 means warmup + repeats, the same number of runs the
  //! profiler gives each event.
  int direct_iterations = 0;

  int runs_per_event() const { return warmup + repeats; }
  int iterations() const { return direct_iterations > 0 ? direct_iterations : runs_per_event(); }
};

//! The event the profiler measures for `event`: the event itself, or for a collective (not a
//! point-to-point transfer) whose group spans more nodes than the profiler has, the same message
//! on the largest group that fits, with the same ranks per node. distsim extrapolates the
//! bigger group from that measurement (profile::ProfileCostModel), so it costs nothing extra.
events::Event measured_form(const events::Event& event, const ProfilingCostOptions& options);

//! Devices one run of the measured form occupies: 1 for compute, the group for a collective, 2
//! for a point-to-point transfer.
int profiling_devices(const events::Event& measured);

struct ProfilingCost {
  std::int64_t measured_events = 0;  //!< distinct measured forms
  double profile_device_seconds = 0;
  double direct_device_seconds = 0;

  double ratio() const { return direct_device_seconds > 0 ? profile_device_seconds / direct_device_seconds : 0.0; }
};

//! Profiling: Σ over distinct measured forms of the census's events of runs_per_event ×
//! duration × profiling_devices, where a capped collective's duration is its event's duration
//! scaled back by the ring volume (the inverse of the extrapolation). Direct: Σ over jobs of
//! iteration time × world size × iterations.
ProfilingCost estimate_profiling_cost(const EventCensus& census, const ProfilingCostOptions& options);

}  // namespace distsim::search
