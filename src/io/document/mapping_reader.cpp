#include "io/document/mapping_reader.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <map>

#include "core/closest_name.hpp"
#include "core/name_match.hpp"
#include "core/number_text.hpp"
#include "io/document/document.hpp"

namespace distsim::io {

namespace {

// A key this close to a known one is taken for a typo of it; anything further gets the list.
bool close_enough(std::string_view typed, std::string_view known) {
  const int limit = std::max(2, static_cast<int>(typed.size()) / 3);
  return edit_distance(typed, known) <= limit;
}

std::string_view rule_expectation(NumberRule rule) {
  switch (rule) {
    case NumberRule::positive: return "expected a positive number";
    case NumberRule::non_negative: return "expected a number >= 0";
    case NumberRule::fraction: return "expected a number in (0, 1]";
    case NumberRule::fraction_or_zero: return "expected a number in [0, 1]";
  }
  return "expected a number";
}

// A positive figure in a spec file (a rate, a capacity, a factor) outside these bounds is a typo
// or a test of the reader, and past them the durations computed from it leave the clock's range.
constexpr double kSmallestPositive = 1e-6;
constexpr double kLargestPositive = 1e12;

bool satisfies(double value, NumberRule rule) {
  switch (rule) {
    case NumberRule::positive: return value > 0;
    case NumberRule::non_negative: return value >= 0;
    case NumberRule::fraction: return value > 0 && value <= 1;
    case NumberRule::fraction_or_zero: return value >= 0 && value <= 1;
  }
  return false;
}

std::string fmt_number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

std::string duplicate_key(const std::string& key, int first_line) {
  return "duplicate key '" + key + "' (first given on line " + std::to_string(first_line) + ")";
}

//! from_chars over the whole text: "12abc" and "" are not numbers.
template <class Number>
std::optional<Number> parse_number(const std::string& text) {
  Number value{};
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  if (error != std::errc() || stop != end) {
    return std::nullopt;
  }
  return value;
}

}  // namespace

MappingReader::MappingReader(const YAML::Node& mapping, std::string path, Diagnostics& diagnostics, int line)
    : mapping_(mapping), path_(std::move(path)), diagnostics_(&diagnostics), line_(line) {}

void MappingReader::reject_unknown_keys(std::initializer_list<std::string_view> known) {
  reject_unknown_keys(std::vector<std::string>(known.begin(), known.end()));
}

void MappingReader::reject_unknown_keys(const std::vector<std::string>& known_keys) {
  std::map<std::string, int> first_line;
  for (const auto& entry : mapping_) {
    const int line = entry.first.Mark().line + 1;
    if (!entry.first.IsScalar()) {
      diagnostics_->add(line, path_, "expected a key name, got " + describe(entry.first));
      continue;
    }
    const std::string key = entry.first.Scalar();
    if (const auto [it, inserted] = first_line.emplace(key, line); !inserted) {
      diagnostics_->add(line, "", duplicate_key(path_of(key), it->second));
      continue;
    }
    if (std::find(known_keys.begin(), known_keys.end(), key) != known_keys.end()) {
      continue;
    }
    // Keys are compared without their path, which would make every nested key look close.
    const std::string closest = closest_name(key, known_keys);
    std::string message = "unknown key '" + path_of(key) + "'";
    if (close_enough(key, closest)) {
      message += "; did you mean '" + path_of(closest) + "'?";
    } else {
      message += "; expected one of ";
      for (std::size_t i = 0; i < known_keys.size(); ++i) {
        message += (i == 0 ? "" : ", ") + path_of(known_keys[i]);
      }
    }
    diagnostics_->add(line, "", message);
  }
}

void MappingReader::reject_duplicate_keys() {
  std::map<std::string, int> first_line;
  for (const auto& entry : mapping_) {
    const int line = entry.first.Mark().line + 1;
    if (!entry.first.IsScalar()) {
      continue;
    }
    if (const auto [it, inserted] = first_line.emplace(entry.first.Scalar(), line); !inserted) {
      diagnostics_->add(line, "", duplicate_key(path_of(entry.first.Scalar()), it->second));
    }
  }
}

void MappingReader::require(std::initializer_list<std::string_view> keys) {
  for (const auto key : keys) {
    if (!has(key)) {
      report_here("missing required key '" + path_of(key) + "'");
    }
  }
}

bool MappingReader::has_value(std::string_view key) const {
  const auto entry = find(key);
  return entry && !entry->second.IsNull();
}

YAML::Node MappingReader::value(std::string_view key) const {
  const auto entry = find(key);
  return entry ? entry->second : YAML::Node(YAML::NodeType::Undefined);
}

std::string MappingReader::text_of(std::string_view key) const {
  const auto entry = find(key);
  return entry && entry->second.IsScalar() ? entry->second.Scalar() : std::string();
}

std::optional<MappingReader> MappingReader::child(std::string_view key) {
  const auto entry = find(key);
  if (!entry) {
    return std::nullopt;
  }
  if (!entry->second.IsMap()) {
    report(key, "expected a mapping of keys to values, got " + describe(entry->second));
    return std::nullopt;
  }
  return MappingReader(entry->second, path_of(key), *diagnostics_, entry->first.Mark().line + 1);
}

std::vector<MappingReader> MappingReader::children(std::string_view key) {
  const auto entry = find(key);
  if (!entry) {
    return {};
  }
  const YAML::Node& list = entry->second;
  if (!list.IsSequence() || list.size() == 0) {
    report(key, "expected a non-empty list of mappings, got " + describe(list));
    return {};
  }
  std::vector<MappingReader> items;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string item_path = path_of(key) + "[" + std::to_string(i) + "]";
    if (!list[i].IsMap()) {
      diagnostics_->add(list[i].Mark().line + 1, item_path,
                        "expected a mapping of keys to values, got " + describe(list[i]));
      continue;
    }
    items.emplace_back(list[i], item_path, *diagnostics_, list[i].Mark().line + 1);
  }
  return items;
}

