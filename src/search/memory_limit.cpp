#include "search/memory_limit.hpp"

#include <cmath>
#include <exception>

#include "core/byte_units.hpp"
#include "core/input_error.hpp"
#include "core/number_text.hpp"

namespace distsim::search {

std::optional<double> memory_limit_bytes(const strategy::JobSpec& base,
                                         const std::optional<std::string>& memory_headroom,
                                         const std::optional<double>& max_memory_gib) {
  if (memory_headroom && max_memory_gib) {
    throw InputError("--memory-headroom and --max-memory-gib both given; use one or the other");
  }
  if (max_memory_gib) {
    if (!(*max_memory_gib > 0)) {
      throw InputError("--max-memory-gib: expected a positive number of GiB, got " + std::to_string(*max_memory_gib));
    }
    return *max_memory_gib * kGiB;
  }
  if (!memory_headroom) return std::nullopt;
  std::string text = *memory_headroom;
  if (!text.empty() && text.back() == '%') text.pop_back();
  const auto percent = parse_finite_number(text);
  if (!percent || *percent < 0 || *percent >= 100) {
    throw InputError("--memory-headroom: expected a percentage from 0 to below 100, e.g. 10 or 10%, got '" +
                     *memory_headroom + "'");
  }
  // On a cluster of several GPU types, the headroom is kept on the smallest.
  const auto capacity = static_cast<double>(std::llround(base.cluster.least_gpu_memory_gb() * kGiB));
  return capacity * (1.0 - *percent / 100.0);
}

}  // namespace distsim::search
