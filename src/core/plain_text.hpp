#pragma once

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace distsim {

//! `text` in lower case (ASCII letters; other bytes unchanged).
inline std::string lowercase(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower;
}

//! `text` without the `blanks` at either end.
inline std::string trimmed(std::string_view text, std::string_view blanks = " \t\r") {
  const auto first = text.find_first_not_of(blanks);
  if (first == std::string_view::npos) return "";
  const auto last = text.find_last_not_of(blanks);
  return std::string(text.substr(first, last - first + 1));
}

//! 1234567 → "1,234,567"; -1234 → "-1,234".
inline std::string digits_grouped(std::int64_t value) {
  const std::string digits = std::to_string(value);
  const std::size_t sign = value < 0 ? 1 : 0;
  std::string grouped = digits.substr(0, sign);
  for (std::size_t i = sign; i < digits.size(); ++i) {
    if (i > sign && (digits.size() - i) % 3 == 0) grouped += ',';
    grouped += digits[i];
  }
  return grouped;
}

//! 'text': a name or value as messages quote it.
inline std::string quoted(std::string_view text) {
  std::string result = "'";
  result += text;
  result += "'";
  return result;
}

//! "a, b, c": the names in order, separated by a comma and a space.
inline std::string comma_joined(const std::vector<std::string>& names) {
  std::string text;
  for (const auto& name : names) {
    text += (text.empty() ? "" : ", ") + name;
  }
  return text;
}

}  // namespace distsim
