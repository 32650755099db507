#pragma once

#include <cstddef>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "search/search_space.hpp"
#include "search/strategy_search.hpp"

namespace distsim::io {

//! The job a search started from, as a job file `distsim search --job` takes: every setting of
//! io::job_settings_json except the searched ones (search::searched_keys()) and a gradient bucket
//! size that the default rule set.
nlohmann::json search_job_json(const search::SearchSpace& space);

//! "model=... nodes=2; searched: --micro-batch-sizes 1,2 --schedules 1f1b --recompute none": the job
//! and the flags that give the space again.
std::string search_settings_text(const search::SearchSpace& space);

//! The ranked table (top `top` rows), the counts of invalid and out-of-memory candidates, the
//! best/worst throughput ratio and the Pareto front of iteration time versus peak memory.
std::string search_text(const search::SearchSpace& space, const search::SearchResult& result, std::size_t top);

//! One row per candidate, in enumeration order, with a header; numbers in fixed formats.
void write_search_csv(std::ostream& out, const search::SearchResult& result);

//! The same as the text and CSV together: counts, ranking, Pareto front and every candidate.
nlohmann::json search_json(const search::SearchSpace& space, const search::SearchResult& result, std::size_t top);

}  // namespace distsim::io
