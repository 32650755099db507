#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "whatif/straggler_analysis.hpp"

namespace distsim::io {

//! The what-if analysis of the trace at `path` as `distsim whatif` prints it: the job's size, the
//! mean step times measured, replayed and ideal, the launch and straggler slowdowns and their
//! attribution by stage, data-parallel rank and operation type (docs/whatif.md).
std::string whatif_text(const whatif::StragglerAnalysis& analysis, const std::string& path);

//! The same with every step's times, as one JSON object.
nlohmann::json whatif_json(const whatif::StragglerAnalysis& analysis, const std::string& path);

}  // namespace distsim::io
