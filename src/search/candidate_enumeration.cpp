#include "search/strategy_search.hpp"

#include <algorithm>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "api/simulation.hpp"
#include "core/byte_units.hpp"
#include "core/input_error.hpp"
#include "core/parallel_for.hpp"
#include "memory/memory_estimate.hpp"
#include "options/job_option.hpp"
#include "schedule/pipeline_schedule.hpp"
#include "search/search_space.hpp"
#include "strategy/pipeline_layout.hpp"

namespace distsim::search {

namespace {

//! Below this many combinations of searched values, candidates are built on one thread.
constexpr std::size_t kCombinationsForThreads = 4096;

//! One copy of each reason text the candidates give, which they share.
class ReasonTexts {
 public:
  std::shared_ptr<const std::string> of(std::string text) {
    auto& shared = texts_[text];
    if (!shared) shared = std::make_shared<const std::string>(std::move(text));
    return shared;
  }
  //! The copy of `text` kept here, `text` itself when it is the first of its kind.
  std::shared_ptr<const std::string> adopt(const std::shared_ptr<const std::string>& text) {
    auto& shared = texts_[*text];
    if (!shared) shared = text;
    return shared;
  }

 private:
  std::unordered_map<std::string, std::shared_ptr<const std::string>> texts_;
};

//! The reason `job` does not fit, when it does not; empty otherwise. Sets the candidate's peak memory.
//! Each stage is held to the limit, or without one to its GPU's capacity.
std::string memory_problem(Candidate& candidate, const strategy::JobSpec& job, const CandidateChecks& checks) {
  const double memory_limit_bytes = checks.memory_limit_bytes;
  // A balanced layout's stages hold the layers the simulation will give them.
  const memory::MemoryEstimate estimate = !strategy::asks_balanced_layout(job.strategy) ? memory::estimate_memory(job)
                                          : checks.as_simulated ? memory::estimate_memory(checks.as_simulated(job))
                                                                : memory::estimate_memory(api::job_as_simulated(job));
  candidate.peak_memory_bytes = static_cast<double>(estimate.peak().total());
  const auto limit_of = [&](const memory::StageMemory& stage) {
    return memory_limit_bytes > 0 ? memory_limit_bytes : static_cast<double>(stage.capacity);
  };
  const memory::StageMemory* worst = nullptr;
  for (const auto& stage : estimate.stages) {
    const double over = static_cast<double>(stage.total()) - limit_of(stage);
    if (over > 0 && (worst == nullptr || over > static_cast<double>(worst->total()) - limit_of(*worst))) worst = &stage;
  }
  if (worst == nullptr) return {};
  return fmt::format("stage {} needs {:.1f} GiB, the {} {} {:.1f} GiB", worst->stage,
                     static_cast<double>(worst->total()) / kGiB, worst->gpu,
                     memory_limit_bytes > 0 ? "is limited to" : "has", limit_of(*worst) / kGiB);
}

//! Checks `candidate`, whose job is `job`, against the job rules and then against memory; its
//! reason, if any, comes from `reasons`.
void check_candidate(Candidate& candidate, const strategy::JobSpec& job, const CandidateChecks& checks,
                     ReasonTexts& reasons) {
  std::string problem;
  try {
    problem = schedule::job_problems_message(job);
  } catch (const InputError& error) {
    problem = error.what();
  }
  if (!problem.empty()) {
    candidate.status = CandidateStatus::invalid;
    candidate.reason_text = reasons.of(std::move(problem));
    return;
  }
  std::string too_large = memory_problem(candidate, job, checks);
  if (!too_large.empty()) {
    candidate.status = CandidateStatus::out_of_memory;
    candidate.reason_text = reasons.of(std::move(too_large));
  }
  if (checks.size_problem) {
    if (std::string beyond = checks.size_problem(candidate, job); !beyond.empty()) {
      candidate.status = CandidateStatus::invalid;
      candidate.reason_text = reasons.of(std::move(beyond));
    }
  }
}

//! Checks every candidate, in blocks of consecutive ones shared out over `threads` (each block
//! copies the model and cluster of a cluster size once), then gives equal reasons one text. A
//! failure is that of the first candidate that fails (parallel_for), whatever the threads.
void check_candidates(std::vector<Candidate>& candidates, const CandidateChecks& checks) {
  constexpr std::size_t kBlock = 64;
  const std::size_t blocks = (candidates.size() + kBlock - 1) / kBlock;
  std::vector<ReasonTexts> block_reasons(blocks);
  std::mutex progress_mutex;
  std::size_t checked = 0;
  parallel_for(blocks, checks.threads, [&](std::size_t block) {
    strategy::JobSpec job;
    const ModelOnCluster* setting = nullptr;
    for (std::size_t i = block * kBlock; i < std::min(candidates.size(), (block + 1) * kBlock); ++i) {
      Candidate& candidate = candidates[i];
      if (candidate.setting.get() != setting) {
        setting = candidate.setting.get();
        job.model = setting->model;
        job.cluster = setting->cluster;
      }
      job.strategy = candidate.strategy;
      check_candidate(candidate, job, checks, block_reasons[block]);
    }
    if (checks.progress) {
      const std::lock_guard lock(progress_mutex);
      checked += std::min(kBlock, candidates.size() - block * kBlock);
      checks.progress(checked, candidates.size());
    }
  });
  ReasonTexts reasons;
  const std::string* last = nullptr;
  std::shared_ptr<const std::string> last_shared;
  for (Candidate& candidate : candidates) {
    if (!candidate.reason_text) continue;
    if (candidate.reason_text.get() != last) {
      last = candidate.reason_text.get();
      last_shared = reasons.adopt(candidate.reason_text);
    }
    candidate.reason_text = last_shared;
  }
}

//! Builds candidates one searched setting at a time, in table order, so that a free setting's
//! values can follow the ones set before it (virtual stages follow the pipeline size). A walk
//! changes one job in place: a searched setting sets the strategy only (JobOption::search_values),
//! so each level puts back the strategy it found, and the model and cluster of each cluster size
//! are copied once, into the setting its candidates share. Each value of the first searched
//! setting on each cluster size roots a subtree that threads walk side by side: once to count its
//! candidates, so that the large array of them is allocated once (a million candidates take
//! 300 MB, which growing would copy and fault in again and again), and once to fill its slice.
class CandidateBuilder {
 public:
  explicit CandidateBuilder(const SearchSpace& space) : space_(space), options_(varied_options(space)) {
    for (std::size_t level = 0; level < options_.size(); ++level) {
      for (int dim = 0; dim < strategy::kParallelDimCount; ++dim) {
        if (options_[level]->key == strategy::parallel_dim_name(static_cast<strategy::ParallelDim>(dim))) {
          last_size_level_ = level;
        }
      }
    }
  }

