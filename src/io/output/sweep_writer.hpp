#pragma once

#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "search/sweep.hpp"

namespace distsim::io {

//! One table: per point, its best candidates (iteration time, samples per second, MFU, peak
//! memory, and time and money to train for the sweep's goal), or, when none fits, the leanest
//! candidate and what would lower its peak.
std::string sweep_text(const search::Sweep& sweep, const std::vector<search::SweepPoint>& points);

//! The same per point: the point's axis values, the search's job and counts, its best candidates
//! as `distsim search --json` lists them under "top", and the memory advice when none fits.
nlohmann::json sweep_json(const search::Sweep& sweep, const std::vector<search::SweepPoint>& points);

//! One line per best candidate of each point: the point's axis values, then the columns of
//! `distsim search --csv`; a point where none fits gives one line for its leanest candidate.
void write_sweep_csv(std::ostream& out, const search::Sweep& sweep, const std::vector<search::SweepPoint>& points);

}  // namespace distsim::io
