#include "strategy/rank_layout.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <numeric>
#include <unordered_map>
#include <utility>

#include "core/checked_arithmetic.hpp"
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

RankLayout::RankLayout(std::vector<DimSize> dims, RankPacking packing, ExpertFolding folding)
    : dims_(std::move(dims)), packing_(packing), folding_(folding) {
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
    : RankLayout(parallel_dims(strategy), RankPacking{cluster.gpus_per_host, cluster.gpus_per_domain()},
                 ExpertFolding{strategy.expert_parallel, strategy.expert_tensor_parallel}) {}

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

namespace {

//! How the ranks first, first + stride, ..., first + (count - 1) x stride fall into units of
//! `unit` consecutive ranks (hosts or domains): how many units they touch, and the most in one.
//! Without listing them: a stride of a unit or more puts each in its own unit; a shorter one
//! skips no unit between the first's and the last's, and the count in a unit repeats every
//! stride / gcd(stride, unit) units, so one period of them has the busiest.
std::pair<int, int> progression_units(std::int64_t first, std::int64_t stride, std::int64_t count, std::int64_t unit) {
  if (count == 1) return {1, 1};
  if (stride >= unit) return {static_cast<int>(count), 1};
  const std::int64_t last = first + (count - 1) * stride;
  const std::int64_t first_unit = first / unit;
  const std::int64_t last_unit = last / unit;
  if (first_unit == last_unit) return {1, static_cast<int>(count)};
  // Members below rank r: those k with first + k x stride < r.
  const auto below = [&](std::int64_t rank) { return std::min(count, ceil_div(rank - first, stride)); };
  std::int64_t busiest = std::max(below((first_unit + 1) * unit), count - below(last_unit * unit));
  const std::int64_t period = stride / std::gcd(stride, unit);
  for (std::int64_t u = first_unit + 1; u < last_unit && u <= first_unit + period; ++u) {
    busiest = std::max(busiest, below((u + 1) * unit) - below(u * unit));
  }
  return {static_cast<int>(last_unit - first_unit + 1), static_cast<int>(busiest)};
}

}  // namespace

GroupPlacement RankLayout::group(const RankCoord& coord, std::initializer_list<ParallelDim> dims) const {
  // The dimensions that vary, by stride: when each one's stride is the one before's times its
  // size (adjacent in the rank order), the group is one progression, placed without listing it
  // (a data-parallel group may hold a billion ranks).
  std::vector<std::pair<std::int64_t, int>> varying;  // stride, size
  for (const ParallelDim dim : dims) {
    if (size(dim) > 1) varying.emplace_back(stride_[slot(dim)], size(dim));
  }
  std::sort(varying.begin(), varying.end());
  bool progression = true;
  std::int64_t count = 1;
  for (std::size_t i = 0; i < varying.size(); ++i) {
    progression = progression && (i == 0 || varying[i].first == varying[i - 1].first * varying[i - 1].second);
    count *= varying[i].second;
  }
  if (!progression) return placement(group_members(coord, dims));
  RankCoord origin = coord;
  for (const ParallelDim dim : dims) origin[dim] = 0;
  const std::int64_t first = rank_of(origin);
  const std::int64_t stride = varying.empty() ? 1 : varying.front().first;
  const auto [hosts, per_host] = progression_units(first, stride, count, packing_.gpus_per_host);
  const auto [domains, per_domain] = progression_units(first, stride, count, packing_.gpus_per_domain);
  return {static_cast<int>(count), hosts, domains, per_host, per_domain};
}

// Hosts and domains hold consecutive ranks, so in a sorted member list the members of one host
// (or domain) are neighbours.
GroupPlacement RankLayout::placement(const std::vector<int>& ranks) const {
  if (!std::is_sorted(ranks.begin(), ranks.end())) {
    std::vector<int> sorted = ranks;
    std::sort(sorted.begin(), sorted.end());
    return placement_of_sorted(sorted);
  }
  return placement_of_sorted(ranks);
}

GroupPlacement RankLayout::placement_of_sorted(const std::vector<int>& sorted) const {
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

namespace {

//! The expert grid of one stage: its ranks in rank order, read as positions etp + ETP·(ep + EP·edp)
//! (Megatron-Core's expert rank order, ETP fastest).
struct ExpertGrid {
  std::vector<int> stage;    //!< the stage's ranks, in rank order
  std::array<int, 3> sizes;  //!< ETP, EP and expert-DP, indexed by ExpertDim

  //! The grid indices of the rank at `position`.
  std::array<int, 3> index_of(int position) const {
    return {position % sizes[0], position / sizes[0] % sizes[1], position / (sizes[0] * sizes[1])};
  }
  //! The ranks whose indices equal `index` except along `axis`, in rank order.
  std::vector<int> members(std::array<int, 3> index, std::size_t axis) const {
    std::vector<int> ranks;
    for (int i = 0; i < sizes[axis]; ++i) {
      index[axis] = i;
      const int position = index[0] + sizes[0] * (index[1] + sizes[1] * index[2]);
      ranks.push_back(stage[static_cast<std::size_t>(position)]);
    }
    std::sort(ranks.begin(), ranks.end());
    return ranks;
  }
};

}  // namespace

std::vector<int> RankLayout::expert_group_members(const RankCoord& coord, ExpertDim dim) const {
  const int rank = rank_of(coord);
  const int etp = std::max(folding_.expert_tensor_parallel, 1);
  const int ep = std::max(folding_.expert_parallel, 1);
  if (etp * ep == 1) {
    return {rank};  // without expert parallelism, found without walking the stage
  }
  ExpertGrid grid{group_members(coord, {ParallelDim::tp, ParallelDim::cp, ParallelDim::dp}), {etp, ep, 1}};
  const auto ranks = static_cast<int>(grid.stage.size());
  if (ranks % (etp * ep) != 0) {
    return {rank};
  }
  grid.sizes[2] = ranks / (etp * ep);
  const int position = static_cast<int>(std::find(grid.stage.begin(), grid.stage.end(), rank) - grid.stage.begin());
  return grid.members(grid.index_of(position), static_cast<std::size_t>(dim));
}

bool RankLayout::expert_groups_alike(int stage) const {
  const int etp = std::max(folding_.expert_tensor_parallel, 1);
  const int ep = std::max(folding_.expert_parallel, 1);
  const RankCoord reference{{ParallelDim::pp, stage}};
  ExpertGrid grid{group_members(reference, {ParallelDim::tp, ParallelDim::cp, ParallelDim::dp}), {etp, ep, 1}};
  const auto ranks = static_cast<int>(grid.stage.size());
  if (ranks % (etp * ep) != 0) {
    return true;  // no expert grid: every expert group is its rank alone
  }
  grid.sizes[2] = ranks / (etp * ep);
  for (std::size_t axis = 0; axis < 3; ++axis) {
    const GroupPlacement first = placement(grid.members({0, 0, 0}, axis));
    for (int position = 0; position < ranks; ++position) {
      const auto index = grid.index_of(position);
      if (index[axis] == 0 && placement(grid.members(index, axis)) != first) {
        return false;
      }
    }
  }
  return true;
}

GroupPlacement RankLayout::stage_link(const RankCoord& coord, int to_stage) const {
  return placement({rank_of(coord), rank_of(coord.with(ParallelDim::pp, to_stage))});
}

GroupPlacement RankLayout::embedding_group(const RankCoord& coord) const {
  return placement(
      {rank_of(coord.with(ParallelDim::pp, 0)), rank_of(coord.with(ParallelDim::pp, size(ParallelDim::pp) - 1))});
}

namespace {

//! The kinds of group that is_uniform compares, each a fixed pattern of offsets from its first
//! (lowest) rank.
enum class GroupKind { tensor, context, gradient, pipeline_link, embedding };

//! A group's placement depends only on which of its ranks share hosts and domains, and that
//! pattern repeats every scale-up domain: shifting all of a group's ranks by a multiple of the
//! domain's GPU count (itself a multiple of the host's) moves the group whole onto other hosts and
//! domains. So two groups of one kind whose first ranks are congruent modulo the domain size are
//! placed alike, and each kind's placement is computed once per residue, not once per rank.
class PlacementMemo {
 public:
  explicit PlacementMemo(int period) : period_(period) {}

  template <typename Compute>
  const GroupPlacement& get(GroupKind kind, int first_rank, Compute compute) {
    const auto key = static_cast<std::int64_t>(kind) * period_ + first_rank % period_;
    auto found = table_.find(key);
    if (found == table_.end()) found = table_.emplace(key, compute()).first;
    return found->second;
  }

 private:
  std::int64_t period_;
  std::unordered_map<std::int64_t, GroupPlacement> table_;
};

}  // namespace

std::vector<int> RankLayout::uniformity_witnesses(int period) const {
  // How far each dimension's index goes: all the way for the stage, tensor and context
  // coordinates; along another dimension the rank's residue modulo `period` comes back after
  // period / gcd(stride, period) steps.
  std::vector<int> limits;
  for (const DimSize& dim : dims_) {
    const bool whole = dim.dim == ParallelDim::pp || dim.dim == ParallelDim::tp || dim.dim == ParallelDim::cp;
    const int cycle = period / std::gcd(stride_[slot(dim.dim)] % period, period);
    limits.push_back(whole ? dim.size : std::min(dim.size, cycle));
  }
  std::vector<int> ranks;
  std::vector<int> index(dims_.size(), 0);
  while (true) {
    int rank = 0;
    for (std::size_t d = 0; d < dims_.size(); ++d) rank += index[d] * stride_[slot(dims_[d].dim)];
    ranks.push_back(rank);
    std::size_t d = 0;
    while (d < dims_.size() && ++index[d] == limits[d]) index[d++] = 0;
    if (d == dims_.size()) break;
  }
  std::sort(ranks.begin(), ranks.end());
  return ranks;
}

bool RankLayout::is_uniform() const {
  const int stages = size(ParallelDim::pp);
  const bool folds_experts = folding_.expert_parallel * folding_.expert_tensor_parallel > 1;
  PlacementMemo memo(std::max(packing_.gpus_per_domain, 1));
  // Whether the group of `kind` first at `first` (computed by `compute`, for `coord`) is placed
  // as the same kind's group of the stage's reference rank.
  const auto alike = [&](GroupKind kind, int first, int reference_first, auto compute) {
    return memo.get(kind, first, [&] { return compute(coord_of(first)); }) ==
           memo.get(kind, reference_first, [&] { return compute(coord_of(reference_first)); });
  };
  for (int stage = 0; stage < stages; ++stage) {
    if (folds_experts && !expert_groups_alike(stage)) {
      return false;
    }
  }
  for (const int rank : uniformity_witnesses(std::max(packing_.gpus_per_domain, 1))) {
    const RankCoord coord = coord_of(rank);
    const int stage = coord[ParallelDim::pp];
    const RankCoord reference{{ParallelDim::pp, stage}};
    const int reference_rank = rank_of(reference);
    // Each group is checked once, through its member whose own coordinate along it is 0: its
    // first rank.
    if (coord[ParallelDim::tp] == 0 &&
        !alike(GroupKind::tensor, rank, reference_rank, [&](const RankCoord& c) { return tensor_group(c); })) {
      return false;
    }
    if (coord[ParallelDim::cp] == 0 &&
        !alike(GroupKind::context, rank, reference_rank, [&](const RankCoord& c) { return context_group(c); })) {
      return false;
    }
    if (coord[ParallelDim::cp] == 0 && coord[ParallelDim::dp] == 0 &&
        !alike(GroupKind::gradient, rank, reference_rank, [&](const RankCoord& c) { return gradient_group(c); })) {
      return false;
    }
    if (stage + 1 < stages &&
        !alike(GroupKind::pipeline_link, rank, reference_rank, [&](const RankCoord& c) { return pipeline_link(c); })) {
      return false;
    }
    if (stages > 1) {
      const int first = rank_of(coord.with(ParallelDim::pp, 0));
      const int reference_first = rank_of(reference.with(ParallelDim::pp, 0));
      if (!alike(GroupKind::embedding, first, reference_first,
                 [&](const RankCoord& c) { return embedding_group(c); })) {
        return false;
      }
    }
  }
  return true;
}

std::vector<int> RankLayout::shard_group_members(const RankCoord& coord, int dp_per_shard) const {
  std::vector<int> members;
  for (const int rank : group_members(coord, {ParallelDim::cp, ParallelDim::dp})) {
    if (coord_of(rank)[ParallelDim::dp] / dp_per_shard == coord[ParallelDim::dp] / dp_per_shard) {
      members.push_back(rank);
    }
  }
  return members;
}

std::vector<int> RankLayout::context_level_members(const RankCoord& coord, int a2a_size, bool a2a_level) const {
  const int own = coord[ParallelDim::cp];
  std::vector<int> members;
  for (const int rank : group_members(coord, {ParallelDim::cp})) {
    const int index = coord_of(rank)[ParallelDim::cp];
    if (a2a_level ? index / a2a_size == own / a2a_size : index % a2a_size == own % a2a_size) {
      members.push_back(rank);
    }
  }
  return members;
}

std::vector<int> RankLayout::replica_group_members(const RankCoord& coord, int dp_per_shard) const {
  std::vector<int> members;
  for (const int rank : group_members(coord, {ParallelDim::dp})) {
    if (coord_of(rank)[ParallelDim::dp] % dp_per_shard == coord[ParallelDim::dp] % dp_per_shard) {
      members.push_back(rank);
    }
  }
  return members;
}

}  // namespace distsim::strategy
