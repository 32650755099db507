#include "search/strategy_search.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <numeric>

#include <fmt/format.h>

#include "core/input_error.hpp"
#include "core/parallel_for.hpp"
#include "memory/memory_estimate.hpp"
#include "schedule/pipeline_schedule.hpp"
#include "search/pareto_front.hpp"
#include "strategy/rank_layout.hpp"

namespace distsim::search {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
//! Candidates simulated between two updates of the pruning threshold: fixed, so that what is
//! pruned does not depend on the number of threads.
constexpr std::size_t kBatch = 32;

void check_memory(Candidate& candidate, double memory_limit_bytes) {
  const memory::MemoryEstimate estimate = memory::estimate_memory(candidate.job);
  const memory::StageMemory& peak = estimate.peak();
  candidate.peak_memory_bytes = static_cast<double>(peak.total());
  const double limit = memory_limit_bytes > 0 ? memory_limit_bytes : static_cast<double>(estimate.capacity);
  if (candidate.peak_memory_bytes > limit) {
    candidate.status = CandidateStatus::out_of_memory;
    candidate.reason =
        fmt::format("stage {} needs {:.1f} GiB, the {} {} {:.1f} GiB", peak.stage, candidate.peak_memory_bytes / kGiB,
                    candidate.job.cluster.gpu.name, memory_limit_bytes > 0 ? "is limited to" : "has", limit / kGiB);
  }
}

Candidate make_candidate(const strategy::JobSpec& job, double memory_limit_bytes) {
  Candidate candidate;
  candidate.job = job;
  try {
    schedule::validate_job(candidate.job);
  } catch (const InputError& error) {
    candidate.status = CandidateStatus::invalid;
    candidate.reason = error.what();
    return candidate;
  }
  check_memory(candidate, memory_limit_bytes);
  return candidate;
}

//! Builds candidates one searched setting at a time, in table order, so that a free setting's
//! values can follow the ones set before it (virtual stages follow the pipeline size).
class CandidateBuilder {
 public:
  CandidateBuilder(const SearchSpace& space, double memory_limit_bytes)
      : space_(space), options_(varied_options(space)), memory_limit_bytes_(memory_limit_bytes) {
    for (std::size_t level = 0; level < options_.size(); ++level) {
      for (int dim = 0; dim < strategy::kParallelDimCount; ++dim) {
        if (options_[level]->key == strategy::parallel_dim_name(static_cast<strategy::ParallelDim>(dim))) {
          last_size_level_ = level;
        }
      }
    }
  }

  std::vector<Candidate> build() {
    expand(0, space_.base);
    return std::move(candidates_);
  }

 private:
  void expand(std::size_t level, const strategy::JobSpec& job) {
    if (level == options_.size()) {
      candidates_.push_back(make_candidate(job, memory_limit_bytes_));
      return;
    }
    const options::JobOption& option = *options_[level];
    const auto listed = space_.listed.find(option.key);
    const std::vector<options::Value> values =
        listed != space_.listed.end() ? listed->second : option.search_values(job);
    for (const auto& value : values) {
      strategy::JobSpec next = job;
      option.apply(value, next, {});
      // Once every parallel size is set, only splits that use the whole cluster are candidates.
      if (level == last_size_level_ && next.strategy.world_size() != space_.base.cluster.total_gpus()) continue;
      expand(level + 1, next);
    }
  }

  const SearchSpace& space_;
  std::vector<const options::JobOption*> options_;
  double memory_limit_bytes_;
  std::size_t last_size_level_ = 0;
  std::vector<Candidate> candidates_;
};

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
    ++reasons[candidate.reason];
  }
  std::string text;
  for (const auto& [reason, count] : reasons) {
    text += "\n  - " + std::to_string(count) + " x " + reason;
  }
  return text;
}

void rank(SearchResult& result) {
  std::vector<ParetoPoint> points;
  std::vector<std::size_t> point_owner;
  for (std::size_t i = 0; i < result.candidates.size(); ++i) {
    const Candidate& candidate = result.candidates[i];
    if (candidate.status == CandidateStatus::ok && candidate.simulated) {
      result.ranking.push_back(i);
      points.push_back({candidate.iteration_time_s, candidate.peak_memory_bytes});
      point_owner.push_back(i);
    }
  }
  std::stable_sort(result.ranking.begin(), result.ranking.end(), [&](std::size_t a, std::size_t b) {
    return result.candidates[a].samples_per_s > result.candidates[b].samples_per_s;
  });
  for (const std::size_t point : pareto_front(points)) {
    result.pareto_front.push_back(point_owner[point]);
    result.candidates[point_owner[point]].pareto = true;
  }
}

//! The simulated candidates' times, for the pruning rule: the k-th best, and the best among
//! those that need no more memory than a given peak.
class Simulated {
 public:
  explicit Simulated(std::size_t keep) : keep_(keep) {}

