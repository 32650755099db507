#pragma once

#include <vector>

#include "api/simulation.hpp"
#include "search/candidate.hpp"
#include "search/event_census.hpp"
#include "search/search_space.hpp"

namespace distsim::search {

struct CensusOptions {
  int threads = 1;
  //! Costs shared by every simulation (e.g. a profile database); read from several threads.
  api::SimulationOptions simulation;
};

//! The candidates of a search space a census covers: the valid ones that fit in memory, in
//! enumeration order. Throws InputError when the space is malformed or none is left.
std::vector<Candidate> census_candidates(const SearchSpace& space);

//! Simulates every job (pass-level aggregation, which counts every task instance and gives the
//! operator-level iteration time) on `threads` threads and adds its events to one census, in the
//! order of `jobs` whatever the number of threads. `labels[i]` names `jobs[i]`.
EventCensus take_census(const std::vector<strategy::JobSpec>& jobs, const std::vector<std::string>& labels,
                        const CensusOptions& options);

}  // namespace distsim::search
