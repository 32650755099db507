#include "search/strategy_search.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <numeric>
#include <optional>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "bound/lower_bound.hpp"
#include "core/byte_units.hpp"
#include "core/input_error.hpp"
#include "core/parallel_for.hpp"
#include "core/sim_time.hpp"
#include "goodput/goodput_estimate.hpp"
#include "search/pareto_front.hpp"
#include "search/shared_work.hpp"
#include "strategy/rank_layout.hpp"

namespace distsim::search {

namespace {

//! Candidates simulated between two updates of the pruning threshold: fixed, so that what is
//! pruned does not depend on the number of threads.
constexpr std::size_t kBatch = 32;

void record(Candidate& candidate, const api::Simulation& simulation) {
  const auto& summary = simulation.summary;
  candidate.simulated = true;
  candidate.iteration_time_s = time_to_seconds(summary.iteration_time);
  candidate.samples_per_s = summary.throughput_samples_per_s;
  candidate.mfu = summary.mfu;
  candidate.bubble_fraction = summary.bubble_fraction;
}

std::string invalid_summary(const std::vector<Candidate>& candidates) {
  std::map<std::string, int> reasons;
  for (const auto& candidate : candidates) {
    ++reasons[candidate.reason()];
  }
  std::string text;
  for (const auto& [reason, count] : reasons) {
    text += "\n  - " + std::to_string(count) + " x " + reason;
  }
  return text;
}

//! Whether `a` ranks before `b`: by the ranked objective; ties, and the time objective itself,
//! by throughput (the same order as iteration time, without its rounding).
bool ranks_before(const Candidate& a, const Candidate& b, Objective objective) {
  if (objective != Objective::time) {
    const double value_a = objective_value(a, objective);
    const double value_b = objective_value(b, objective);
    if (value_a != value_b) return value_a < value_b;
  }
  return a.samples_per_s > b.samples_per_s;
}

void rank(SearchResult& result) {
  const Objectives objectives = result.objectives;
  std::vector<ParetoPoint> points;
  std::vector<std::size_t> point_owner;
  for (std::size_t i = 0; i < result.candidates.size(); ++i) {
    const Candidate& candidate = result.candidates[i];
    if (candidate.status == CandidateStatus::ok && candidate.simulated) {
      result.ranking.push_back(i);
      points.push_back({objective_value(candidate, objectives.rank), objective_value(candidate, objectives.trade_off)});
      point_owner.push_back(i);
    }
  }
  std::stable_sort(result.ranking.begin(), result.ranking.end(), [&](std::size_t a, std::size_t b) {
    return ranks_before(result.candidates[a], result.candidates[b], objectives.rank);
  });
  // The front reaches as far as asked from the best, whichever candidates were simulated.
  if (!points.empty() && objectives.front_is_limited()) {
    const double best = std::min_element(points.begin(), points.end(), [](const auto& a, const auto& b) {
                          return a.first < b.first;
                        })->first;
    std::vector<ParetoPoint> reached;
    std::vector<std::size_t> reached_owner;
    for (std::size_t n = 0; n < points.size(); ++n) {
      if (points[n].first <= objectives.front_within * best) {
        reached.push_back(points[n]);
        reached_owner.push_back(point_owner[n]);
      }
    }
    points = std::move(reached);
    point_owner = std::move(reached_owner);
  }
  for (const std::size_t point : pareto_front(points)) {
    result.pareto_front.push_back(point_owner[point]);
    result.candidates[point_owner[point]].pareto = true;
  }
}

//! Why a candidate needs no simulation: another simulated candidate is no worse in either
//! objective, or it lies beyond the front's reach.
enum class Exclusion { dominated, beyond_front };

//! The simulated candidates' values of both objectives, for the pruning rule: the k-th best of
//! the ranked one, and the best among those no worse in the trade-off.
class Simulated {
 public:
  Simulated(std::size_t keep, Objectives objectives) : keep_(keep), objectives_(objectives) {}

  void add(const Candidate& candidate) {
    const double ranked = objective_value(candidate, objectives_.rank);
    ranked_.insert(std::upper_bound(ranked_.begin(), ranked_.end(), ranked), ranked);
    points_.emplace_back(objective_value(candidate, objectives_.trade_off), ranked);
  }

