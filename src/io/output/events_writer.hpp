#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "program/job_program.hpp"
#include "search/event_census.hpp"
#include "strategy/job_spec.hpp"

namespace distsim::io {

//! The job's unique events, sorted by id: key, class, operator, shape or message, work, how many
//! tasks use each, and its duration with the source it came from, then the dedup totals. With
//! `skip_profiled` the list leaves out events priced from a measurement (the totals still count
//! them), so that it is the profiler's remaining work.
nlohmann::json events_json(const strategy::JobSpec& job, const program::JobProgram& program,
                           bool skip_profiled = false);

//! The same as a table, one line per unique event, ending with the totals line.
std::string events_text(const strategy::JobSpec& job, const program::JobProgram& program, bool skip_profiled = false);

//! The merged events of several jobs (`jobs[i]` is the census's job i) as the profiler's work
//! list: per job its spec, label, unique and instance counts, dedup ratio and iteration time;
//! over the set the unique events, instances and dedup ratios; the profiling cost against
//! running every job directly; then every unique event with the fields of events_json plus the
//! number of jobs using it, the devices profiling it occupies and, for a collective too big for
//! the profiler's nodes, the key it is measured as. `options.skip_profiled` leaves out events
//! priced from a measurement.
nlohmann::json census_json(const std::vector<strategy::JobSpec>& jobs, const search::EventCensus& census,
                           const search::ProfilingCostOptions& options);

//! A per-job table, the set's dedup totals and the profiling cost, as text.
std::string census_text(const search::EventCensus& census, const search::ProfilingCostOptions& options);

}  // namespace distsim::io
