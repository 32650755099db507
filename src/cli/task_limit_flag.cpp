#include "cli/task_limit_flag.hpp"

#include "api/simulation.hpp"
#include "core/input_error.hpp"

namespace distsim::cli {

void TaskLimitFlag::add_to(CLI::App& command) {
  flag_ = command.add_option("--max-tasks", limit_,
                             "refuse a job whose program would have more tasks than this, by estimate (default: " +
                                 std::to_string(api::kDefaultTaskLimit) + ")");
}

std::int64_t TaskLimitFlag::limit() const {
  if (flag_->count() == 0) {
    return api::kDefaultTaskLimit;
  }
  if (limit_ <= 0) {
    throw InputError("--max-tasks: expected a positive number of tasks, got '" + std::to_string(limit_) + "'");
  }
  return limit_;
}

}  // namespace distsim::cli
