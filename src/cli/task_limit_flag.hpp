#pragma once

#include <cstdint>
#include <string>

#include <CLI/CLI.hpp>

namespace distsim::cli {

//! --max-tasks N of the commands that build a job's program: the size above which a job is refused
//! before it is built (api::SimulationOptions::task_limit).
class TaskLimitFlag {
 public:
  void add_to(CLI::App& command);
  //! The limit; throws InputError "--max-tasks: expected a positive integer, got '0'".
  std::int64_t limit() const;

 private:
  std::int64_t limit_ = 0;
  CLI::Option* flag_ = nullptr;
};

}  // namespace distsim::cli
