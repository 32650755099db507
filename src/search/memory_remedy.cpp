#include "search/memory_remedy.hpp"

#include <functional>

#include "core/input_error.hpp"
#include "memory/memory_estimate.hpp"
#include "schedule/pipeline_schedule.hpp"

namespace distsim::search {

namespace {

using Change = std::function<bool(strategy::Strategy&)>;  // false when the change does not apply

//! Twice the stages, the GPUs taken from data parallelism, else from tensor or context parallelism.
bool more_stages(strategy::Strategy& s) {
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

bool full_recompute(strategy::Strategy& s) {
  if (s.recompute == strategy::Recompute::full) return false;
  s.recompute = strategy::Recompute::full;
  return true;
}

bool distributed_optimizer(strategy::Strategy& s) {
  if (s.distributed_optimizer || s.data_parallel == 1) return false;
  s.distributed_optimizer = true;
  return true;
}

bool all_three(strategy::Strategy& s) {
  bool changed = false;
  for (const auto& change : {more_stages, full_recompute, distributed_optimizer}) {
    strategy::Strategy next = s;
    if (change(next)) {
      s = next;
      changed = true;
    }
  }
  return changed;
}

}  // namespace

std::vector<MemoryRemedy> memory_remedies(const Candidate& leanest, double memory_limit_bytes) {
  const std::vector<std::pair<std::string, Change>> changes{{"more pipeline stages", more_stages},
                                                            {"full recomputation", full_recompute},
                                                            {"distributed optimizer", distributed_optimizer},
                                                            {"all three", all_three}};
  std::vector<MemoryRemedy> remedies;
  for (const auto& [name, change] : changes) {
    MemoryRemedy remedy{name, leanest, false};
    if (!change(remedy.changed.strategy)) continue;
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
