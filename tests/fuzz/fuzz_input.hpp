#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace distsim::fuzz {

//! The fuzzer's bytes as text.
inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

//! Writes the input to a file in this process's scratch folder and returns its path, for readers
//! that take a path as the command line gives it. The file is called `stem` with ".json" when
//! the text starts (after blanks) with '{' or '[', so JSON seeds go through the strict JSON check
//! as they do from the command line, and ".yaml" otherwise; `stem` may carry its own extension
//! (".csv", or "config.json" for a Hugging Face config), which is kept.
std::string write_input(std::string_view text, const std::string& stem);

}  // namespace distsim::fuzz
