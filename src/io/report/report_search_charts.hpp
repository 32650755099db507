#pragma once

#include <string>

#include "io/report/search_report.hpp"

//! The sections of the search report (see write_search_report).
namespace distsim::io {

//! Title, description and the counts: candidates, simulated, out of memory, invalid, best/worst.
void append_search_header(std::string& html, const SearchReport& report);

//! Every candidate's throughput as a bar in the given order; out-of-memory and invalid candidates
//! get a short hatched marker with a label instead of a bar, as in Figure 12 of the DistSim paper.
void append_search_bar_chart(std::string& html, const SearchReport& report);

//! The first report.table_rows rows with every number; out-of-memory rows highlighted.
void append_search_table(std::string& html, const SearchReport& report);

//! Iteration time versus peak memory of every simulated candidate, the Pareto front highlighted
//! and joined, the GPU's memory drawn as a limit, and the front listed beside the chart.
void append_pareto_chart(std::string& html, const SearchReport& report);

}  // namespace distsim::io
