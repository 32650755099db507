#include "search/memory_remedy.hpp"

#include <functional>

#include "core/input_error.hpp"
#include "memory/memory_estimate.hpp"
#include "schedule/pipeline_schedule.hpp"

namespace distsim::search {

namespace {

using Change = std::function<bool(Candidate&)>;  // false when the change does not apply

//! Twice the stages, the GPUs taken from data parallelism, else from tensor or context parallelism.
bool more_stages(Candidate& c) {
  strategy::Strategy& s = c.strategy;
  for (int strategy::Strategy::*from : {&strategy::Strategy::data_parallel, &strategy::Strategy::tensor_parallel,
                                        &strategy::Strategy::context_parallel}) {
    if (s.*from % 2 == 0) {
      s.*from /= 2;
      s.pipeline_parallel *= 2;
      return true;
    }
  }
  return false;
}

bool full_recompute(Candidate& c) {
  strategy::Strategy& s = c.strategy;
  if (s.recompute == strategy::Recompute::full) return false;
  s.recompute = strategy::Recompute::full;
  return true;
}

//! The deepest ZeRO stage beyond the candidate's that distsim models for its model.
bool more_sharding(Candidate& c) {
  using strategy::Sharding;
  strategy::Strategy& s = c.strategy;
  if (s.shard_group_size() == 1) return false;
  for (const Sharding stage : {Sharding::full, Sharding::gradients, Sharding::optimizer}) {
    if (stage <= s.zero_stage()) return false;
    if (strategy::sharding_model_problems(c.job(), stage).empty()) {
      s.sharding = stage;
      s.distributed_optimizer = false;
      return true;
    }
  }
  return false;
}

bool all_three(Candidate& c) {
  bool changed = false;
  for (const auto& change : {more_stages, full_recompute, more_sharding}) {
    Candidate next = c;
    if (change(next)) {
      c = next;
      changed = true;
    }
  }
  return changed;
}

}  // namespace

std::vector<MemoryRemedy> memory_remedies(const Candidate& leanest, double memory_limit_bytes) {
  const std::vector<std::pair<std::string, Change>> changes{{"more pipeline stages", more_stages},
                                                            {"full recomputation", full_recompute},
                                                            {"more sharding", more_sharding},
                                                            {"all three", all_three}};
  std::vector<MemoryRemedy> remedies;
  for (const auto& [name, change] : changes) {
    MemoryRemedy remedy{name, leanest, false};
    if (!change(remedy.changed)) continue;
    const strategy::JobSpec job = remedy.changed.job();
    try {
      schedule::validate_job(job);
    } catch (const InputError&) {
      continue;
    }
    remedy.changed.peak_memory_bytes = static_cast<double>(memory::estimate_memory(job).peak().total());
    remedy.fits = remedy.changed.peak_memory_bytes <= memory_limit_bytes;
    if (remedy.changed.peak_memory_bytes < leanest.peak_memory_bytes) remedies.push_back(std::move(remedy));
  }
  return remedies;
}

}  // namespace distsim::search
