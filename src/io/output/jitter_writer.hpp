#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "api/kernel_jitter.hpp"

namespace distsim::io {

//! The step-time distribution under kernel jitter as JSON: the distribution, the samples and seed,
//! the noiseless, mean, p50, p90, p99 and largest step time, the slowdown and every sample.
nlohmann::json jitter_json(const api::StepTimeDistribution& distribution);

//! The same as one paragraph of the text summary.
std::string jitter_text(const api::StepTimeDistribution& distribution);

}  // namespace distsim::io
