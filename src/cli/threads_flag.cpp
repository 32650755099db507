#include "cli/threads_flag.hpp"

#include "core/input_error.hpp"
#include "core/number_text.hpp"
#include "core/parallel_for.hpp"

namespace distsim::cli {

void ThreadsFlag::add_to(CLI::App& command, const std::string& help) {
  flag_ = command.add_option("--threads", threads_, help + " (default: all cores)");
}

int ThreadsFlag::count() const {
  if (flag_->count() == 0) {
    return hardware_threads();
  }
  if (threads_ <= 0) {
    throw InputError("--threads: " + std::string(kExpectedPositiveInteger) + ", got '" + std::to_string(threads_) +
                     "'");
  }
  return threads_;
}

}  // namespace distsim::cli
