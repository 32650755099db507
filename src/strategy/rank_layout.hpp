#pragma once

#include <array>
#include <initializer_list>
#include <string_view>
#include <vector>

#include "cluster/cluster_spec.hpp"
#include "strategy/strategy.hpp"

namespace distsim::strategy {

//! A parallel dimension of the rank grid, by Megatron's short name.
enum class ParallelDim { tp, cp, dp, pp };

inline constexpr int kParallelDimCount = 4;

//! "tp", "cp", "dp" or "pp".
std::string_view parallel_dim_name(ParallelDim dim);

//! One dimension's index in a coordinate, for building one by name: {{ParallelDim::pp, 2}}.
struct DimIndex {
  ParallelDim dim;
  int index = 0;
};

//! Where one rank sits in the parallel grid, addressed by dimension: coord[ParallelDim::pp].
//! Dimensions not given are 0.
class RankCoord {
 public:
  RankCoord() = default;
  RankCoord(std::initializer_list<DimIndex> indices);

  int operator[](ParallelDim dim) const { return index_[slot(dim)]; }
  int& operator[](ParallelDim dim) { return index_[slot(dim)]; }
  //! This coordinate with `dim` moved to `index`.
  RankCoord with(ParallelDim dim, int index) const;
  bool operator==(const RankCoord&) const = default;

 private:
  static std::size_t slot(ParallelDim dim) { return static_cast<std::size_t>(dim); }
  std::array<int, kParallelDimCount> index_{};
};

//! One dimension of the grid and its size.
struct DimSize {
  ParallelDim dim;
  int size = 1;
};

//! The dimensions of a strategy in Megatron-LM's default rank order "tp-cp-ep-dp-pp", fastest
//! varying first (formats.md §5.2).
std::vector<DimSize> parallel_dims(const Strategy& strategy);

//! How a group of ranks sits on the machines: the hosts and scale-up domains it spans and how many
//! of its members share the busiest host (the NICs it can drive there).
struct GroupPlacement {
  int size = 1;
  int hosts = 1;
  int domains = 1;
  int ranks_per_host = 1;    //!< members on the busiest host
  int ranks_per_domain = 1;  //!< members in the busiest scale-up domain

  bool within_host() const { return hosts == 1; }
  bool within_domain() const { return domains == 1; }
  bool operator==(const GroupPlacement&) const = default;
};

//! The axes along which the expert part of an MoE layer regroups a pipeline stage's ranks
//! (Megatron-Core "MoE parallel folding"): the stage's ranks in rank order are numbered
//! etp + ETP·(ep + EP·edp), expert tensor parallel fastest.
enum class ExpertDim { etp, ep, edp };

//! The sizes of the expert grid; ETP·EP divides a stage's ranks, the rest is expert data parallel.
struct ExpertFolding {
  int expert_parallel = 1;
  int expert_tensor_parallel = 1;
};

//! How consecutive ranks fill machines: `gpus_per_host` to a host and `gpus_per_domain` (a
//! multiple of it) to a scale-up domain.
struct RankPacking {
  int gpus_per_host = 1;
  int gpus_per_domain = 1;
};

//! The rank grid over an ordered list of named dimensions: rank = Σ index_d · stride_d with the
//! first dimension varying fastest. Ranks fill hosts, and hosts fill domains, consecutively.
//! Every group query is one general one, "the ranks that share my coordinate except along these
//! dimensions", so a new dimension needs only its place in the order.
class RankLayout {
 public:
  RankLayout(std::vector<DimSize> dims, RankPacking packing, ExpertFolding folding = {});
  RankLayout(const Strategy& strategy, const cluster::ClusterSpec& cluster);

  int world_size() const { return world_size_; }
  const ExpertFolding& folding() const { return folding_; }
  const RankPacking& packing() const { return packing_; }
  //! The size of `dim`; 1 for a dimension the layout does not have.
  int size(ParallelDim dim) const;
  int rank_of(const RankCoord& coord) const;
  RankCoord coord_of(int rank) const;
  int host_of(int rank) const { return rank / packing_.gpus_per_host; }
  int domain_of(int rank) const { return rank / packing_.gpus_per_domain; }

  //! The ranks that share `coord` in every dimension except `dims`, in rank order (so `coord`'s
  //! own rank is among them).
  std::vector<int> group_members(const RankCoord& coord, std::initializer_list<ParallelDim> dims) const;
  //! Where the group of `coord` along `dims` sits.
  GroupPlacement group(const RankCoord& coord, std::initializer_list<ParallelDim> dims) const;
  //! Where any set of ranks sits.
  GroupPlacement placement(const std::vector<int>& ranks) const;

