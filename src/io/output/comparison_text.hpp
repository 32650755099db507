#pragma once

#include <string>

#include "compare/comparison.hpp"

namespace distsim::compare {

//! The comparison as text: the inputs and the rank mapping, the batch time, a table of activity
//! errors per rank, a table of forward/backward errors per stage and micro-batch, and summary
//! lines. Times in µs printed exactly from nanoseconds, errors in % of the measured iteration.
std::string comparison_text(const Timeline& predicted, const Timeline& measured, const Comparison& comparison);

}  // namespace distsim::compare