  //! Whether a candidate that cannot come in under these bounds of the two objectives can be
  //! neither in the top k nor on the front: k simulated candidates beat its ranked bound, and
  //! one of them is no worse in the trade-off or its bound lies beyond the front's reach from the
  //! best so far (the best can only improve, so it stays beyond).
  std::optional<Exclusion> excludes(const Candidate& candidate) const {
    const double bound = objective_bound(candidate, objectives_.rank);
    const double trade_off = objective_bound(candidate, objectives_.trade_off);
    if (keep_ == 0 || ranked_.size() < keep_ || !(ranked_[keep_ - 1] < bound)) return std::nullopt;
    if (std::any_of(points_.begin(), points_.end(),
                    [&](const auto& point) { return point.first <= trade_off && point.second < bound; })) {
      return Exclusion::dominated;
    }
    if (objectives_.front_within * ranked_.front() < bound) return Exclusion::beyond_front;
    return std::nullopt;
  }

 private:
  std::size_t keep_;
  Objectives objectives_;
  std::vector<double> ranked_;
  std::vector<std::pair<double, double>> points_;
};

//! Why a candidate was pruned, in the ranked objective's unit.
std::string pruned_reason(const Candidate& candidate, const SearchOptions& options, Exclusion exclusion) {
  const Objective objective = options.objectives.rank;
  const double bound = objective_bound(candidate, objective);
  const std::string beyond =
      exclusion == Exclusion::beyond_front
          ? fmt::format(", over {:g}x the best: beyond the Pareto front's reach (--front-within)",
                        options.objectives.front_within)
          : "";
  switch (objective) {
    case Objective::time:
      return fmt::format("its lower bound {:.3f} s loses to the top {}{}", bound, options.keep, beyond);
    case Objective::cost:
      return fmt::format("its lower bound {:.4g} GPU-hours per iteration loses to the top {}{}", bound, options.keep,
                         beyond);
    case Objective::memory:
      return fmt::format("its {:.2f} GiB lose to the top {}{}", bound / kGiB, options.keep, beyond);
    case Objective::time_to_train:
      return fmt::format("its {:.2f} days to train at its lower bound, without failures, lose to the top {}{}",
                         bound / kSecondsPerDay, options.keep, beyond);
  }
  return "";
}

//! The candidate's time to train the goal's tokens at its iteration time's lower bound, never
//! failing: no simulation and no failure makes it shorter.
void set_time_to_train_bound(Candidate& candidate, const TrainingGoal& goal) {
  if (!goal.tokens) return;
  const double tokens_per_iteration =
      static_cast<double>(candidate.strategy.global_batch_size) * candidate.model().seq_length;
  candidate.time_to_train_bound_s = *goal.tokens / tokens_per_iteration * candidate.lower_bound_s;
}

//! A simulated candidate's expected time to train the goal's tokens with the goal's run: its
//! failures, checkpoints and restarts (goodput::estimate_goodput).
void set_time_to_train(Candidate& candidate, const TrainingGoal& goal) {
  if (!goal.tokens || !candidate.simulated) return;
  strategy::JobSpec job = candidate.job();
  job.run = goal.run;
  job.run.tokens = goal.tokens;
  const goodput::GoodputEstimate estimate =
      goodput::estimate_goodput(job, candidate.iteration_time_s, tokens_per_s(candidate));
  candidate.time_to_train_s = estimate.time_to_train ? estimate.time_to_train->expected_s : 0.0;
}

//! What simulating a candidate records, as the numbers a process group exchanges: a flag that
//! it was simulated, then the figures `record` sets.
constexpr std::size_t kRecordWidth = 5;

void write_record(const Candidate& candidate, double* out) {
  out[0] = candidate.simulated ? 1.0 : 0.0;
  out[1] = candidate.iteration_time_s;
  out[2] = candidate.samples_per_s;
  out[3] = candidate.mfu;
  out[4] = candidate.bubble_fraction;
}

void read_record(const double* in, Candidate& candidate) {
  candidate.simulated = in[0] > 0;
  candidate.iteration_time_s = in[1];
  candidate.samples_per_s = in[2];
  candidate.mfu = in[3];
  candidate.bubble_fraction = in[4];
}

//! Runs `step`; an InputError it throws is one candidate's reason to be set aside (its times do
//! not fit the clock, say), not the search's failure.
template <typename Step>
std::optional<std::string> unless_input_error(Step step) {
  try {
    step();
  } catch (const InputError& error) {
    return error.what();
  }
  return std::nullopt;
}

//! Takes a candidate that could not be simulated out of the valid ones, with the reason.
void set_aside(SearchResult& result, std::size_t index, const std::string& reason) {
  Candidate& candidate = result.candidates[index];
  if (candidate.status == CandidateStatus::out_of_memory) --result.out_of_memory;
  candidate.status = CandidateStatus::invalid;
  candidate.reason_text = std::make_shared<const std::string>("cannot be simulated: " + reason);
  --result.valid;
  ++result.invalid;
  ++result.cannot_be_simulated;
}

//! What simulating each of `indices` costs, in the tasks of its program (api::estimated_tasks).
std::vector<std::int64_t> simulation_costs(const SearchResult& result, const std::vector<std::size_t>& indices,
                                           const api::SimulationOptions& simulation) {
  std::vector<std::int64_t> costs;
  costs.reserve(indices.size());
  for (const std::size_t index : indices) {
    costs.push_back(
        api::estimated_tasks(result.candidates[index].job(), simulation.all_ranks, simulation.aggregate_passes));
  }
  return costs;
}

//! Fills lower_bound_s of each of `to_bound` with the bound of `stages`, reporting progress when
//! `report`; sets aside a candidate whose bound cannot be computed.
void compute_bounds(SearchResult& result, const std::vector<std::size_t>& to_bound,
                    const api::SimulationOptions& simulation, const SearchOptions& options, bound::BoundStages stages,
                    bool report) {
  std::mutex progress_mutex;
  std::size_t done = 0;
  share_out(
      simulation_costs(result, to_bound, simulation), options.processes, options.threads, 1,
      [&](std::size_t n) {
        Candidate& candidate = result.candidates[to_bound[n]];
        auto reason = unless_input_error([&] {
          candidate.lower_bound_s = time_to_seconds(bound::iteration_lower_bound(candidate.job(), simulation, stages));
        });
        if (report && options.bound_progress) {
          const std::lock_guard lock(progress_mutex);
          options.bound_progress(++done, to_bound.size());
        }
        return reason;
      },
      [&](std::size_t n, double* out) { *out = result.candidates[to_bound[n]].lower_bound_s; },
      [&](std::size_t n, const double* in) { result.candidates[to_bound[n]].lower_bound_s = *in; },
      [&](std::size_t n, const std::string& reason) { set_aside(result, to_bound[n], reason); });
}

//! How a search simulates each candidate: passes aggregated.
api::SimulationOptions search_simulation(const SearchOptions& options) {
  api::SimulationOptions simulation = options.simulation;
  simulation.aggregate_passes = true;
  return simulation;
}

//! Simulates the candidates of `batch` on every process and records them, counting each in `done`.
void simulate_batch(SearchResult& result, const std::vector<std::size_t>& batch, const SearchOptions& options,
                    std::size_t total, std::size_t& done, Simulated& simulated) {
  const api::SimulationOptions simulation = search_simulation(options);
  std::mutex progress_mutex;
  share_out(
      simulation_costs(result, batch, simulation), options.processes, options.threads, kRecordWidth,
      [&](std::size_t n) {
        Candidate& candidate = result.candidates[batch[n]];
        auto reason = unless_input_error([&] { record(candidate, api::simulate(candidate.job(), simulation)); });
        if (options.progress) {
          const std::lock_guard lock(progress_mutex);
          options.progress(++done, total);
        }
        return reason;
      },
      [&](std::size_t n, double* out) { write_record(result.candidates[batch[n]], out); },
      [&](std::size_t n, const double* in) { read_record(in, result.candidates[batch[n]]); },
      [&](std::size_t n, const std::string& reason) { set_aside(result, batch[n], reason); });
  if (options.progress && batch.empty() && done > 0) {
    options.progress(done, total);
  }
  for (const std::size_t index : batch) {
    set_time_to_train(result.candidates[index], options.goal);
    if (result.candidates[index].status == CandidateStatus::ok) simulated.add(result.candidates[index]);
  }
}

//! Simulates the candidates in the order of their lower bounds, kBatch at a time, and prunes each
//! that the simulated ones exclude when its turn comes. Every candidate is first bounded by the
//! stage that holds its LM head (bound::BoundStages::head), which costs one stage's pricing and
//! prunes most; the whole bound is computed only for those it does not prune, kBatch at a time in
//! the order of their head bounds, as far as needed for the next batch to be the kBatch least whole
//! bounds of all still undecided (a head bound is never above the whole one). With `keep` 0 there is
//! no pruning: every candidate is simulated, in order.
void simulate_in_bound_order(SearchResult& result, std::vector<std::size_t> to_simulate, const SearchOptions& options) {
  const api::SimulationOptions simulation = search_simulation(options);
  std::size_t total = to_simulate.size();
  Simulated simulated(options.keep, options.objectives);
  std::size_t done = 0;
  if (options.keep == 0) {
    for (std::size_t first = 0; first < to_simulate.size(); first += kBatch) {
      const std::vector<std::size_t> batch(
          to_simulate.begin() + static_cast<std::ptrdiff_t>(first),
          to_simulate.begin() + static_cast<std::ptrdiff_t>(std::min(first + kBatch, to_simulate.size())));
      simulate_batch(result, batch, options, total, done, simulated);
    }
    return;
  }
  // A candidate whose bound cannot be computed is set aside: decided, for the progress.
  const auto bound_candidates = [&](std::vector<std::size_t>& indices, bound::BoundStages stages) {
    compute_bounds(result, indices, simulation, options, stages, stages == bound::BoundStages::head);
    done +=
        std::erase_if(indices, [&](std::size_t i) { return result.candidates[i].status == CandidateStatus::invalid; });
    for (const std::size_t index : indices) set_time_to_train_bound(result.candidates[index], options.goal);
  };
  bound_candidates(to_simulate, bound::BoundStages::head);
  total = to_simulate.size();
  done = 0;
  const Objective ranked = options.objectives.rank;
  const auto bound_of = [&](std::size_t index) { return objective_bound(result.candidates[index], ranked); };
  std::stable_sort(to_simulate.begin(), to_simulate.end(),
                   [&](std::size_t a, std::size_t b) { return bound_of(a) < bound_of(b); });
  // Only fitting candidates are ranked; out-of-memory ones are simulated when asked, never pruned.
  const auto pruned = [&](std::size_t index) {
    Candidate& candidate = result.candidates[index];
    const std::optional<Exclusion> exclusion =
        candidate.status == CandidateStatus::ok ? simulated.excludes(candidate) : std::nullopt;
    if (!exclusion) return false;
    candidate.status = CandidateStatus::pruned;
    candidate.reason_text = std::make_shared<const std::string>(pruned_reason(candidate, options, *exclusion));
    ++result.pruned_by_bound;
    ++done;  // decided too: progress counts it with the next batch
    return true;
  };
  std::set<std::pair<double, std::size_t>> bounded;  // by whole bound, then index
  std::size_t next = 0;                              // the first in to_simulate not bounded whole
  const auto batch_is_next = [&] {
    if (next == to_simulate.size()) return true;
    if (bounded.size() < kBatch) return false;
    return std::next(bounded.begin(), kBatch - 1)->first <= bound_of(to_simulate[next]);
  };
  while (next < to_simulate.size() || !bounded.empty()) {
    while (!batch_is_next()) {
      std::vector<std::size_t> window;
      while (next < to_simulate.size() && window.size() < kBatch) {
        const std::size_t index = to_simulate[next++];
        if (!pruned(index)) window.push_back(index);
      }
      bound_candidates(window, bound::BoundStages::all);
      for (const std::size_t index : window) bounded.emplace(bound_of(index), index);
    }
    std::vector<std::size_t> batch;
    for (std::size_t n = 0; n < kBatch && !bounded.empty(); ++n) {
      const std::size_t index = bounded.begin()->second;
      bounded.erase(bounded.begin());
      if (!pruned(index)) batch.push_back(index);
    }
    simulate_batch(result, batch, options, total, done, simulated);
  }
}

//! "256", or "128, 256 or 512" when the space lists several node counts.
std::string gpu_counts_text(const SearchSpace& space) {
  const auto counts = space.cluster_node_counts();
  std::string text;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    if (i > 0) text += i + 1 == counts.size() ? " or " : ", ";
    text += std::to_string(counts[i] * space.base.cluster.gpus_per_host);
  }
  return text;
}

void advise_on_memory(SearchResult& result) {
  for (std::size_t i = 0; i < result.candidates.size(); ++i) {
    const Candidate& candidate = result.candidates[i];
    if (candidate.status != CandidateStatus::out_of_memory) continue;
    if (!result.leanest || candidate.peak_memory_bytes < result.candidates[*result.leanest].peak_memory_bytes) {
      result.leanest = i;
    }
  }
  if (result.leanest) {
    result.memory_remedies = memory_remedies(result.candidates[*result.leanest], result.memory_limit_bytes);
  }
}

double memory_limit(const SearchSpace& space, const SearchOptions& options) {
  if (options.memory_limit_bytes) return *options.memory_limit_bytes;
  return static_cast<double>(std::llround(space.base.cluster.least_gpu_memory_gb() * kGiB));
}

}  // namespace

