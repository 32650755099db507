#include "compare/rank_mapping.hpp"

#include <fmt/format.h>

#include "core/input_error.hpp"

namespace distsim::compare {

using strategy::ParallelDim;

namespace {

bool holds_every_rank(const Timeline& predicted, const Timeline& measured) {
  for (const auto& rank : measured.ranks) {
    if (predicted.find(rank.rank) == nullptr) {
      return false;
    }
  }
  return true;
}

int replica_zero_rank(const Timeline& predicted, const RankTimeline& measured) {
  const strategy::RankLayout layout(strategy::parallel_dims(predicted.job), {});
  // Replica 0 holds every context rank, so the measured rank keeps its own.
  const int rank = layout.rank_of(measured.coord.with(ParallelDim::dp, 0));
  if (predicted.find(rank) == nullptr) {
    throw InputError(fmt::format(
        "the predicted trace has no rank {} (tp {}, pp {}, dp 0) to compare with rank {} of '{}'; write it with "
        "distsim simulate --trace-ranks all",
        rank, measured.coord[ParallelDim::tp], measured.coord[ParallelDim::pp], measured.rank, measured.file));
  }
  return rank;
}

//! Pairing by number is only right when both sides lay ranks out alike (distsim uses Megatron's
//! order); a trace that states another position for the rank is refused rather than misread.
void check_same_position(const RankTimeline& predicted, const RankTimeline& measured) {
  if (predicted.coord == measured.coord) {
    return;
  }
  throw InputError(fmt::format(
      "'{}': rank {} is at tp {}, pp {}, dp {}, but in the predicted job rank {} is at tp {}, pp {}, dp {}; the "
      "measured job must number its ranks in Megatron's order (rank = tp + TP * (dp + DP * pp))",
      measured.file, measured.rank, measured.coord[ParallelDim::tp], measured.coord[ParallelDim::pp],
      measured.coord[ParallelDim::dp], predicted.rank, predicted.coord[ParallelDim::tp],
      predicted.coord[ParallelDim::pp], predicted.coord[ParallelDim::dp]));
}

}  // namespace

std::string_view rank_mapping_description(RankMappingKind kind) {
  switch (kind) {
    case RankMappingKind::by_rank: return "by rank number (the predicted trace holds every measured rank)";
    case RankMappingKind::by_coordinate:
      return "by (tp, pp) position: the predicted trace holds only data-parallel replica 0, so each measured rank "
             "is compared with the predicted rank at its tensor and pipeline position in replica 0";
  }
  return "?";
}

RankMapping map_ranks(const Timeline& predicted, const Timeline& measured) {
  RankMapping mapping;
  mapping.kind = holds_every_rank(predicted, measured) ? RankMappingKind::by_rank : RankMappingKind::by_coordinate;
  for (const auto& rank : measured.ranks) {
    const int partner = mapping.kind == RankMappingKind::by_rank ? rank.rank : replica_zero_rank(predicted, rank);
    if (mapping.kind == RankMappingKind::by_rank) {
      check_same_position(*predicted.find(partner), rank);
    }
    mapping.pairs.push_back({rank.rank, partner});
  }
  return mapping;
}

}  // namespace distsim::compare