bool MappingReader::read(std::string_view key, int& out) {
  const std::string_view expected = kExpectedPositiveInteger;
  const std::optional<std::string> text = scalar(key, expected);
  if (!text) {
    return false;
  }
  const std::optional<int> value = quoted(key) ? std::nullopt : parse_number<int>(*text);
  if (!value || *value <= 0) {
    report(key, std::string(expected) + ", got " + shown(key, *text));
    return false;
  }
  out = *value;
  return true;
}

bool MappingReader::read_count(std::string_view key, int& out) {
  const std::string_view expected = kExpectedNonNegativeInteger;
  const std::optional<std::string> text = scalar(key, expected);
  if (!text) {
    return false;
  }
  const std::optional<int> value = quoted(key) ? std::nullopt : parse_number<int>(*text);
  if (!value || *value < 0) {
    report(key, std::string(expected) + ", got " + shown(key, *text));
    return false;
  }
  out = *value;
  return true;
}

bool MappingReader::read(std::string_view key, double& out, NumberRule rule) {
  const std::string_view expected = rule_expectation(rule);
  const std::optional<std::string> text = scalar(key, expected);
  if (!text) {
    return false;
  }
  const std::optional<double> value = quoted(key) ? std::nullopt : parse_number<double>(*text);
  if (!value || !std::isfinite(*value) || !satisfies(*value, rule)) {
    report(key, std::string(expected) + ", got " + shown(key, *text));
    return false;
  }
  if (rule == NumberRule::positive && (*value < kSmallestPositive || *value > kLargestPositive)) {
    report(key, "expected a positive number from " + fmt_number(kSmallestPositive) + " to " +
                    fmt_number(kLargestPositive) + ", got '" + *text + "'");
    return false;
  }
  out = *value;
  return true;
}

bool MappingReader::read(std::string_view key, bool& out) {
  const std::string_view expected = "expected true or false";
  const std::optional<std::string> text = scalar(key, expected);
  if (!text) {
    return false;
  }
  if (same_text(*text, "true") || same_text(*text, "false")) {
    out = same_text(*text, "true");
    return true;
  }
  report(key, std::string(expected) + ", got '" + *text + "'");
  return false;
}

bool MappingReader::read(std::string_view key, std::string& out) {
  const std::optional<std::string> text = scalar(key, "expected a string");
  if (!text) {
    return false;
  }
  if (text->empty()) {
    report(key, "expected a non-empty string, got ''");
    return false;
  }
  out = *text;
  return true;
}

void MappingReader::report(std::string_view key, std::string_view message) {
  diagnostics_->add(line_of(key), path_of(key), message);
}

void MappingReader::report_here(std::string_view message) { diagnostics_->add(line_, "", message); }

std::string MappingReader::path_of(std::string_view key) const {
  return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
}

std::optional<std::pair<YAML::Node, YAML::Node>> MappingReader::find(std::string_view key) const {
  for (const auto& entry : mapping_) {
    if (entry.first.IsScalar() && entry.first.Scalar() == key) {
      return std::make_pair(entry.first, entry.second);
    }
  }
  return std::nullopt;
}

std::optional<std::string> MappingReader::scalar(std::string_view key, std::string_view expected) {
  const auto entry = find(key);
  if (!entry) {
    return std::nullopt;
  }
  if (!entry->second.IsScalar()) {
    report(key, std::string(expected) + ", got " + describe(entry->second));
    return std::nullopt;
  }
  return entry->second.Scalar();
}

bool MappingReader::quoted(std::string_view key) const {
  const auto entry = find(key);
  // yaml-cpp tags a quoted scalar "!" and a plain one "?": "768" is a string, 768 a number.
  return entry && entry->second.IsScalar() && entry->second.Tag() == "!";
}

std::string MappingReader::shown(std::string_view key, const std::string& text) const {
  return quoted(key) ? "the string \"" + text + "\"" : "'" + text + "'";
}

int MappingReader::line_of(std::string_view key) const {
  const auto entry = find(key);
  return entry ? entry->first.Mark().line + 1 : 0;
}

bool MappingReader::same_text(std::string_view a, std::string_view b) { return same_name(a, b); }

}  // namespace distsim::io
