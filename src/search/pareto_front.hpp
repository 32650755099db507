#pragma once

#include <cstddef>
#include <vector>

namespace distsim::search {

//! A point to minimize in both coordinates (for the search: iteration time and peak memory).
struct ParetoPoint {
  double first = 0;
  double second = 0;
};

//! Indices of the points no other point dominates (no worse in both, better in one), ordered by
//! increasing `second`. Exact duplicates are all kept.
std::vector<std::size_t> pareto_front(const std::vector<ParetoPoint>& points);

}  // namespace distsim::search
