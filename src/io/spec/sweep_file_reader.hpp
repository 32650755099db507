#pragma once

#include <string>

#include "search/sweep.hpp"

namespace distsim::io {

//! Reads a YAML or JSON sweep file (docs/sweep.md). Its top-level lists are the axes:
//! `models` (required), `gpus`, `clusters`, `nodes`, `global_batch_sizes`, `seq_lengths`, each a
//! non-empty list whose values the option table parses and the catalog or a file resolves (a
//! relative path is relative to the sweep file). `search` holds what `distsim search` takes as
//! flags, under the flag's name with underscores: a searched setting as one value (pinned), a list
//! or `all`; any other job setting as one value; memory_headroom or max_memory_gib, objectives,
//! top, tokens, gpu_hour_price, simulate_oom. Every problem (unknown key with the closest known
//! one, wrong type, empty list, unknown model, GPU or cluster) is reported in one InputError, one
//! per line, with the file, line and key.
search::Sweep read_sweep_file(const std::string& path);

}  // namespace distsim::io