  GroupPlacement tensor_group(const RankCoord& coord) const { return group(coord, {ParallelDim::tp}); }
  GroupPlacement context_group(const RankCoord& coord) const { return group(coord, {ParallelDim::cp}); }
  //! Hierarchical context parallelism (cp_comm_type a2a+p2p) with all-to-all groups of
  //! `a2a_size` adjacent context ranks: `coord`'s all-to-all group (its run of a2a_size context
  //! indices), or its ring (the context ranks at the same place of every all-to-all group), as
  //! Megatron-Core's hierarchical context-parallel groups are formed.
  std::vector<int> context_level_members(const RankCoord& coord, int a2a_size, bool a2a_level) const;
  GroupPlacement context_level_group(const RankCoord& coord, int a2a_size, bool a2a_level) const {
    return placement(context_level_members(coord, a2a_size, a2a_level));
  }
  GroupPlacement data_group(const RankCoord& coord) const { return group(coord, {ParallelDim::dp}); }
  //! The ranks that reduce gradients together, Megatron-Core's data_parallel_group_with_cp.
  GroupPlacement gradient_group(const RankCoord& coord) const {
    return group(coord, {ParallelDim::cp, ParallelDim::dp});
  }
  //! The ranks of `coord`'s expert group along `dim` (the same stage, the same indices along the
  //! other two expert axes), in rank order. A stage whose ranks ETP·EP does not divide has no
  //! expert grid; then the group is `coord`'s rank alone.
  std::vector<int> expert_group_members(const RankCoord& coord, ExpertDim dim) const;
  GroupPlacement expert_group(const RankCoord& coord, ExpertDim dim) const {
    return placement(expert_group_members(coord, dim));
  }
  //! FSDP's shard group of `coord`: the ranks of its gradient group (every cp, and the run of
  //! `dp_per_shard` consecutive data-parallel indices that holds it), so that HSDP shards inside
  //! a group and replicates across groups, as PyTorch FSDP2's (dp_replicate, dp_shard) mesh
  //! orders them (dp_shard varies faster). With dp_per_shard = dp it is the gradient group.
  std::vector<int> shard_group_members(const RankCoord& coord, int dp_per_shard) const;
  GroupPlacement shard_group(const RankCoord& coord, int dp_per_shard) const {
    return placement(shard_group_members(coord, dp_per_shard));
  }
  //! HSDP's replica group of `coord`: the ranks at the same place of every shard group (same cp,
  //! data-parallel index equal modulo dp_per_shard), which all-reduce their gradient shards.
  std::vector<int> replica_group_members(const RankCoord& coord, int dp_per_shard) const;
  GroupPlacement replica_group(const RankCoord& coord, int dp_per_shard) const {
    return placement(replica_group_members(coord, dp_per_shard));
  }
  //! The link from `coord` to the same position on stage `to_stage`; the interleaved schedule
  //! also links the last stage back to the first.
  GroupPlacement stage_link(const RankCoord& coord, int to_stage) const;
  GroupPlacement pipeline_link(const RankCoord& coord) const { return stage_link(coord, coord[ParallelDim::pp] + 1); }
  //! First and last stage of `coord`'s position (tied-embedding gradient reduction).
  GroupPlacement embedding_group(const RankCoord& coord) const;

  //! True when every tensor group, context group, gradient group, expert group and pipeline link
  //! of a stage is placed alike, so one rank per stage stands for all of them.
  bool is_uniform() const;

 private:
  //! True when, along each expert axis, every expert group of `stage` is placed as the group of
  //! the stage's first rank: one pass over the stage's ranks per axis.
  bool expert_groups_alike(int stage) const;
  //! placement() of ranks in increasing order.
  GroupPlacement placement_of_sorted(const std::vector<int>& sorted) const;
  //! Ranks that show every case is_uniform must compare, when a group's placement depends on its
  //! first rank only through that rank's residue modulo `period` (the domain's GPUs): every stage,
  //! tensor and context coordinate, and along the other dimensions as many steps as it takes for
  //! the residue to come back. In rank order.
  std::vector<int> uniformity_witnesses(int period) const;

  std::vector<DimSize> dims_;
  std::array<int, kParallelDimCount> size_{};
  std::array<int, kParallelDimCount> stride_{};
  int world_size_ = 1;
  RankPacking packing_;
  ExpertFolding folding_;
};

}  // namespace distsim::strategy
