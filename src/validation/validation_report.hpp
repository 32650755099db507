#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "validation/calibration_run.hpp"

namespace distsim::validation {

//! Predicted against published iteration time for one simulated run.
struct RunError {
  std::size_t run = 0;  //!< index into the runs given to validate()
  double predicted_iteration_s = 0;
  double error_pct = 0;  //!< signed: (predicted - measured) / measured * 100
};

//! Mean and maximum absolute percentage error over a set of runs.
struct ErrorStats {
  std::string source;  //!< empty for the overall figure
  std::size_t rows = 0;
  double mape_pct = 0;
  double max_abs_pct = 0;
};

struct ValidationReport {
  std::vector<CalibrationRun> runs;
  std::vector<RunError> errors;       //!< simulated runs, in input order
  std::vector<std::size_t> excluded;  //!< runs that could not be simulated, in input order
  std::vector<ErrorStats> by_source;  //!< in order of first appearance
  ErrorStats overall;
  //! Over the simulated runs read exactly as published: none of their settings was assumed.
  ErrorStats without_assumptions;
};

//! Simulates every run that has a job on `threads` threads and compares. Runs whose simulation
//! fails with an input error are excluded with that error as the reason.
//! `progress`, when set, is told (runs done, runs in all) after each run, serialized across threads;
//! it does not change the report.
ValidationReport validate(std::vector<CalibrationRun> runs, int threads,
                          const std::function<void(std::size_t, std::size_t)>& progress = {});

}  // namespace distsim::validation
