#pragma once

#include <string>
#include <vector>

namespace distsim::cli {

//! The items of a list flag (`--tp 1,2,4`, `--tp 1 2 4` or `--tp 1,2 --tp 4`): each value given
//! split at its commas. An empty item (`1,,4`, `1,2,`) is a slip, not a shorter list: an
//! InputError names the flag and the value.
std::vector<std::string> list_items(const std::string& flag, const std::vector<std::string>& values);

}  // namespace distsim::cli
