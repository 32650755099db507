#pragma once

#include <cmath>
#include <exception>
#include <optional>
#include <string>
#include <string_view>

namespace distsim {

//! The finite number that `text` spells whole ("15e12", "2.5"), or none: std::stod alone accepts
//! a prefix ("2.5x"), throws on text that is no number, and reads "nan" and "inf".
inline std::optional<double> parse_finite_number(std::string_view text) {
  const std::string whole(text);
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(whole, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (used != whole.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

//! What a count setting expects, its range stated: distsim numbers counts, sizes and ranks in
//! 32 bits, so 2147483647 is the largest any may be.
inline constexpr std::string_view kExpectedPositiveInteger = "expected a positive integer (1 to 2147483647)";
inline constexpr std::string_view kExpectedNonNegativeInteger = "expected a non-negative integer (0 to 2147483647)";

}  // namespace distsim
