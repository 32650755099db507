#include "options/job_option.hpp"

#include <charconv>
#include <optional>

#include <fmt/format.h>
#include <stdexcept>

#include "core/closest_name.hpp"
#include "core/name_match.hpp"
#include "core/number_text.hpp"

namespace distsim::options {

namespace {

ParsedValue parse_positive_integer(std::string_view text) {
  int value = 0;
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  if (text.empty() || error != std::errc() || stop != end || value <= 0) {
    return {0, std::string(kExpectedPositiveInteger) + ", got '" + std::string(text) + "'"};
  }
  return {value, ""};
}

ParsedValue parse_boolean(std::string_view text) {
  for (const char* yes : {"true", "yes", "on"}) {
    if (same_name(text, yes)) return {true, ""};
  }
  for (const char* no : {"false", "no", "off"}) {
    if (same_name(text, no)) return {false, ""};
  }
  return {false, "expected true or false, got '" + std::string(text) + "'"};
}

ParsedValue parse_choice(const JobOption& option, std::string_view text) {
  for (const auto& allowed : option.allowed) {
    if (same_name(text, allowed)) return {allowed, ""};
  }
  for (const auto& [alias, allowed] : option.value_aliases) {
    if (same_name(text, alias)) return {allowed, ""};
  }
  for (const auto& [name, why] : option.unmodelled_values) {
    if (same_name(text, name)) return {std::string(), option.noun + " '" + std::string(text) + "' " + why};
  }
  // A choice's check names what a known but unmodelled value is, instead of calling it unknown.
  if (option.check) {
    if (std::string problem = option.check(std::string(text)); !problem.empty()) return {std::string(), problem};
  }
  return {std::string(), unknown_name_message(option.noun, text, option.allowed)};
}

ParsedValue parse_number(std::string_view text, bool zero_allowed) {
  const std::optional<double> number = parse_finite_number(text);
  if (!number || *number < 0 || (*number == 0 && !zero_allowed)) {
    return {0.0, std::string(zero_allowed ? "expected a number of at least 0" : "expected a positive number") +
                     ", e.g. 15e12 or 2.5, got '" + std::string(text) + "'"};
  }
  return {*number, ""};
}

}  // namespace

const JobOption* find_option(std::string_view key) {
  for (const auto& candidate : job_options()) {
    if (candidate.key == key) return &candidate;
  }
  return nullptr;
}

const JobOption& option(std::string_view key) {
  const JobOption* found = find_option(key);
  if (found == nullptr) {
    throw std::logic_error("no job option '" + std::string(key) + "'");
  }
  return *found;
}

std::vector<std::string> option_keys() {
  std::vector<std::string> keys;
  for (const auto& candidate : job_options()) {
    keys.push_back(candidate.key);
  }
  return keys;
}

ParsedValue parse_value(const JobOption& option, std::string_view text) {
  switch (option.type) {
    case ValueType::positive_integer: return parse_positive_integer(text);
    case ValueType::boolean: return parse_boolean(text);
    case ValueType::choice: return parse_choice(option, text);
    case ValueType::positive_number: return parse_number(text, false);
    case ValueType::non_negative_number: return parse_number(text, true);
    case ValueType::text:
      if (text.empty()) return {std::string(), "expected a value, got nothing"};
      if (option.check) {
        if (std::string problem = option.check(std::string(text)); !problem.empty()) return {std::string(), problem};
      }
      return {std::string(text), ""};
  }
  return {std::string(), "unparsed"};
}

std::string value_text(const Value& value) {
  if (const auto* number = std::get_if<int>(&value)) return std::to_string(*number);
  if (const auto* flag = std::get_if<bool>(&value)) return *flag ? "true" : "false";
  // The shortest text that reads back as the same number.
  if (const auto* real = std::get_if<double>(&value)) return fmt::format("{}", *real);
  return std::get<std::string>(value);
}

}  // namespace distsim::options
