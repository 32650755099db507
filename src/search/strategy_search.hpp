#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "api/simulation.hpp"
#include "search/candidate.hpp"
#include "search/memory_remedy.hpp"
#include "search/objective.hpp"
#include "search/process_group.hpp"
#include "search/search_space.hpp"

namespace distsim::search {

struct SearchOptions {
  int threads = 1;
  //! Simulate candidates that do not fit in memory too (they stay marked out of memory).
  bool simulate_out_of_memory = false;
  //! What counts as fitting: a peak of at most this many bytes per GPU. Unset: the GPU's memory.
  std::optional<double> memory_limit_bytes;
  //! How many of the fastest candidates the search must find exactly: a candidate whose lower
  //! bound on iteration time exceeds the k-th best simulated time (and that a simulated candidate
  //! needing no more memory beats) is pruned. 0 simulates every candidate that fits.
  std::size_t keep = 0;
  //! What the ranking and the pruning minimize, and the Pareto front's second objective.
  Objectives objectives;
  //! Tokens and price for each candidate's time and money to train; carried to the result.
  TrainingGoal goal;
  //! Costs shared by every simulation (e.g. a profile database); read from several threads.
  api::SimulationOptions simulation;
  //! Called after each simulated candidate with (candidates decided, candidates to simulate or
  //! prune); from worker threads, serialized. Pruned candidates count as decided.
  //! In a process group, simulated candidates count this process's share.
  std::function<void(std::size_t, std::size_t)> progress;
  //! Called as the candidates are checked against the rules, memory and the task limit, before any is bounded,
  //! with (candidates checked, candidates); from worker threads, serialized.
  std::function<void(std::size_t, std::size_t)> check_progress;
  //! Called after each candidate's lower bound, before any is simulated, with (candidates bounded,
  //! candidates to bound); from worker threads, serialized. In a process group, this process's.
  std::function<void(std::size_t, std::size_t)> bound_progress;
  //! The processes sharing the search (MPI); null: this process alone. The result is the same.
  const ProcessGroup* processes = nullptr;
};

struct SearchResult {
  std::vector<Candidate> candidates;      //!< in enumeration order
  std::vector<std::size_t> ranking;       //!< simulated, fitting candidates, best first
  std::vector<std::size_t> pareto_front;  //!< indices, by increasing trade-off objective
  Objectives objectives;
  TrainingGoal goal;
  std::size_t valid = 0;
  std::size_t invalid = 0;
  std::size_t out_of_memory = 0;
  std::size_t pruned_by_bound = 0;
  //! Of the invalid ones, those whose simulation failed on their own sizes (times past the clock):
  //! set aside with the reason, as too-large candidates are.
  std::size_t cannot_be_simulated = 0;
  double memory_limit_bytes = 0;  //!< what counted as fitting
  //! When no candidate fits: the leanest one (smallest peak) and what would bring it under.
  std::optional<std::size_t> leanest;
  std::vector<MemoryRemedy> memory_remedies;

  //! The ranked candidates of highest and lowest throughput (the first and last of the ranking
  //! when it ranks by time); nullopt when none is ranked.
  std::optional<std::size_t> fastest() const;
  std::optional<std::size_t> slowest() const;
  //! Best throughput over worst, among ranked candidates; 0 when fewer than one.
  double best_worst_ratio() const;
};

//! Every combination of the searched settings' values (listed, or the option's search_values
//! when free) whose parallel sizes use every GPU of the cluster (of each of the space's node
//! counts), each checked against the job
//! rules (invalid ones carry the reason) and against memory (`memory_limit_bytes`, or the GPU's
//! memory when 0), on `threads` threads; the same candidates whatever the threads.
std::vector<Candidate> enumerate_candidates(const SearchSpace& space, double memory_limit_bytes = 0, int threads = 1);

//! How enumerate_candidates checks each candidate, over `threads` threads.
struct CandidateChecks {
  //! What counts as fitting (the GPU's memory when 0).
  double memory_limit_bytes = 0;
  int threads = 1;
  //! Why a candidate that passed the rules cannot be simulated ("" when it can): one it would
  //! simulate is invalid with that reason. Called from worker threads.
  std::function<std::string(const Candidate&, const strategy::JobSpec&)> size_problem;
  //! Called with (candidates checked, candidates); from worker threads, serialized.
  std::function<void(std::size_t, std::size_t)> progress;
  //! The job as it is simulated (api::job_as_simulated with the search's costs), for the memory
  //! of a candidate with a balanced pipeline layout; without it the analytical costs balance it.
  std::function<strategy::JobSpec(const strategy::JobSpec&)> as_simulated;
};

//! enumerate_candidates with every check of `checks`.
std::vector<Candidate> enumerate_candidates(const SearchSpace& space, const CandidateChecks& checks);

//! Enumerates, prunes by memory, then by the lower bound on the ranked objective (largest bound
//! last: the candidates
//! are simulated by increasing bound, in batches of a fixed size so that the result does not
//! depend on the number of threads), simulates the rest on `threads` threads and ranks them.
//! The simulations aggregate each pipeline pass into one task (api::SimulationOptions::
//! aggregate_passes), which gives the same iteration time as operator-level tasks (tested).
//! Throws InputError when the space itself is malformed or no candidate is valid.
SearchResult run_search(const SearchSpace& space, const SearchOptions& options);

}  // namespace distsim::search
