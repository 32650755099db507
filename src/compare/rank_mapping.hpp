#pragma once

#include <string_view>
#include <vector>

#include "compare/timeline.hpp"

namespace distsim::compare {

//! How measured ranks find their predicted counterparts: by rank number when the predicted
//! trace holds every rank; by (tp, pp) position onto data-parallel replica 0 when it holds only
//! that replica (distsim's default `--trace-ranks replica`), since the replicas run alike.
enum class RankMappingKind { by_rank, by_coordinate };

struct RankPair {
  int measured_rank = 0;
  int predicted_rank = 0;
};

struct RankMapping {
  RankMappingKind kind = RankMappingKind::by_rank;
  std::vector<RankPair> pairs;  //!< one per measured rank, in measured rank order
};

//! A sentence for the output that says which mapping was used and why.
std::string_view rank_mapping_description(RankMappingKind kind);

//! Pairs every measured rank with a predicted one. Throws InputError when the predicted trace
//! has no rank at a measured rank's position.
RankMapping map_ranks(const Timeline& predicted, const Timeline& measured);

}  // namespace distsim::compare
