#pragma once

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>

namespace distsim {

//! The product of `factors` in 64 bits, or nothing when it does not fit (sizes, counts and bytes
//! are multiplied through here wherever an input can make them arbitrarily large).
inline std::optional<std::int64_t> checked_product(std::initializer_list<std::int64_t> factors) {
  std::int64_t product = 1;
  for (const std::int64_t factor : factors) {
    if (__builtin_mul_overflow(product, factor, &product)) {
      return std::nullopt;
    }
  }
  return product;
}

//! `a + b` in 64 bits, or nothing when it does not fit.
inline std::optional<std::int64_t> checked_sum(std::int64_t a, std::int64_t b) {
  std::int64_t sum = 0;
  if (__builtin_add_overflow(a, b, &sum)) {
    return std::nullopt;
  }
  return sum;
}

//! An exact integer for sums of products that pass 64 bits: a time near the clock's range
//! weighted by a count of ranks (GCC and clang both have it).
__extension__ using WideInteger = __int128;

//! `total + count x each` in 64 bits, or nothing when a step does not fit (a time or a count
//! extended by repeats).
inline std::optional<std::int64_t> checked_multiply_add(std::int64_t total, std::int64_t count, std::int64_t each) {
  std::int64_t product = 0;
  if (__builtin_mul_overflow(count, each, &product)) return std::nullopt;
  return checked_sum(total, product);
}

//! `total + count x each`, or the largest 64-bit value when it does not fit: for a lower bound,
//! which stays a bound when it saturates.
inline std::int64_t saturating_multiply_add(std::int64_t total, std::int64_t count, std::int64_t each) {
  return checked_multiply_add(total, count, each).value_or(std::numeric_limits<std::int64_t>::max());
}

//! `numerator / denominator` rounded up, for positive operands (a size split into shards).
inline std::int64_t ceil_div(std::int64_t numerator, std::int64_t denominator) {
  return (numerator + denominator - 1) / denominator;
}

//! "65536 x 65536 x 2": the factors of a product as a message shows them.
inline std::string product_text(std::initializer_list<std::int64_t> factors) {
  std::string text;
  for (const std::int64_t factor : factors) {
    text += (text.empty() ? "" : " x ") + std::to_string(factor);
  }
  return text;
}

}  // namespace distsim
