#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>

#include "api/simulation.hpp"

namespace distsim::io {

//! Which ranks a trace shows: the ranks of data-parallel replica 0 (every tensor rank of every
//! stage), which is what a viewer can open for a large job, or every rank.
enum class TraceRanks { replica, all };

//! The value of --trace-ranks: "replica" or "all"; InputError naming the closest otherwise.
TraceRanks parse_trace_ranks(const std::string& text);

//! Writes the timeline as Chrome Trace Event JSON (object form, docs/reference/formats.md §1), streamed event by
//! event: one process per rank (pid = rank), one thread per stream that has activities (tid =
//! StreamKind), an "X" event per activity with ts/dur in µs printed exactly from nanoseconds, and
//! a flow arrow from each pipeline send to its receive. In symmetric mode each written rank
//! shows its stage device's activities. The same simulation always gives the same bytes.
//! `progress`, when set, is told (activities written, activities in all) after each rank.
void write_chrome_trace(std::ostream& out, const api::Simulation& simulation, TraceRanks ranks,
                        const std::function<void(std::size_t, std::size_t)>& progress = {});

//! What a trace will hold before it is written.
struct TraceSizeEstimate {
  std::size_t ranks = 0;
  std::uint64_t bytes = 0;  //!< within a few percent: activities are priced from a sample
  std::size_t activities = 0;
};
//! Estimates the trace write_chrome_trace would write, at the cost of rendering up to 64
//! activities per simulated device.
TraceSizeEstimate estimate_chrome_trace(const api::Simulation& simulation, TraceRanks ranks);

}  // namespace distsim::io
