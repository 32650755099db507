#pragma once

#include <ostream>

#include "api/simulation.hpp"
#include "io/report/search_report.hpp"

namespace distsim::io {

//! One self-contained HTML page (inline CSS and SVG, no network) about a simulation: the job,
//! the summary numbers, how each device of data-parallel replica 0 spent the iteration, and its
//! timeline, one row per stream, coloured by category (docs/report.md). Neighbouring activities
//! of one category closer than a pixel are drawn as one rectangle, so the file stays small for
//! large jobs. The same simulation always gives the same bytes.
void write_simulation_report(std::ostream& out, const api::Simulation& simulation);

//! One self-contained HTML page about a strategy search: every candidate's throughput as a bar
//! (out of memory and invalid ones marked, as in Figure 12 of the DistSim paper), a table of the
//! first rows and the Pareto front of iteration time versus peak memory.
void write_search_report(std::ostream& out, const SearchReport& report);

}  // namespace distsim::io
