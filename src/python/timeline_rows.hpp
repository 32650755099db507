#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "api/simulation.hpp"

namespace distsim::python {

//! One activity of a rank's timeline, as `Result.timeline()` lists it.
struct TimelineRow {
  std::string_view stream;  //!< the stream's id in the stream table: "compute", "tp_comm", ...
  bool communication = false;
  SimTime start = 0;
  SimTime end = 0;
  int micro_batch = -1;  //!< -1 for work done once per iteration
  int layer = -1;
  std::string_view phase;  //!< "fwd", "bwd", ...
  std::string event;       //!< the event key
  std::string_view label;
};

//! The activities of `rank` in task order (the order each stream runs them), from the simulated
//! device that stands for the rank. Throws InputError for a rank outside the job.
std::vector<TimelineRow> timeline_rows(const api::Simulation& simulation, int rank);

}  // namespace distsim::python
