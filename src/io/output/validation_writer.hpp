#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "validation/validation_report.hpp"

namespace distsim::io {

//! Per-source error summary, the excluded rows with their reasons, optionally every row grouped
//! by source, and as the last line `MAPE <x>% over <n> rows (max <y>%)`.
std::string validation_text(const validation::ValidationReport& report, const std::string& file_name, bool per_row);

nlohmann::json validation_json(const validation::ValidationReport& report, const std::string& file_name);

}  // namespace distsim::io
