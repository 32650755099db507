#include "strategy/rank_compute.hpp"

#include <map>

#include "strategy/rank_layout.hpp"

namespace distsim::strategy {

RankCompute::RankCompute(const JobSpec& job) : gpus_(job) {
  Variability per_replica;
  for (const auto& slow : job.variability.slow) {
    if (slow.scope != SlowScope::stage) per_replica.slow.push_back(slow);
  }
  if (per_replica.slow.empty()) return;
  const RankLayout layout(job.strategy, job.cluster);
  std::map<double, int> numbers{{1.0, 0}};
  slowdown_kinds_.reserve(static_cast<std::size_t>(layout.world_size()));
  for (int rank = 0; rank < layout.world_size(); ++rank) {
    const double factor = per_replica.factor(rank, 0, layout.host_of(rank));
    slowdown_kinds_.push_back(numbers.emplace(factor, static_cast<int>(numbers.size())).first->second);
  }
  slowdowns_ = static_cast<int>(numbers.size());
}

int RankCompute::kind_of_rank(int rank) const {
  const int slowdown = slowdown_kinds_.empty() ? 0 : slowdown_kinds_[static_cast<std::size_t>(rank)];
  return gpus_.type_of_rank(rank) * slowdowns_ + slowdown;
}

}  // namespace distsim::strategy
