#include "cli/threads_flag.hpp"

#include <algorithm>
#include <thread>

#include "core/input_error.hpp"
#include "core/number_text.hpp"

namespace distsim::cli {

void ThreadsFlag::add_to(CLI::App& command, const std::string& help) {
  flag_ = command.add_option("--threads", threads_, help + " (default: all cores)");
}

int ThreadsFlag::count() const {
  if (flag_->count() == 0) {
    return std::max(static_cast<int>(std::thread::hardware_concurrency()), 1);
  }
  if (threads_ <= 0) {
    throw InputError("--threads: " + std::string(kExpectedPositiveInteger) + ", got '" + std::to_string(threads_) +
                     "'");
  }
  return threads_;
}

}  // namespace distsim::cli
