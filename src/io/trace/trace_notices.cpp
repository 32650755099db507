#include "io/trace/trace_notices.hpp"

#include <fmt/format.h>

namespace distsim::io {

std::string readable_bytes(std::uint64_t bytes) {
  const auto value = static_cast<double>(bytes);
  if (bytes >= 1'000'000'000) return fmt::format("{:.1f} GB", value / 1e9);
  if (bytes >= 1'000'000) return fmt::format("{:.1f} MB", value / 1e6);
  return fmt::format("{} kB", (bytes + 999) / 1000);
}

std::vector<std::string> trace_notices(const std::string& path, TraceRanks ranks, const TraceSizeEstimate& estimate,
                                       const std::optional<TraceSizeEstimate>& replica, std::uint64_t large_bytes) {
  std::vector<std::string> notices;
  if (estimate.bytes > large_bytes) {
    notices.push_back(fmt::format("--trace '{}': about {} to write ({} ranks, {} activities)", path,
                                  readable_bytes(estimate.bytes), estimate.ranks, estimate.activities));
  }
  if (ranks == TraceRanks::all && estimate.ranks >= kManyTraceRanks && replica && replica->ranks < estimate.ranks) {
    notices.push_back(
        fmt::format("--trace-ranks all writes every one of {} ranks ({}); --trace-ranks replica writes the {} ranks of "
                    "data-parallel replica 0 ({}), which show every stage and tensor rank",
                    estimate.ranks, readable_bytes(estimate.bytes), replica->ranks, readable_bytes(replica->bytes)));
  }
  return notices;
}

}  // namespace distsim::io
