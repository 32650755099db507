#include <string>
#include <vector>

#include "strategy/job_checks.hpp"

namespace distsim::strategy::detail {

//! Each slow rank, stage or host must be one the job has.
void check_variability(const JobSpec& job, const SettingNames& names, Problems& problems) {
  const Strategy& s = job.strategy;
  for (const auto& slow : job.variability.slow) {
    const int count = slow.scope == SlowScope::rank    ? s.world_size()
                      : slow.scope == SlowScope::stage ? s.pipeline_parallel
                                                       : job.cluster.num_hosts;
    const char* what = slow.scope == SlowScope::rank ? "rank" : slow.scope == SlowScope::stage ? "stage" : "host";
    if (slow.index >= count) {
      problems.push_back(name_of(names, "slow_ranks") + ": " + what + " " + std::to_string(slow.index) +
                         " is not one of the job's " + std::to_string(count) + " " + what + "s (0 to " +
                         std::to_string(count - 1) + ")");
    }
  }
}

}  // namespace distsim::strategy::detail
