#include "strategy/strategy.hpp"

#include <cctype>
#include <limits>
#include <utility>

#include "core/checked_arithmetic.hpp"
#include "core/input_error.hpp"

namespace distsim::strategy {

namespace {

//! A problem with a strategy notation, or nothing.
struct NotationResult {
  Strategy strategy;
  std::string problem;
};

NotationResult reject(const std::string& text, const std::string& why) {
  return {Strategy{}, why + " in '" + text +
                          "'; expected the form xMyPzD, for example 2M2P4D (tensor 2, pipeline 2, "
                          "data 4)"};
}

NotationResult read_notation(const std::string& text) {
  Strategy strategy;
  // The letters and the sizes they set: M tensor (model), C context, P pipeline, D data.
  const std::pair<char, int Strategy::*> parts[] = {{'M', &Strategy::tensor_parallel},
                                                    {'C', &Strategy::context_parallel},
                                                    {'P', &Strategy::pipeline_parallel},
                                                    {'D', &Strategy::data_parallel}};
  bool seen[4] = {false, false, false, false};
  size_t pos = 0;
  if (text.empty()) {
    return reject(text, "nothing");
  }
  while (pos < text.size()) {
    size_t digits_end = pos;
    while (digits_end < text.size() && std::isdigit(static_cast<unsigned char>(text[digits_end]))) {
      ++digits_end;
    }
    if (digits_end == pos || digits_end - pos > 6 || digits_end == text.size()) {
      return reject(text, "each size must be a number followed by M, C, P or D");
    }
    const int value = std::stoi(text.substr(pos, digits_end - pos));
    if (value <= 0) {
      return reject(text, "sizes must be positive");
    }
    const char letter = static_cast<char>(std::toupper(static_cast<unsigned char>(text[digits_end])));
    int slot = -1;
    for (int i = 0; i < 4; ++i) {
      if (parts[i].first == letter) slot = i;
    }
    if (slot < 0) {
      return reject(text, std::string("unknown letter '") + text[digits_end] + "'");
    }
    if (seen[slot]) {
      return reject(text, std::string("'") + letter + "' appears twice");
    }
    seen[slot] = true;
    strategy.*(parts[slot].second) = value;
    pos = digits_end + 1;
  }
  return {strategy, ""};
}

}  // namespace

std::string strategy_notation_problem(const std::string& text) { return read_notation(text).problem; }

Strategy parse_strategy_notation(const std::string& text) {
  NotationResult result = read_notation(text);
  if (!result.problem.empty()) {
    throw InputError("strategy: " + result.problem);
  }
  return result.strategy;
}

std::optional<int> Strategy::checked_world_size() const {
  const auto world = checked_product({tensor_parallel, context_parallel, pipeline_parallel, data_parallel});
  if (!world || *world > std::numeric_limits<int>::max()) {
    return std::nullopt;
  }
  return static_cast<int>(*world);
}

}  // namespace distsim::strategy
