#pragma once

#include <string>
#include <vector>

#include "api/simulation.hpp"
#include "io/report/report_timeline.hpp"

namespace distsim::io {

//! Pixels of the timeline's time axis, without the label column. One pixel is also how close two
//! activities must be to merge (see add_block).
inline constexpr double kTimelinePlotWidth = 1040;

//! The bands as one SVG figure: a time axis with ticks and grid lines, one row per stream labelled
//! with its device's stage and ranks, idle as the row background and one rectangle per block,
//! coloured by category, whose <title> (shown on hover) gives its tasks, micro-batches, start and
//! duration.
void append_timeline_svg(std::string& html, const api::Simulation& simulation, const std::vector<TimelineBand>& bands);

//! The colour key of the timeline: every category, and idle.
void append_timeline_legend(std::string& html);

}  // namespace distsim::io
