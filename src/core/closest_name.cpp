#include "core/closest_name.hpp"

#include <algorithm>
#include <cctype>
#include <numeric>

namespace distsim {

namespace {
char lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }
}  // namespace

int edit_distance(std::string_view a, std::string_view b) {
  std::vector<int> previous(b.size() + 1);
  std::vector<int> current(b.size() + 1);
  std::iota(previous.begin(), previous.end(), 0);
  for (size_t i = 1; i <= a.size(); ++i) {
    current[0] = static_cast<int>(i);
    for (size_t j = 1; j <= b.size(); ++j) {
      const int substitution = previous[j - 1] + (lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1);
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, substitution});
    }
    std::swap(previous, current);
  }
  return previous[b.size()];
}

std::string closest_name(std::string_view name, const std::vector<std::string>& candidates) {
  std::string best;
  int best_distance = 0;
  for (const auto& candidate : candidates) {
    const int distance = edit_distance(name, candidate);
    if (best.empty() || distance < best_distance) {
      best = candidate;
      best_distance = distance;
    }
  }
  return best;
}

std::string closest_completion(std::string_view name, const std::vector<std::string>& candidates) {
  std::vector<std::string> completions;
  for (const auto& candidate : candidates) {
    if (candidate.size() >= name.size() && edit_distance(name, candidate.substr(0, name.size())) == 0) {
      completions.push_back(candidate);
    }
  }
  return closest_name(name, completions.empty() ? candidates : completions);
}

std::string unknown_name_message(std::string_view what, std::string_view name,
                                 const std::vector<std::string>& candidates) {
  return unknown_name_message(what, name, candidates, closest_name(name, candidates));
}

std::string unknown_name_message(std::string_view what, std::string_view name,
                                 const std::vector<std::string>& candidates, std::string_view suggestion) {
  std::string message = "unknown " + std::string(what) + " '" + std::string(name) + "'";
  if (candidates.empty()) {
    return message;
  }
  message += "; did you mean '" + std::string(suggestion) + "'? (known: ";
  for (size_t i = 0; i < candidates.size(); ++i) {
    message += (i == 0 ? "" : ", ") + candidates[i];
  }
  return message + ")";
}

}  // namespace distsim
