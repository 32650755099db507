#pragma once

#include <string>

#include "strategy/job_spec.hpp"

namespace distsim::io {

//! The transformer layers a pipeline stage holds, as text: "12-23", or one range per model
//! chunk with the interleaved schedule ("0-5, 24-29"); a chunk of a custom pipeline layout that
//! holds no transformer layer shows what it holds in the layout's symbols: E (embedding), L (head
//! and loss).
std::string stage_layers_text(const strategy::JobSpec& job, int stage);

}  // namespace distsim::io
