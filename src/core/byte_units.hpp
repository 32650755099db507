#pragma once

namespace distsim {

//! Bytes in a GiB (2^30): GPU memory is given, limited and reported in GiB.
inline constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

}  // namespace distsim
