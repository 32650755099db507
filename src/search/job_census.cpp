#include "search/job_census.hpp"

#include <algorithm>

#include "core/input_error.hpp"
#include "core/parallel_for.hpp"
#include "core/sim_time.hpp"
#include "search/strategy_search.hpp"

namespace distsim::search {

namespace {

//! What the census keeps of one simulation; the task program itself is dropped at once, as a
//! large pipeline's can be big.
struct JobEvents {
  events::EventTable events;
  std::vector<cost::Cost> costs;
  double iteration_time_s = 0;
};

JobEvents simulate_job(const strategy::JobSpec& job, const api::SimulationOptions& options) {
  api::Simulation simulation = api::simulate(job, options);
  return {std::move(simulation.program.events), std::move(simulation.program.costs),
          time_to_seconds(simulation.summary.iteration_time)};
}

}  // namespace

std::vector<Candidate> census_candidates(const SearchSpace& space) {
  const std::vector<Candidate> all = enumerate_candidates(space);
  std::vector<Candidate> fitting;
  std::size_t out_of_memory = 0;
  for (const auto& candidate : all) {
    if (candidate.status == CandidateStatus::ok) fitting.push_back(candidate);
    if (candidate.status == CandidateStatus::out_of_memory) ++out_of_memory;
  }
  if (fitting.empty()) {
    throw InputError("no strategy of the search space is valid and fits in memory: " + std::to_string(all.size()) +
                     " candidates, " + std::to_string(out_of_memory) + " valid but out of memory");
  }
  return fitting;
}

EventCensus take_census(const std::vector<strategy::JobSpec>& jobs, const std::vector<std::string>& labels,
                        const CensusOptions& options) {
  if (labels.size() != jobs.size()) {
    throw InternalError("take_census: " + std::to_string(labels.size()) + " labels for " + std::to_string(jobs.size()) +
                        " jobs");
  }
  api::SimulationOptions simulation = options.simulation;
  simulation.aggregate_passes = true;
  std::vector<JobEvents> results(jobs.size());
  parallel_for(jobs.size(), options.threads, [&](std::size_t i) { results[i] = simulate_job(jobs[i], simulation); });
  EventCensus census;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    CensusJob job{labels[i], jobs[i].strategy.world_size(), results[i].iteration_time_s};
    census.add_job(std::move(job), results[i].events, results[i].costs);
  }
  return census;
}

}  // namespace distsim::search
