#pragma once

#include <cstdint>

#include "strategy/job_spec.hpp"

namespace distsim::strategy {

//! Where one rank sits in the parallel grid. `cp` comes last so that the brace form {tp, dp, pp}
//! used before context parallelism still means context rank 0.
struct RankCoord {
  int tp = 0;
  int dp = 0;
  int pp = 0;
  int cp = 0;
  bool operator==(const RankCoord&) const = default;
};

//! Whether a group of ranks stays inside one node, and how many of its ranks share a node.
struct GroupPlacement {
  bool intra_node = true;
  int ranks_per_node = 1;  //!< members of the group on the busiest node
  int num_nodes = 1;       //!< nodes the group spans
};

//! Megatron-LM's default rank order "tp-cp-ep-dp-pp": tensor parallel varies fastest, then
//! context, then data, then pipeline (docs/reference/formats.md §5.2): rank = tp + t·(cp + c·(dp + d·pp)).
//! Ranks fill nodes consecutively.
class RankLayout {
 public:
  RankLayout(const Strategy& strategy, int gpus_per_node);

  int world_size() const { return tp_ * cp_ * dp_ * pp_; }
  int rank_of(RankCoord coord) const { return coord.tp + tp_ * (coord.cp + cp_ * (coord.dp + dp_ * coord.pp)); }
  RankCoord coord_of(int rank) const;
  int node_of(int rank) const { return rank / gpus_per_node_; }

  GroupPlacement tensor_group(RankCoord coord) const;
  //! The context-parallel ring of `coord`: same (tp, dp, pp), every cp.
  GroupPlacement context_group(RankCoord coord) const;
  //! The data-parallel group of `coord`: same (tp, cp, pp), every dp.
  GroupPlacement data_group(RankCoord coord) const;
  //! The ranks that reduce gradients together, Megatron-Core's data_parallel_group_with_cp:
  //! same (tp, pp), every (cp, dp); the data group when cp = 1.
  GroupPlacement gradient_group(RankCoord coord) const;
  //! The link from `coord` to the same (tp, cp, dp) position on stage coord.pp + 1.
  GroupPlacement pipeline_link(RankCoord coord) const { return stage_link(coord, coord.pp + 1); }
  //! The link from `coord` to the same (tp, cp, dp) position on stage `to_stage`; the interleaved
  //! schedule also links the last stage back to the first.
  GroupPlacement stage_link(RankCoord coord, int to_stage) const;
  //! First and last stage of the same (tp, cp, dp) position (tied-embedding gradient reduction).
  GroupPlacement embedding_group(RankCoord coord) const;

  //! True when every tensor group, context group, gradient group and pipeline link of a stage is
  //! placed alike, so one rank per stage stands for all of them.
  bool is_uniform() const;

 private:
  GroupPlacement placement(int first_rank, int stride, int size) const;

  int tp_;
  int cp_;
  int dp_;
  int pp_;
  int gpus_per_node_;
};

}  // namespace distsim::strategy
