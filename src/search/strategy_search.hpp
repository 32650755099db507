#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "api/simulation.hpp"
#include "search/candidate.hpp"
#include "search/search_space.hpp"

namespace distsim::search {

struct SearchOptions {
  int threads = 1;
  //! Simulate candidates that do not fit in memory too (they stay marked out of memory).
  bool simulate_out_of_memory = false;
  //! Costs shared by every simulation (e.g. a profile database); read from several threads.
  api::SimulationOptions simulation;
  //! Called after each simulated candidate with (done, total); from worker threads, serialized.
  std::function<void(std::size_t, std::size_t)> progress;
};

struct SearchResult {
  std::vector<Candidate> candidates;      //!< in enumeration order
  std::vector<std::size_t> ranking;       //!< simulated, fitting candidates, fastest first
  std::vector<std::size_t> pareto_front;  //!< indices, by increasing peak memory
  std::size_t valid = 0;
  std::size_t invalid = 0;
  std::size_t out_of_memory = 0;

  //! Best throughput over worst, among ranked candidates; 0 when fewer than one.
  double best_worst_ratio() const;
};

//! Every combination of parallel sizes, micro-batch size, schedule and recomputation in the
//! space, each checked against the job rules (invalid ones carry the reason).
std::vector<Candidate> enumerate_candidates(const SearchSpace& space);

//! Enumerates, prunes by memory, simulates the rest on `threads` threads and ranks them. The
//! simulations aggregate each pipeline pass into one task (api::SimulationOptions::
//! aggregate_passes), which gives the same iteration time as operator-level tasks (tested).
//! Throws InputError when the space itself is malformed or no candidate is valid. The result
//! does not depend on the number of threads.
SearchResult run_search(const SearchSpace& space, const SearchOptions& options);

}  // namespace distsim::search
