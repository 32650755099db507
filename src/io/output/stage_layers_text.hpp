#pragma once

#include <string>

#include "strategy/job_spec.hpp"

namespace distsim::io {

//! The transformer layers a pipeline stage holds, as text: "12-23", or one range per model
//! chunk with the interleaved schedule ("0-5, 24-29").
std::string stage_layers_text(const strategy::JobSpec& job, int stage);

}  // namespace distsim::io
