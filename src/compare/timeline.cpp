#include "compare/timeline.hpp"

#include <algorithm>

namespace distsim::compare {

const RankTimeline* Timeline::find(int rank) const {
  const auto it = std::lower_bound(ranks.begin(), ranks.end(), rank,
                                   [](const RankTimeline& timeline, int wanted) { return timeline.rank < wanted; });
  return it != ranks.end() && it->rank == rank ? &*it : nullptr;
}

}  // namespace distsim::compare
