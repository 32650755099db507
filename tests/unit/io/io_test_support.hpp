#pragma once

#include <string>

#include "core/input_error.hpp"

namespace distsim::io {

//! The path of a file under tests/fixtures/.
inline std::string fixture(const std::string& relative) {
  return std::string(DISTSIM_SOURCE_DIR) + "/tests/fixtures/" + relative;
}

//! The message of the InputError that `action` throws, or "" when it throws none.
template <class Action>
std::string error_of(Action&& action) {
  try {
    action();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace distsim::io
