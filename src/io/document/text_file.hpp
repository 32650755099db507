#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace distsim::io {

//! The most bytes a spec, job or calibration file may hold: far above any real one, and a bound on
//! what a path like /dev/zero makes distsim read.
inline constexpr std::size_t kLargestSpecFile = std::size_t{64} << 20;

//! The whole file as bytes. Throws InputError "cannot open <what> '<path>': <reason>" with the
//! system's reason (no such file, permission denied, is a directory), and "<what> '<path>' is
//! larger than <max_bytes> bytes" for a longer one, before reading past the limit.
std::string read_text_file(const std::string& path, std::string_view what, std::size_t max_bytes = kLargestSpecFile);

}  // namespace distsim::io
