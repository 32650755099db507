#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "validation/calibration_run.hpp"

namespace distsim::io {

//! data/published_calibration.csv, compiled in: published large-scale training runs with their
//! sources (see data/README.md).
std::string_view builtin_calibration_csv();

//! Reads measured runs in the column layout of data/published_calibration.csv. A row that lacks
//! a needed field or uses a feature distsim does not model becomes a run without a job and with
//! the reason; only a malformed file (no such columns, broken quoting) throws InputError.
std::vector<validation::CalibrationRun> read_calibration_runs(std::string_view csv_text, const std::string& file_name);

//! The columns a calibration file must have.
const std::vector<std::string>& required_calibration_columns();

}  // namespace distsim::io
