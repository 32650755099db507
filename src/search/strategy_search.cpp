#include "search/strategy_search.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <map>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "core/input_error.hpp"
#include "core/parallel_for.hpp"
#include "memory/memory_estimate.hpp"
#include "schedule/pipeline_schedule.hpp"
#include "search/pareto_front.hpp"

namespace distsim::search {

namespace {

void check_memory(Candidate& candidate) {
  const memory::MemoryEstimate estimate = memory::estimate_memory(candidate.job);
  const memory::StageMemory& peak = estimate.peak();
  candidate.peak_memory_bytes = static_cast<double>(peak.total());
  if (!estimate.fits()) {
    constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
    candidate.status = CandidateStatus::out_of_memory;
    candidate.reason = fmt::format("stage {} needs {:.1f} GiB, the {} has {:.1f} GiB", peak.stage,
                                   static_cast<double>(peak.total()) / kGiB, candidate.job.cluster.gpu.name,
                                   static_cast<double>(estimate.capacity) / kGiB);
  }
}

Candidate make_candidate(const SearchSpace& space, const strategy::Strategy& sizes, int micro_batch,
                         const std::string& schedule, strategy::Recompute recompute) {
  Candidate candidate;
  candidate.job = space.base;
  auto& s = candidate.job.strategy;
  s.tensor_parallel = sizes.tensor_parallel;
  s.pipeline_parallel = sizes.pipeline_parallel;
  s.data_parallel = sizes.data_parallel;
  s.expert_parallel = sizes.expert_parallel;
  s.micro_batch_size = micro_batch;
  s.schedule = schedule;
  s.recompute = recompute;
  s.virtual_stages = schedule::find_schedule(schedule).chunks_per_stage(space.base.strategy.virtual_stages);
  try {
    schedule::validate_job(candidate.job);
  } catch (const InputError& error) {
    candidate.status = CandidateStatus::invalid;
    candidate.reason = error.what();
    return candidate;
  }
  check_memory(candidate);
  return candidate;
}

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

}  // namespace

double SearchResult::best_worst_ratio() const {
  if (ranking.empty()) return 0.0;
  const double worst = candidates[ranking.back()].samples_per_s;
  return worst > 0 ? candidates[ranking.front()].samples_per_s / worst : 0.0;
}

std::vector<Candidate> enumerate_candidates(const SearchSpace& space) {
  check_search_space(space);
  std::vector<Candidate> candidates;
  const auto schedules = schedules_to_try(space);
  for (auto sizes : parallel_size_triples(space.base.cluster.total_gpus())) {
    for (const int expert_parallel : expert_parallel_sizes(space.base, sizes)) {
      sizes.expert_parallel = expert_parallel;
      for (const int micro_batch : space.micro_batch_sizes) {
        for (const auto& schedule : schedules) {
          for (const auto recompute : space.recompute) {
            candidates.push_back(make_candidate(space, sizes, micro_batch, schedule, recompute));
          }
        }
      }
    }
  }
  return candidates;
}

SearchResult run_search(const SearchSpace& space, const SearchOptions& options) {
  SearchResult result;
  result.candidates = enumerate_candidates(space);
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
  api::SimulationOptions simulation = options.simulation;
  simulation.aggregate_passes = true;
  std::mutex progress_mutex;
  std::size_t done = 0;
  parallel_for(to_simulate.size(), options.threads, [&](std::size_t n) {
    Candidate& candidate = result.candidates[to_simulate[n]];
    record(candidate, api::simulate(candidate.job, simulation));
    if (options.progress) {
      const std::lock_guard lock(progress_mutex);
      options.progress(++done, to_simulate.size());
    }
  });
  rank(result);
  return result;
}

}  // namespace distsim::search
