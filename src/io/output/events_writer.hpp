#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "program/job_program.hpp"
#include "strategy/job_spec.hpp"

namespace distsim::io {

//! The job's unique events, sorted by id: key, class, operator, shape or message, work, how many
//! tasks use each, and its duration with the source it came from, then the dedup totals.
nlohmann::json events_json(const strategy::JobSpec& job, const program::JobProgram& program);

//! The same as a table, one line per unique event, ending with the totals line.
std::string events_text(const strategy::JobSpec& job, const program::JobProgram& program);

}  // namespace distsim::io
