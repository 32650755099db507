#include "cli/progress.hpp"

#include <unistd.h>

#include <cstdio>
#include <memory>

namespace distsim::cli {

namespace {

using Clock = std::chrono::steady_clock;

//! The state one step's callback shares between its copies.
class ProgressPrinter {
 public:
  ProgressPrinter(std::string step, std::string unit, bool terminal)
      : step_(std::move(step)), unit_(std::move(unit)), terminal_(terminal) {}

  void report(std::size_t done, std::size_t total) {
    if (done == last_done_) return;
    last_done_ = done;
    const auto now = Clock::now();
    if (terminal_) {
      draw_bar(done, total, now);
    } else if (done >= total || now - last_line_ >= ProgressFlag::kLineInterval) {
      print_line(done, total, now);
    }
  }

 private:
  void draw_bar(std::size_t done, std::size_t total, Clock::time_point now) {
    if (now - start_ < std::chrono::milliseconds(500)) return;
    constexpr std::size_t kWidth = 40;
    const std::size_t filled = total == 0 ? kWidth : std::min(done, total) * kWidth / total;
    std::fprintf(stderr, "\r%s [%s%s] %zu/%zu %s", step_.c_str(), std::string(filled, '#').c_str(),
                 std::string(kWidth - filled, ' ').c_str(), done, total, unit_.c_str());
    if (done >= total) std::fprintf(stderr, "\n");
    std::fflush(stderr);
  }

  void print_line(std::size_t done, std::size_t total, Clock::time_point now) {
    const auto percent = total == 0 ? 100 : std::min(done, total) * 100 / total;
    const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(now - start_).count();
    std::fprintf(stderr, "distsim: %s: %zu/%zu %s (%zu%%) after %lld s\n", step_.c_str(), done, total, unit_.c_str(),
                 percent, static_cast<long long>(seconds));
    std::fflush(stderr);
    last_line_ = now;
  }

  std::string step_;
  std::string unit_;
  bool terminal_;
  Clock::time_point start_ = Clock::now();
  Clock::time_point last_line_ = start_;
  std::size_t last_done_ = static_cast<std::size_t>(-1);
};

}  // namespace

void ProgressFlag::add_to(CLI::App& command) {
  command.add_flag("--progress", lines_,
                   "off a terminal, print how far a long step got to stderr every few seconds (on a terminal a "
                   "progress bar shows anyway)");
}

ProgressCallback ProgressFlag::reporter(const std::string& step, const std::string& unit) const {
  const bool terminal = isatty(STDERR_FILENO) != 0;
  if (!terminal && !lines_) return {};
  auto printer = std::make_shared<ProgressPrinter>(step, unit, terminal);
  return [printer](std::size_t done, std::size_t total) { printer->report(done, total); };
}

}  // namespace distsim::cli
