#include "strategy/rank_layout.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>

namespace distsim::strategy {

RankLayout::RankLayout(const Strategy& strategy, int gpus_per_node)
    : tp_(strategy.tensor_parallel),
      cp_(strategy.context_parallel),
      dp_(strategy.data_parallel),
      pp_(strategy.pipeline_parallel),
      gpus_per_node_(gpus_per_node) {}

RankCoord RankLayout::coord_of(int rank) const {
  RankCoord coord;
  coord.tp = rank % tp_;
  coord.cp = (rank / tp_) % cp_;
  coord.dp = (rank / (tp_ * cp_)) % dp_;
  coord.pp = rank / (tp_ * cp_ * dp_);
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
  return placement(rank_of({0, coord.dp, coord.pp, coord.cp}), 1, tp_);
}

GroupPlacement RankLayout::context_group(RankCoord coord) const {
  return placement(rank_of({coord.tp, coord.dp, coord.pp, 0}), tp_, cp_);
}

GroupPlacement RankLayout::data_group(RankCoord coord) const {
  return placement(rank_of({coord.tp, 0, coord.pp, coord.cp}), tp_ * cp_, dp_);
}

// cp and dp are consecutive in the rank order, so the group is every t-th rank of the stage.
GroupPlacement RankLayout::gradient_group(RankCoord coord) const {
  return placement(rank_of({coord.tp, 0, coord.pp, 0}), tp_, cp_ * dp_);
}

GroupPlacement RankLayout::stage_link(RankCoord coord, int to_stage) const {
  const int from = rank_of(coord);
  const int to = rank_of({coord.tp, coord.dp, to_stage, coord.cp});
  return placement(std::min(from, to), std::abs(to - from), 2);
}

GroupPlacement RankLayout::embedding_group(RankCoord coord) const {
  return placement(rank_of({coord.tp, coord.dp, 0, coord.cp}), tp_ * cp_ * dp_ * (pp_ - 1), 2);
}

bool RankLayout::is_uniform() const {
  auto same = [](const GroupPlacement& a, const GroupPlacement& b) {
    return a.intra_node == b.intra_node && a.ranks_per_node == b.ranks_per_node && a.num_nodes == b.num_nodes;
  };
  for (int stage = 0; stage < pp_; ++stage) {
    const RankCoord reference{0, 0, stage, 0};
    for (int rank = rank_of(reference); rank < rank_of(reference) + tp_ * cp_ * dp_; ++rank) {
      const RankCoord coord = coord_of(rank);
      // Each group is checked once, through its member whose own coordinate along it is 0.
      if (coord.tp == 0 && !same(tensor_group(coord), tensor_group(reference))) {
        return false;
      }
      if (coord.cp == 0 && !same(context_group(coord), context_group(reference))) {
        return false;
      }
      if (coord.cp == 0 && coord.dp == 0 && !same(gradient_group(coord), gradient_group(reference))) {
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
  return true;
}

}  // namespace distsim::strategy
