#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace distsim::search {

//! Splits items of known cost over `processes` so that the busiest one finishes early: largest
//! first, each to the process with the least cost so far (Graham's longest-processing-time rule,
//! within 4/3 of the best split). Each process's items come largest first, so its threads start
//! the long ones before the short ones. Deterministic: equal costs keep their index order and an
//! equal load goes to the lower process, so every process computes the same split.
std::vector<std::vector<std::size_t>> balanced_shares(const std::vector<std::int64_t>& costs, std::size_t processes);

}  // namespace distsim::search
