#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/sim_time.hpp"
#include "search/search_space.hpp"
#include "search/strategy_search.hpp"

namespace distsim::io {

//! Without a token count, cost is priced per million tokens (time to train is shown in days,
//! kSecondsPerDay).
inline constexpr double kMillion = 1e6;

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

//! "tiny on 1,2 nodes x 4 a40, global batch 8, bf16": the model, the cluster and the batch.
std::string search_space_description(const search::SearchSpace& space);

//! When no candidate fits: the leanest candidate and the peak each remedy would leave it with,
//! as text lines and as JSON; empty when the result has no leanest candidate.
std::string search_memory_advice(const search::SearchResult& result);
nlohmann::json search_memory_advice_json(const search::SearchResult& result);

//! One candidate as the JSON lists it: its settings, status and, when simulated, its figures and
//! those of the training goal.
nlohmann::json search_candidate_json(const search::Candidate& c, const search::TrainingGoal& goal);

//! A CSV field as RFC 4180 writes it: the text itself, or, when it holds a comma, a quote or a line
//! break, the text in quotes with each inner quote doubled.
std::string csv_field(std::string_view text);

//! The CSV's header line and one candidate's line, both without the newline.
std::string search_csv_header(const search::TrainingGoal& goal);
std::string search_csv_row(const search::Candidate& c, const search::TrainingGoal& goal);

//! One row per candidate, in enumeration order, with a header; numbers in fixed formats.
void write_search_csv(std::ostream& out, const search::SearchResult& result);

//! The same as the text and CSV together, as one JSON object and a newline: counts, ranking, Pareto
//! front and every candidate.
void write_search_json(std::ostream& out, const search::SearchSpace& space, const search::SearchResult& result,
                       std::size_t top);

}  // namespace distsim::io
