#include "io/document/diagnostics.hpp"

#include <algorithm>

#include "core/input_error.hpp"

namespace distsim::io {

void Diagnostics::add(int line, std::string_view key_path, std::string_view message) {
  std::string problem = file_;
  if (line > 0) {
    problem.append(":").append(std::to_string(line));
  }
  problem.append(": ");
  if (!key_path.empty()) {
    problem.append(key_path).append(": ");
  }
  problem.append(message);
  problems_.push_back({line, problem});
}

void Diagnostics::throw_if_any() const {
  if (problems_.empty()) {
    return;
  }
  std::vector<Problem> sorted = problems_;
  std::stable_sort(sorted.begin(), sorted.end(), [](const Problem& a, const Problem& b) { return a.line < b.line; });
  std::string message;
  for (std::size_t i = 0; i < sorted.size() && i < kMaxListed; ++i) {
    message += (i == 0 ? "" : "\n") + sorted[i].text;
  }
  if (problems_.size() > kMaxListed) {
    message += "\n" + file_ + ": ... and " + std::to_string(problems_.size() - kMaxListed) + " more problems";
  }
  throw InputError(message);
}

}  // namespace distsim::io
