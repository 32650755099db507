#pragma once

#include <string>

#include "whatif/measured_trace.hpp"

namespace distsim::io {

//! Reads a measured per-rank step timeline for `distsim whatif` (docs/whatif.md): Chrome trace
//! events, a JSON array or an object with `traceEvents`, plain or gzip-compressed. Each process
//! (pid) is a data-parallel rank; each thread is one stream of one pipeline stage and
//! tensor-parallel rank, named by a `thread_name` metadata event "PP rank S, TP rank T, STREAM".
//! Each complete event (ph X) is one operation: its name an operation type (whatif::op_roles),
//! `ts` and `dur` in microseconds, `args.step` its step and `args.seq_id` its micro-batch; a
//! synchronized operation's `dur` is its transfer alone (one a little below 0, where the clocks of
//! two hosts disagree, is read as 0 and said in the trace's notes). Only the lowest tensor-parallel rank is
//! read (the others run the same operations), and the trace's notes say how many were not. Each step's times start at
//! its first operation. Throws InputError naming the file, the event's index and the key for anything else.
whatif::MeasuredTrace read_step_timeline(const std::string& path);

}  // namespace distsim::io
