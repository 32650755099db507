#pragma once

#include "io/report/search_report.hpp"
#include "search/search_space.hpp"
#include "search/strategy_search.hpp"

namespace distsim::io {

//! The report's view of a search: ranked candidates first (fastest first), then those out of
//! memory, then the invalid ones, each group in enumeration order.
SearchReport make_search_report(const search::SearchSpace& space, const search::SearchResult& result,
                                std::size_t table_rows);

}  // namespace distsim::io
