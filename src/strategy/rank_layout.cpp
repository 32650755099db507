#include "strategy/rank_layout.hpp"

#include <algorithm>
#include <utility>

#include "core/input_error.hpp"

namespace distsim::strategy {

namespace {

std::size_t slot(ParallelDim dim) { return static_cast<std::size_t>(dim); }

}  // namespace

std::string_view parallel_dim_name(ParallelDim dim) {
  switch (dim) {
    case ParallelDim::tp: return "tp";
    case ParallelDim::cp: return "cp";
    case ParallelDim::dp: return "dp";
    case ParallelDim::pp: return "pp";
  }
  return "?";
}

RankCoord::RankCoord(std::initializer_list<DimIndex> indices) {
  for (const DimIndex& entry : indices) {
    index_[slot(entry.dim)] = entry.index;
  }
}

RankCoord RankCoord::with(ParallelDim dim, int index) const {
  RankCoord moved = *this;
  moved[dim] = index;
  return moved;
}

std::vector<DimSize> parallel_dims(const Strategy& strategy) {
  return {
      {ParallelDim::tp, strategy.tensor_parallel},
      {ParallelDim::cp, strategy.context_parallel},
      {ParallelDim::dp, strategy.data_parallel},
      {ParallelDim::pp, strategy.pipeline_parallel},
  };
}

RankLayout::RankLayout(std::vector<DimSize> dims, RankPacking packing) : dims_(std::move(dims)), packing_(packing) {
  size_.fill(1);
  stride_.fill(0);
  for (const DimSize& dim : dims_) {
    if (dim.size < 1 || size_[slot(dim.dim)] != 1 || stride_[slot(dim.dim)] != 0) {
      throw InternalError("rank layout: dimension " + std::string(parallel_dim_name(dim.dim)) +
                          " is repeated or not positive");
    }
    size_[slot(dim.dim)] = dim.size;
    stride_[slot(dim.dim)] = world_size_;
    world_size_ *= dim.size;
  }
  if (packing_.gpus_per_host < 1 || packing_.gpus_per_domain < packing_.gpus_per_host ||
      packing_.gpus_per_domain % packing_.gpus_per_host != 0) {
    throw InternalError("rank layout: a domain of " + std::to_string(packing_.gpus_per_domain) +
                        " GPUs is not a whole number of " + std::to_string(packing_.gpus_per_host) + "-GPU hosts");
  }
}

RankLayout::RankLayout(const Strategy& strategy, const cluster::ClusterSpec& cluster)
    : RankLayout(parallel_dims(strategy), RankPacking{cluster.gpus_per_host, cluster.gpus_per_domain()}) {}

int RankLayout::size(ParallelDim dim) const { return size_[slot(dim)]; }

int RankLayout::rank_of(const RankCoord& coord) const {
  int rank = 0;
  for (const DimSize& dim : dims_) {
    rank += coord[dim.dim] * stride_[slot(dim.dim)];
  }
  return rank;
}

RankCoord RankLayout::coord_of(int rank) const {
  RankCoord coord;
  for (const DimSize& dim : dims_) {
    coord[dim.dim] = (rank / stride_[slot(dim.dim)]) % dim.size;
  }
  return coord;
}

std::vector<int> RankLayout::group_members(const RankCoord& coord, std::initializer_list<ParallelDim> dims) const {
  RankCoord origin = coord;
  for (const ParallelDim dim : dims) {
    origin[dim] = 0;
  }
  std::vector<int> members = {rank_of(origin)};
  for (const ParallelDim dim : dims) {
    const std::size_t count = members.size();
    for (int index = 1; index < size(dim); ++index) {
      for (std::size_t i = 0; i < count; ++i) {
        members.push_back(members[i] + index * stride_[slot(dim)]);
      }
    }
  }
  std::sort(members.begin(), members.end());
  return members;
}

GroupPlacement RankLayout::group(const RankCoord& coord, std::initializer_list<ParallelDim> dims) const {
  return placement(group_members(coord, dims));
}

// Hosts and domains hold consecutive ranks, so in a sorted member list the members of one host
// (or domain) are neighbours.
GroupPlacement RankLayout::placement(const std::vector<int>& ranks) const {
  std::vector<int> sorted = ranks;
  std::sort(sorted.begin(), sorted.end());
  GroupPlacement result;
  result.size = static_cast<int>(sorted.size());
  result.hosts = 0;
  result.domains = 0;
  result.ranks_per_host = 0;
  result.ranks_per_domain = 0;
  int host_run = 0;
  int domain_run = 0;
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    const bool new_host = i == 0 || host_of(sorted[i]) != host_of(sorted[i - 1]);
    const bool new_domain = i == 0 || domain_of(sorted[i]) != domain_of(sorted[i - 1]);
    result.hosts += new_host ? 1 : 0;
    result.domains += new_domain ? 1 : 0;
    host_run = new_host ? 1 : host_run + 1;
    domain_run = new_domain ? 1 : domain_run + 1;
    result.ranks_per_host = std::max(result.ranks_per_host, host_run);
    result.ranks_per_domain = std::max(result.ranks_per_domain, domain_run);
  }
  return result;
}

GroupPlacement RankLayout::stage_link(const RankCoord& coord, int to_stage) const {
  return placement({rank_of(coord), rank_of(coord.with(ParallelDim::pp, to_stage))});
}

GroupPlacement RankLayout::embedding_group(const RankCoord& coord) const {
  return placement(
      {rank_of(coord.with(ParallelDim::pp, 0)), rank_of(coord.with(ParallelDim::pp, size(ParallelDim::pp) - 1))});
}

bool RankLayout::is_uniform() const {
  const int stages = size(ParallelDim::pp);
  for (int rank = 0; rank < world_size_; ++rank) {
    const RankCoord coord = coord_of(rank);
    const int stage = coord[ParallelDim::pp];
    const RankCoord reference{{ParallelDim::pp, stage}};
    // Each group is checked once, through its member whose own coordinate along it is 0.
    if (coord[ParallelDim::tp] == 0 && tensor_group(coord) != tensor_group(reference)) {
      return false;
    }
    if (coord[ParallelDim::cp] == 0 && context_group(coord) != context_group(reference)) {
      return false;
    }
    if (coord[ParallelDim::cp] == 0 && coord[ParallelDim::dp] == 0 &&
        gradient_group(coord) != gradient_group(reference)) {
      return false;
    }
    if (stage + 1 < stages && pipeline_link(coord) != pipeline_link(reference)) {
      return false;
    }
    if (stages > 1 && embedding_group(coord) != embedding_group(reference)) {
      return false;
    }
  }
  return true;
}

}  // namespace distsim::strategy
