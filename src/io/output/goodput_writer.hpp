#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "goodput/goodput_estimate.hpp"

namespace distsim::io {

//! The goodput estimate as JSON: failures, checkpoint, interval, ETTR with its shares, goodput,
//! time to train, and the assumptions behind every default taken (docs/goodput.md).
nlohmann::json goodput_json(const goodput::GoodputEstimate& estimate);

//! The same as the text summary's goodput section, its assumptions as "assumed:" lines.
std::string goodput_text(const goodput::GoodputEstimate& estimate);

}  // namespace distsim::io
