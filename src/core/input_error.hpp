#pragma once

#include <stdexcept>
#include <string>

namespace distsim {

//! Bad user input: a file, flag or value that breaks a rule. The message names the place, the
//! rule and, for unknown names, the closest valid one. The CLI maps it to exit code 2.
class InputError : public std::runtime_error {
 public:
  explicit InputError(const std::string& message) : std::runtime_error(message) {}
};

//! A broken internal invariant (never reachable from input). The CLI maps it to exit code 70.
class InternalError : public std::logic_error {
 public:
  explicit InternalError(const std::string& message) : std::logic_error(message) {}
};

}  // namespace distsim
