#include "search/search_space.hpp"

#include <algorithm>

#include "core/input_error.hpp"
#include "schedule/pipeline_schedule.hpp"
#include "strategy/job_spec.hpp"

namespace distsim::search {

namespace {

template <typename T>
void require_non_empty(const std::vector<T>& values, const std::string& flag) {
  if (values.empty()) {
    throw InputError("empty search space: " + flag + " lists no values");
  }
}

}  // namespace

const std::vector<std::string>& searched_keys() {
  static const std::vector<std::string> keys{"strategy",         "tp",       "pp",        "dp", "cp",
                                             "micro_batch_size", "schedule", "recompute", "ep"};
  return keys;
}

std::vector<std::string> schedules_to_try(const SearchSpace& space) {
  std::vector<std::string> names;
  const auto add = [&names](const std::string& name) {
    if (std::find(names.begin(), names.end(), name) == names.end()) {
      names.push_back(name);
    }
  };
  for (const auto& name : space.schedules) {
    if (name == kAllSchedules) {
      for (const auto& known : schedule::schedule_names()) {
        add(known);
      }
    } else {
      add(name);
    }
  }
  return names;
}

void check_search_space(const SearchSpace& space) {
  require_non_empty(space.micro_batch_sizes, "--micro-batch-sizes");
  require_non_empty(space.schedules, "--schedules");
  require_non_empty(space.recompute, "--recompute");
  const int global_batch = space.base.strategy.global_batch_size;
  if (global_batch <= 0) {
    throw InputError("--global-batch-size must be positive, got " + std::to_string(global_batch));
  }
  for (const int size : space.micro_batch_sizes) {
    if (size <= 0 || global_batch % size != 0) {
      throw InputError("--micro-batch-sizes: " + std::to_string(size) + " does not divide the global batch size " +
                       std::to_string(global_batch) + "; use divisors of it");
    }
  }
  for (const auto& name : schedules_to_try(space)) {
    try {
      schedule::find_schedule(name);
    } catch (const InputError& error) {
      throw InputError(std::string("--schedules: ") + error.what());
    }
  }
  // Every candidate would be refused for the same reason: say it once, before enumerating them.
  if (const auto problems = strategy::unsimulated_features(space.base.model); !problems.empty()) {
    throw InputError(problems.front());
  }
  if (space.base.cluster.total_gpus() <= 0) {
    throw InputError("the cluster has no GPUs: nodes " + std::to_string(space.base.cluster.num_hosts) +
                     " x GPUs per node " + std::to_string(space.base.cluster.gpus_per_host));
  }
}

std::vector<strategy::Strategy> parallel_size_triples(int gpus) {
  std::vector<strategy::Strategy> triples;
  for (int tp = 1; tp <= gpus; ++tp) {
    if (gpus % tp != 0) continue;
    for (int pp = 1; pp <= gpus / tp; ++pp) {
      if ((gpus / tp) % pp != 0) continue;
      strategy::Strategy sizes;
      sizes.tensor_parallel = tp;
      sizes.pipeline_parallel = pp;
      sizes.data_parallel = gpus / tp / pp;
      triples.push_back(sizes);
    }
  }
  return triples;
}

std::vector<int> expert_parallel_sizes(const strategy::JobSpec& base, const strategy::Strategy& sizes) {
  const auto& moe = base.model.moe;
  if (!moe.enabled()) {
    return {base.strategy.expert_parallel};
  }
  const int stage_ranks = sizes.tensor_parallel * base.strategy.context_parallel * sizes.data_parallel;
  std::vector<int> valid;
  for (int ep = 1; ep <= moe.num_experts; ++ep) {
    if (moe.num_experts % ep == 0 && stage_ranks % (ep * base.strategy.expert_tensor_parallel) == 0) {
      valid.push_back(ep);
    }
  }
  return valid;
}

}  // namespace distsim::search