  std::vector<Candidate> build(int threads) {
    const std::vector<Root> roots = find_roots();
    // Starting threads costs more than walking a small space on one.
    if (combinations(roots) < kCombinationsForThreads) threads = 1;
    std::vector<std::size_t> offsets(roots.size() + 1, 0);
    parallel_for(roots.size(), threads, [&](std::size_t i) { offsets[i + 1] = Walk(*this, roots[i], nullptr).run(); });
    for (std::size_t i = 1; i < offsets.size(); ++i) offsets[i] += offsets[i - 1];
    std::vector<Candidate> candidates(offsets.back());
    parallel_for(roots.size(), threads,
                 [&](std::size_t i) { Walk(*this, roots[i], candidates.data() + offsets[i]).run(); });
    return candidates;
  }

 private:
  //! Where a subtree starts: a cluster size's job with the settings of the levels above `level`.
  struct Root {
    std::shared_ptr<const ModelOnCluster> setting;
    strategy::Strategy strategy;
    std::size_t level = 0;
  };

  std::vector<Root> find_roots() const {
    std::vector<Root> roots;
    const options::JobOption& nodes = options::option("nodes");
    for (const int count : space_.cluster_node_counts()) {
      strategy::JobSpec job = space_.base;
      nodes.apply(count, job, {});
      auto setting = std::make_shared<const ModelOnCluster>(ModelOnCluster{job.model, job.cluster});
      if (options_.empty()) {
        roots.push_back({setting, job.strategy, 0});
        continue;
      }
      const strategy::Strategy found = job.strategy;
      for (const auto& value : values_of(0, job)) {
        job.strategy = found;
        if (apply(0, value, job)) roots.push_back({setting, job.strategy, 1});
      }
    }
    return roots;
  }

  //! About how many combinations the walks try: the roots times the values each later setting has
  //! on the base job.
  std::size_t combinations(const std::vector<Root>& roots) const {
    std::size_t product = roots.size();
    for (std::size_t level = 1; level < options_.size() && product < kCombinationsForThreads; ++level) {
      product *= std::max<std::size_t>(values_of(level, space_.base).size(), 1);
    }
    return product;
  }

  std::vector<options::Value> values_of(std::size_t level, const strategy::JobSpec& job) const {
    const options::JobOption& option = *options_[level];
    const auto listed = space_.listed.find(option.key);
    return listed != space_.listed.end() ? listed->second : option.search_values(job);
  }

  //! Sets the value; false when the job it gives is no candidate: once every parallel size is set,
  //! only splits that use the whole cluster are.
  bool apply(std::size_t level, const options::Value& value, strategy::JobSpec& job) const {
    options_[level]->apply(value, job, {});
    return level != last_size_level_ || job.strategy.world_size() == job.cluster.total_gpus();
  }

  //! One subtree, counted (no output) or written to `out` in order.
  class Walk {
   public:
    Walk(const CandidateBuilder& builder, const Root& root, Candidate* out)
        : builder_(builder), root_(root), out_(out) {
      job_.model = root.setting->model;
      job_.cluster = root.setting->cluster;
      job_.strategy = root.strategy;
    }
    //! The candidates of the subtree.
    std::size_t run() {
      expand(root_.level);
      return written_;
    }

   private:
    void expand(std::size_t level) {
      if (level == builder_.options_.size()) {
        if (out_ != nullptr) {
          out_[written_].setting = root_.setting;
          out_[written_].strategy = job_.strategy;
        }
        ++written_;
        return;
      }
      const strategy::Strategy found = job_.strategy;
      for (const auto& value : builder_.values_of(level, job_)) {
        job_.strategy = found;
        if (builder_.apply(level, value, job_)) expand(level + 1);
      }
      job_.strategy = found;
    }

    const CandidateBuilder& builder_;
    const Root& root_;
    Candidate* out_;
    strategy::JobSpec job_;
    std::size_t written_ = 0;
  };

  const SearchSpace& space_;
  std::vector<const options::JobOption*> options_;
  std::size_t last_size_level_ = 0;
};

}  // namespace

std::vector<Candidate> enumerate_candidates(const SearchSpace& space, const CandidateChecks& checks) {
  check_search_space(space);
  std::vector<Candidate> candidates = CandidateBuilder(space).build(checks.threads);
  check_candidates(candidates, checks);
  return candidates;
}

std::vector<Candidate> enumerate_candidates(const SearchSpace& space, double memory_limit_bytes, int threads) {
  CandidateChecks checks;
  checks.memory_limit_bytes = memory_limit_bytes;
  checks.threads = threads;
  return enumerate_candidates(space, checks);
}

}  // namespace distsim::search
