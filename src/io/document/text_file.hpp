#pragma once

#include <string>
#include <string_view>

namespace distsim::io {

//! The whole file as bytes. Throws InputError "cannot open <what> '<path>': <reason>" with the
//! system's reason (no such file, permission denied, is a directory).
std::string read_text_file(const std::string& path, std::string_view what);

}  // namespace distsim::io
