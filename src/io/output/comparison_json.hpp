#pragma once

#include <nlohmann/json.hpp>

#include "compare/comparison.hpp"

namespace distsim::compare {

//! Every number of the comparison: times in integer nanoseconds, errors as fractions (0.015 is
//! 1.5 %) of the measured iteration; null where a rank had nothing to match.
nlohmann::json comparison_json(const Timeline& predicted, const Timeline& measured, const Comparison& comparison);

}  // namespace distsim::compare
