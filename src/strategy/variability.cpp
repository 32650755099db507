#include "strategy/variability.hpp"

#include <algorithm>
#include <array>
#include <charconv>

#include <fmt/format.h>

#include "core/closest_name.hpp"
#include "core/number_text.hpp"
#include "core/plain_text.hpp"

namespace distsim::strategy {

namespace {

struct ScopeName {
  SlowScope scope;
  std::string_view prefix;
};

// A rank is written as its number alone; a stage or host with its word before the number.
constexpr std::array<ScopeName, 2> kScopePrefixes{{{SlowScope::stage, "stage"}, {SlowScope::host, "host"}}};

struct DistributionName {
  JitterDistribution distribution;
  std::string_view name;
};

constexpr std::array<DistributionName, 3> kDistributions{{{JitterDistribution::lognormal, "lognormal"},
                                                          {JitterDistribution::normal, "normal"},
                                                          {JitterDistribution::uniform, "uniform"}}};

std::optional<int> whole(std::string_view text) {
  int value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size() || value < 0) return std::nullopt;
  return value;
}

std::string slow_item_problem(std::string_view item) {
  return fmt::format(
      "'{}': expected RANK:FACTOR, stageS:FACTOR or hostH:FACTOR, a whole number and a factor above 0 (7:1.3)", item);
}

std::string parse_slow_item(std::string_view item, SlowRanks& slow) {
  const std::size_t colon = item.find(':');
  if (colon == std::string_view::npos) return slow_item_problem(item);
  std::string_view who = item.substr(0, colon);
  slow.scope = SlowScope::rank;
  for (const auto& [scope, prefix] : kScopePrefixes) {
    if (who.rfind(prefix, 0) == 0) {
      slow.scope = scope;
      who.remove_prefix(prefix.size());
    }
  }
  const auto index = whole(who);
  const auto factor = parse_finite_number(item.substr(colon + 1));
  if (!index || !factor || *factor <= 0) return slow_item_problem(item);
  slow.index = *index;
  slow.factor = *factor;
  return {};
}

std::vector<std::string_view> comma_items(std::string_view text) {
  std::vector<std::string_view> items;
  std::size_t from = 0;
  while (from <= text.size()) {
    const std::size_t comma = std::min(text.find(',', from), text.size());
    items.push_back(text.substr(from, comma - from));
    from = comma + 1;
  }
  return items;
}

}  // namespace

bool Variability::breaks_symmetry() const {
  return jitter.has_value() ||
         std::any_of(slow.begin(), slow.end(), [](const SlowRanks& s) { return s.scope != SlowScope::stage; });
}

double Variability::factor(int rank, int stage, int host) const {
  double product = 1;
  for (const auto& s : slow) {
    const int of = s.scope == SlowScope::rank ? rank : s.scope == SlowScope::stage ? stage : host;
    if (of == s.index) product *= s.factor;
  }
  return product;
}

ParsedSlowRanks parse_slow_ranks(std::string_view text) {
  ParsedSlowRanks parsed;
  for (const auto& item : comma_items(text)) {
    SlowRanks slow;
    if (std::string problem = parse_slow_item(trimmed(item), slow); !problem.empty()) return {{}, problem};
    parsed.items.push_back(slow);
  }
  if (parsed.items.empty()) return {{}, slow_item_problem(text)};
  return parsed;
}

std::string slow_ranks_text(const std::vector<SlowRanks>& items) {
  std::string text;
  for (const auto& s : items) {
    const std::string_view prefix = s.scope == SlowScope::stage ? "stage" : s.scope == SlowScope::host ? "host" : "";
    text += fmt::format("{}{}{}:{}", text.empty() ? "" : ",", prefix, s.index, s.factor);
  }
  return text;
}

ParsedJitter parse_kernel_jitter(std::string_view text) {
  const std::size_t colon = text.find(':');
  const std::string_view name = text.substr(0, colon);
  std::vector<std::string> names;
  names.reserve(kDistributions.size());
  for (const auto& known : kDistributions) names.emplace_back(known.name);
  const auto* found = std::find_if(kDistributions.begin(), kDistributions.end(),
                                   [&](const DistributionName& known) { return known.name == name; });
  if (found == kDistributions.end()) return {{}, unknown_name_message("jitter distribution", name, names)};
  const auto spread = colon == std::string_view::npos ? std::nullopt : parse_finite_number(text.substr(colon + 1));
  const bool uniform = found->distribution == JitterDistribution::uniform;
  if (!spread || *spread <= 0 || (uniform && *spread >= 1)) {
    return {{},
            fmt::format("'{}': expected {}:SPREAD with {} (lognormal:0.05)", text, name,
                        uniform ? "a half-width above 0 and below 1" : "a standard deviation above 0")};
  }
  return {{found->distribution, *spread}, {}};
}

std::string kernel_jitter_text(const KernelJitter& jitter) {
  const auto* found = std::find_if(kDistributions.begin(), kDistributions.end(), [&](const DistributionName& known) {
    return known.distribution == jitter.distribution;
  });
  return fmt::format("{}:{}", found->name, jitter.spread);
}

}  // namespace distsim::strategy
