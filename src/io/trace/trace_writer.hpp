#pragma once

#include <ostream>

#include "api/simulation.hpp"

namespace distsim::io {

//! Which ranks a trace shows: the ranks of data-parallel replica 0 (every tensor rank of every
//! stage), which is what a viewer can open for a large job, or every rank.
enum class TraceRanks { replica, all };

//! Writes the timeline as Chrome Trace Event JSON (object form, docs/reference/formats.md §1), streamed event by
//! event: one process per rank (pid = rank), one thread per stream that has activities (tid =
//! StreamKind), an "X" event per activity with ts/dur in µs printed exactly from nanoseconds, and
//! a flow arrow from each pipeline send to its receive. In symmetric mode each written rank
//! shows its stage device's activities. The same simulation always gives the same bytes.
void write_chrome_trace(std::ostream& out, const api::Simulation& simulation, TraceRanks ranks);

}  // namespace distsim::io
