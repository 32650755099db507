#pragma once

#include <optional>
#include <string>
#include <vector>

#include "strategy/job_spec.hpp"

namespace distsim::validation {

//! One published training run: what was trained, on what and how, and the iteration time its
//! authors measured. `job` is empty when the row cannot be simulated; `excluded_because` says why.
struct CalibrationRun {
  std::string id;
  std::string source;
  std::string label;  //!< model and scale, for the report
  int line = 0;       //!< in the CSV file, for messages
  double measured_iteration_s = 0;
  std::optional<strategy::JobSpec> job;
  std::string excluded_because;
  //! What the reader assumed where the source is silent or a value is priced as something close
  //! to it, each as "setting=value (why)"; empty for a run read exactly as published.
  std::vector<std::string> assumptions;
};

}  // namespace distsim::validation