std::optional<std::size_t> SearchResult::fastest() const {
  const auto found = std::min_element(ranking.begin(), ranking.end(), [&](std::size_t a, std::size_t b) {
    return candidates[a].samples_per_s > candidates[b].samples_per_s;
  });
  return found == ranking.end() ? std::nullopt : std::optional<std::size_t>(*found);
}

std::optional<std::size_t> SearchResult::slowest() const {
  // The last of equals, as the ranking by throughput lists them.
  const auto found = std::min_element(ranking.rbegin(), ranking.rend(), [&](std::size_t a, std::size_t b) {
    return candidates[a].samples_per_s < candidates[b].samples_per_s;
  });
  return found == ranking.rend() ? std::nullopt : std::optional<std::size_t>(*found);
}

double SearchResult::best_worst_ratio() const {
  if (ranking.empty()) return 0.0;
  const double worst = candidates[*slowest()].samples_per_s;
  return worst > 0 ? candidates[*fastest()].samples_per_s / worst : 0.0;
}

SearchResult run_search(const SearchSpace& space, const SearchOptions& options) {
  for (const Objective objective : {options.objectives.rank, options.objectives.trade_off}) {
    if (objective == Objective::time_to_train && !options.goal.tokens) {
      throw InputError("objective 'time-to-train' needs the tokens to train on: give --tokens (or tokens under "
                       "goodput: in a job file)");
    }
  }
  SearchResult result;
  result.objectives = options.objectives;
  result.goal = options.goal;
  result.memory_limit_bytes = memory_limit(space, options);
  const api::SimulationOptions simulation = search_simulation(options);
  CandidateChecks checks;
  checks.memory_limit_bytes = options.memory_limit_bytes.value_or(0);
  checks.threads = options.threads;
  checks.progress = options.check_progress;
  checks.as_simulated = [&](const strategy::JobSpec& job) { return api::job_as_simulated(job, simulation); };
  // A candidate too large to simulate is set aside with the reason, not the whole search.
  checks.size_problem = [&](const Candidate& candidate, const strategy::JobSpec& job) {
    const bool would_simulate = candidate.status == CandidateStatus::ok ||
                                (candidate.status == CandidateStatus::out_of_memory && options.simulate_out_of_memory);
    return would_simulate ? api::job_size_problem(job, simulation) : std::string();
  };
  result.candidates = enumerate_candidates(space, checks);
  std::vector<std::size_t> to_simulate;
  for (std::size_t i = 0; i < result.candidates.size(); ++i) {
    Candidate& candidate = result.candidates[i];
    if (candidate.status == CandidateStatus::invalid) {
      ++result.invalid;
      continue;
    }
    ++result.valid;
    if (candidate.status == CandidateStatus::out_of_memory) {
      ++result.out_of_memory;
      if (!options.simulate_out_of_memory) continue;
    }
    to_simulate.push_back(i);
  }
  // Also when all that were simulated were set aside: those that cannot be simulated are invalid.
  const auto refuse_when_none_valid = [&] {
    const bool none_simulated = std::none_of(result.candidates.begin(), result.candidates.end(),
                                             [](const Candidate& candidate) { return candidate.simulated; });
    if (result.valid > 0 && !(result.cannot_be_simulated > 0 && none_simulated)) return;
    throw InputError("no valid strategy among " + std::to_string(result.candidates.size()) + " candidates for " +
                     gpu_counts_text(space) + " GPUs:" + invalid_summary(result.candidates));
  };
  refuse_when_none_valid();
  simulate_in_bound_order(result, std::move(to_simulate), options);
  refuse_when_none_valid();
  rank(result);
  if (result.ranking.empty()) advise_on_memory(result);
  return result;
}

}  // namespace distsim::search
