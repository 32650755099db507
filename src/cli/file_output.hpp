#pragma once

#include <functional>
#include <ostream>
#include <string>

namespace distsim::cli {

//! Writes through a temporary file renamed into place, so a failed run leaves no partial file.
//! Throws InputError when the file cannot be written.
void write_file_atomically(const std::string& path, const std::function<void(std::ostream&)>& write);

}  // namespace distsim::cli
