#include "strategy/placement_classes.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <unordered_map>

namespace distsim::strategy {

namespace {

//! The smallest run of data-parallel indices holding whole expert groups (each expert-model-parallel
//! unit of ETP·EP consecutive stage ranks) and whole shard groups.
int block_size_of(const RankLayout& layout, int dp_per_shard) {
  const int tp_cp = layout.size(ParallelDim::tp) * layout.size(ParallelDim::cp);
  const int unit = std::max(layout.folding().expert_parallel, 1) * std::max(layout.folding().expert_tensor_parallel, 1);
  const bool has_expert_grid = (tp_cp * layout.size(ParallelDim::dp)) % unit == 0;
  const int experts = has_expert_grid ? unit / std::gcd(unit, tp_cp) : 1;
  return std::lcm(experts, std::max(dp_per_shard, 1));
}

//! Numbers values in the order they first appear.
class FirstSeen {
 public:
  int number(int value) { return table_.emplace(value, static_cast<int>(table_.size())).first->second; }

 private:
  std::unordered_map<int, int> table_;
};

//! Which of a block's ranks share a host and which share a domain: each rank's host and domain,
//! numbered in the order they first appear, rank by rank in a fixed order; with `compute`, how
//! each rank computes besides.
std::vector<int> block_pattern(const RankLayout& layout, int first_dp, int block_size, const RankCompute* compute) {
  std::vector<int> pattern;
  FirstSeen hosts;
  FirstSeen domains;
  for (int pp = 0; pp < layout.size(ParallelDim::pp); ++pp) {
    for (int dp = first_dp; dp < first_dp + block_size; ++dp) {
      for (int cp = 0; cp < layout.size(ParallelDim::cp); ++cp) {
        for (int tp = 0; tp < layout.size(ParallelDim::tp); ++tp) {
          const int rank = layout.rank_of(
              {{ParallelDim::tp, tp}, {ParallelDim::cp, cp}, {ParallelDim::dp, dp}, {ParallelDim::pp, pp}});
          pattern.push_back(hosts.number(layout.host_of(rank)));
          pattern.push_back(domains.number(layout.domain_of(rank)));
          if (compute != nullptr) pattern.push_back(compute->kind_of_rank(rank));
        }
      }
    }
  }
  return pattern;
}

}  // namespace

PlacementClasses::PlacementClasses(const RankLayout& layout, int dp_per_shard, bool merge_alike,
                                   const RankCompute* compute)
    : block_size_(block_size_of(layout, dp_per_shard)), num_blocks_(layout.size(ParallelDim::dp) / block_size_) {
  if (!merge_alike) {
    class_of_cycle_.resize(static_cast<size_t>(num_blocks_));
    std::iota(class_of_cycle_.begin(), class_of_cycle_.end(), 0);
    representatives_ = class_of_cycle_;
    return;
  }
  // Moving a block by `shift` ranks moves its pattern whole when the shift is a multiple of the
  // domain's GPUs, so blocks `cycle` apart are alike.
  const int domain = layout.packing().gpus_per_domain;
  const int shift = (layout.rank_of({{ParallelDim::dp, block_size_}}) - layout.rank_of({})) % domain;
  if (compute != nullptr && !compute->varies()) compute = nullptr;
  const int cycle = compute != nullptr ? num_blocks_ : std::min(num_blocks_, domain / std::gcd(shift, domain));
  std::map<std::vector<int>, int> classes;
  for (int block = 0; block < cycle; ++block) {
    const auto found =
        classes.emplace(block_pattern(layout, block * block_size_, block_size_, compute), num_classes()).first;
    if (found->second == num_classes()) representatives_.push_back(block);
    class_of_cycle_.push_back(found->second);
  }
}

int PlacementClasses::simulated_position(int dp) const {
  const int block = dp / block_size_;
  const int position = class_of_block(block);
  return representatives_[static_cast<size_t>(position)] == block ? position * block_size_ + dp % block_size_ : -1;
}

int PlacementClasses::standing_position(int dp) const {
  return class_of_block(dp / block_size_) * block_size_ + dp % block_size_;
}

int PlacementClasses::simulated_index(int position) const {
  return representatives_[static_cast<size_t>(position / block_size_)] * block_size_ + position % block_size_;
}

int PlacementClasses::indices_standing_for(int position) const {
  const int wanted = position / block_size_;
  int blocks = 0;
  for (int block = 0; block < cycle(); ++block) {
    if (class_of_cycle_[static_cast<size_t>(block)] == wanted) {
      blocks += num_blocks_ / cycle() + (block < num_blocks_ % cycle() ? 1 : 0);
    }
  }
  return blocks;
}

}  // namespace distsim::strategy
