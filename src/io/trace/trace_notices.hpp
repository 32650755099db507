#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "io/trace/trace_writer.hpp"

namespace distsim::io {

//! A trace estimated above this many bytes is announced before it is written: at 1 GB writing
//! takes many seconds and the file is larger than a trace viewer loads comfortably.
inline constexpr std::uint64_t kLargeTraceBytes = 1'000'000'000;
//! From this many ranks on, a trace of every rank suggests one of data-parallel replica 0.
inline constexpr std::size_t kManyTraceRanks = 1024;

//! What to say on stderr before writing the trace `path` (one line each, or none): its estimated
//! size when above `large_bytes`, and for `--trace-ranks all` over kManyTraceRanks or more ranks,
//! what `--trace-ranks replica` (`replica`, its estimate) would write instead.
std::vector<std::string> trace_notices(const std::string& path, TraceRanks ranks, const TraceSizeEstimate& estimate,
                                       const std::optional<TraceSizeEstimate>& replica,
                                       std::uint64_t large_bytes = kLargeTraceBytes);

//! "3.2 GB", "51.2 MB", "900 kB": decimal units, one decimal from MB on.
std::string readable_bytes(std::uint64_t bytes);

}  // namespace distsim::io
