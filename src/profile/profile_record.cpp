#include "profile/profile_record.hpp"

#include <cctype>

#include <fmt/format.h>

#include "core/input_error.hpp"
#include "events/event_key.hpp"

namespace distsim::profile {

namespace {

// 2^63 ns, the range of distsim's clock, in microseconds (292 years).
constexpr double kLongestDurationUs = 9.2e12;

void check_positive(std::string_view field, double value) {
  if (!(value > 0) || value > kLongestDurationUs) {
    throw InputError(fmt::format("{} must be a positive duration up to {:g} us (292 years, the range of distsim's "
                                 "clock), got {}",
                                 field, kLongestDurationUs, value));
  }
}

void check_order(std::string_view low_field, double low, std::string_view high_field, double high) {
  if (low > high) {
    throw InputError(fmt::format("{} ({}) must not exceed {} ({})", low_field, low, high_field, high));
  }
}

}  // namespace

bool is_utc_timestamp(const std::string& text) {
  constexpr std::string_view kPattern = "dddd-dd-ddTdd:dd:dd";
  if (text.size() < kPattern.size() + 1 || text.back() != 'Z') {
    return false;
  }
  for (size_t i = 0; i < kPattern.size(); ++i) {
    const bool digit = std::isdigit(static_cast<unsigned char>(text[i])) != 0;
    if (kPattern[i] == 'd' ? !digit : text[i] != kPattern[i]) {
      return false;
    }
  }
  const std::string fraction = text.substr(kPattern.size(), text.size() - kPattern.size() - 1);
  if (fraction.empty()) {
    return true;
  }
  if (fraction.size() < 2 || fraction[0] != '.') {
    return false;
  }
  for (size_t i = 1; i < fraction.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(fraction[i]))) {
      return false;
    }
  }
  return true;
}

void check_record(const ProfileRecord& record) {
  events::parse_event_key(record.key);
  check_positive("median_us", record.median_us);
  check_positive("mean_us", record.mean_us);
  check_positive("min_us", record.min_us);
  check_positive("max_us", record.max_us);
  check_order("min_us", record.min_us, "median_us", record.median_us);
  check_order("median_us", record.median_us, "max_us", record.max_us);
  check_order("min_us", record.min_us, "mean_us", record.mean_us);
  check_order("mean_us", record.mean_us, "max_us", record.max_us);
  if (!(record.stdev_us >= 0)) {
    throw InputError(fmt::format("stdev_us must not be negative, got {}", record.stdev_us));
  }
  if (record.samples < 1) {
    throw InputError(fmt::format("samples must be at least 1, got {}", record.samples));
  }
  if (!is_utc_timestamp(record.measured_at)) {
    throw InputError("measured_at must be an ISO 8601 UTC time like '2026-11-22T21:30:00Z', got '" +
                     record.measured_at + "'");
  }
}

}  // namespace distsim::profile
