#pragma once

#include <cstddef>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "search/search_space.hpp"
#include "search/strategy_search.hpp"

namespace distsim::io {

//! The ranked table (top `top` rows), the counts of invalid and out-of-memory candidates, the
//! best/worst throughput ratio and the Pareto front of iteration time versus peak memory.
std::string search_text(const search::SearchSpace& space, const search::SearchResult& result, std::size_t top);

//! One row per candidate, in enumeration order, with a header; numbers in fixed formats.
void write_search_csv(std::ostream& out, const search::SearchResult& result);

//! The same as the text and CSV together: counts, ranking, Pareto front and every candidate.
nlohmann::json search_json(const search::SearchSpace& space, const search::SearchResult& result, std::size_t top);

}  // namespace distsim::io
