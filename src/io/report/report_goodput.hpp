#pragma once

#include <string>

#include "goodput/goodput_estimate.hpp"

namespace distsim::io {

//! The goodput section of a simulation report (docs/goodput.md): the ETTR, the goodput, the mean
//! time between failures and the time to train as cards, the wall time's shares as one stacked
//! bar with its legend, and the assumptions behind every default taken.
void append_goodput_section(std::string& html, const goodput::GoodputEstimate& estimate);

}  // namespace distsim::io
