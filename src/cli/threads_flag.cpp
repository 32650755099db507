#include "cli/threads_flag.hpp"

#include <algorithm>
#include <thread>

#include "core/input_error.hpp"

namespace distsim::cli {

void ThreadsFlag::add_to(CLI::App& command, const std::string& help) {
  flag_ = command.add_option("--threads", threads_, help + " (default: all cores)");
}

int ThreadsFlag::count() const {
  if (flag_->count() == 0) {
    return std::max(static_cast<int>(std::thread::hardware_concurrency()), 1);
  }
  if (threads_ <= 0) {
    throw InputError("--threads: expected a positive integer, got '" + std::to_string(threads_) + "'");
  }
  return threads_;
}

}  // namespace distsim::cli
