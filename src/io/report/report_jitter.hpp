#pragma once

#include <string>

#include "api/kernel_jitter.hpp"

namespace distsim::io {

//! The kernel-jitter section of a simulation report (docs/variability.md): the step time's mean,
//! p50, p90 and p99 against the noiseless iteration as cards, and the sampled iterations as a
//! histogram of ten equal bins from the shortest to the longest, the noiseless time marked.
void append_jitter_section(std::string& html, const api::StepTimeDistribution& distribution);

}  // namespace distsim::io
