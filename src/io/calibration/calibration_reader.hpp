#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "cluster/gpu_spec.hpp"
#include "validation/calibration_run.hpp"

namespace distsim::io {

//! data/published_calibration.csv, compiled in: published large-scale training runs with their
//! sources (see data/README.md).
std::string_view builtin_calibration_csv();

//! Reads measured runs in the column layout of data/published_calibration.csv. A row that lacks
//! a needed field or uses a feature distsim does not model becomes a run without a job and with
//! the reason; only a malformed file (no such columns, broken quoting) throws InputError. A row's
//! GPU is looked up among `gpus` (parts described in GPU files: another memory size or power
//! limit) before the catalog, by the names of calibration_gpu_names.
std::vector<validation::CalibrationRun> read_calibration_runs(std::string_view csv_text, const std::string& file_name,
                                                              const std::vector<cluster::GpuSpec>& gpus = {});

//! The columns a calibration file must have.
const std::vector<std::string>& required_calibration_columns();

}  // namespace distsim::io
