#include "strategy/rank_layout.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>

namespace distsim::strategy {

RankLayout::RankLayout(const Strategy& strategy, int gpus_per_node)
    : tp_(strategy.tensor_parallel),
      dp_(strategy.data_parallel),
      pp_(strategy.pipeline_parallel),
      gpus_per_node_(gpus_per_node) {}

RankCoord RankLayout::coord_of(int rank) const {
  RankCoord coord;
  coord.tp = rank % tp_;
  coord.dp = (rank / tp_) % dp_;
  coord.pp = rank / (tp_ * dp_);
  return coord;
}

GroupPlacement RankLayout::placement(int first_rank, int stride, int size) const {
  std::map<int, int> members_per_node;
  for (int i = 0; i < size; ++i) {
    ++members_per_node[node_of(first_rank + i * stride)];
  }
  GroupPlacement result;
  result.num_nodes = static_cast<int>(members_per_node.size());
  result.intra_node = result.num_nodes == 1;
  for (const auto& [node, count] : members_per_node) {
    result.ranks_per_node = std::max(result.ranks_per_node, count);
  }
  return result;
}

GroupPlacement RankLayout::tensor_group(RankCoord coord) const {
  return placement(rank_of({0, coord.dp, coord.pp}), 1, tp_);
}

GroupPlacement RankLayout::data_group(RankCoord coord) const {
  return placement(rank_of({coord.tp, 0, coord.pp}), tp_, dp_);
}

GroupPlacement RankLayout::stage_link(RankCoord coord, int to_stage) const {
  const int from = rank_of(coord);
  const int to = rank_of({coord.tp, coord.dp, to_stage});
  return placement(std::min(from, to), std::abs(to - from), 2);
}

GroupPlacement RankLayout::embedding_group(RankCoord coord) const {
  return placement(rank_of({coord.tp, coord.dp, 0}), tp_ * dp_ * (pp_ - 1), 2);
}

bool RankLayout::is_uniform() const {
  auto same = [](const GroupPlacement& a, const GroupPlacement& b) {
    return a.intra_node == b.intra_node && a.ranks_per_node == b.ranks_per_node && a.num_nodes == b.num_nodes;
  };
  for (int stage = 0; stage < pp_; ++stage) {
    const RankCoord reference{0, 0, stage};
    for (int dp = 0; dp < dp_; ++dp) {
      for (int tp = 0; tp < tp_; ++tp) {
        const RankCoord coord{tp, dp, stage};
        // Each tensor group is checked once, through its tp = 0 member; likewise data groups.
        if (tp == 0 && !same(tensor_group(coord), tensor_group(reference))) {
          return false;
        }
        if (dp == 0 && !same(data_group(coord), data_group(reference))) {
          return false;
        }
        if (stage + 1 < pp_ && !same(pipeline_link(coord), pipeline_link(reference))) {
          return false;
        }
        if (pp_ > 1 && !same(embedding_group(coord), embedding_group(reference))) {
          return false;
        }
      }
    }
  }
  return true;
}

}  // namespace distsim::strategy