  void add(const Candidate& candidate) {
    times_.insert(std::upper_bound(times_.begin(), times_.end(), candidate.iteration_time_s),
                  candidate.iteration_time_s);
    by_memory_.emplace_back(candidate.peak_memory_bytes, candidate.iteration_time_s);
  }

  //! Whether a candidate whose time is at least `bound` can be neither in the top k nor on the
  //! front of time versus memory: k simulated candidates are faster than the bound, and one of
  //! them that needs no more memory than `peak` is too.
  bool excludes(double bound, double peak) const {
    if (keep_ == 0 || times_.size() < keep_ || !(times_[keep_ - 1] < bound)) return false;
    return std::any_of(by_memory_.begin(), by_memory_.end(),
                       [&](const auto& point) { return point.first <= peak && point.second < bound; });
  }

 private:
  std::size_t keep_;
  std::vector<double> times_;
  std::vector<std::pair<double, double>> by_memory_;
};

//! Fills lower_bound_s of each candidate to simulate, on `threads` threads.
void compute_bounds(SearchResult& result, const std::vector<std::size_t>& to_simulate,
                    const api::SimulationOptions& simulation, int threads) {
  parallel_for(to_simulate.size(), threads, [&](std::size_t n) {
    Candidate& candidate = result.candidates[to_simulate[n]];
    candidate.lower_bound_s = time_to_seconds(api::compute_lower_bound(candidate.job, simulation));
  });
}

void simulate_in_bound_order(SearchResult& result, std::vector<std::size_t> to_simulate, const SearchOptions& options) {
  api::SimulationOptions simulation = options.simulation;
  simulation.aggregate_passes = true;
  if (options.keep > 0) compute_bounds(result, to_simulate, simulation, options.threads);
  std::stable_sort(to_simulate.begin(), to_simulate.end(), [&](std::size_t a, std::size_t b) {
    return result.candidates[a].lower_bound_s < result.candidates[b].lower_bound_s;
  });
  Simulated simulated(options.keep);
  std::mutex progress_mutex;
  std::size_t done = 0;
  for (std::size_t first = 0; first < to_simulate.size(); first += kBatch) {
    std::vector<std::size_t> batch;
    for (std::size_t n = first; n < std::min(first + kBatch, to_simulate.size()); ++n) {
      Candidate& candidate = result.candidates[to_simulate[n]];
      // Only fitting candidates are ranked; out-of-memory ones are simulated when asked, never pruned.
      if (candidate.status == CandidateStatus::ok &&
          simulated.excludes(candidate.lower_bound_s, candidate.peak_memory_bytes)) {
        candidate.status = CandidateStatus::pruned;
        candidate.reason =
            fmt::format("its lower bound {:.3f} s loses to the top {}", candidate.lower_bound_s, options.keep);
        ++result.pruned_by_bound;
        ++done;  // decided too: progress counts it with the batch
      } else {
        batch.push_back(to_simulate[n]);
      }
    }
    parallel_for(batch.size(), options.threads, [&](std::size_t n) {
      Candidate& candidate = result.candidates[batch[n]];
      record(candidate, api::simulate(candidate.job, simulation));
      if (options.progress) {
        const std::lock_guard lock(progress_mutex);
        options.progress(++done, to_simulate.size());
      }
    });
    if (options.progress && batch.empty() && done > 0) {
      options.progress(done, to_simulate.size());
    }
    for (const std::size_t index : batch) {
      if (result.candidates[index].status == CandidateStatus::ok) simulated.add(result.candidates[index]);
    }
  }
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
  return static_cast<double>(std::llround(space.base.cluster.gpu.memory_gb * kGiB));
}

}  // namespace

double SearchResult::best_worst_ratio() const {
  if (ranking.empty()) return 0.0;
  const double worst = candidates[ranking.back()].samples_per_s;
  return worst > 0 ? candidates[ranking.front()].samples_per_s / worst : 0.0;
}

std::vector<Candidate> enumerate_candidates(const SearchSpace& space, double memory_limit_bytes) {
  check_search_space(space);
  return CandidateBuilder(space, memory_limit_bytes).build();
}

SearchResult run_search(const SearchSpace& space, const SearchOptions& options) {
  SearchResult result;
  result.memory_limit_bytes = memory_limit(space, options);
  result.candidates = enumerate_candidates(space, options.memory_limit_bytes.value_or(0));
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
  if (result.valid == 0) {
    throw InputError("no valid strategy among " + std::to_string(result.candidates.size()) + " candidates for " +
                     std::to_string(space.base.cluster.total_gpus()) + " GPUs:" + invalid_summary(result.candidates));
  }
  simulate_in_bound_order(result, std::move(to_simulate), options);
  rank(result);
  if (result.ranking.empty()) advise_on_memory(result);
  return result;
}

}  // namespace distsim::search
