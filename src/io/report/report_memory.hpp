#pragma once

#include <string>

#include "memory/memory_estimate.hpp"

namespace distsim::io {

//! The per-stage memory table of a simulation report: each component of one device's peak,
//! the total as a bar against the GPU's capacity, and the stages that do not fit highlighted.
void append_memory_section(std::string& html, const memory::MemoryEstimate& estimate);

}  // namespace distsim::io
