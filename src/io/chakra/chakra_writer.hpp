#pragma once

#include <string>
#include <vector>

#include "api/simulation.hpp"
#include "core/output_file.hpp"
#include "io/trace/trace_writer.hpp"

namespace distsim::io {

//! The version GlobalMetadata gives: the Chakra schema release whose field list et_def.proto
//! follows.
inline constexpr const char* kChakraSchemaVersion = "0.0.4";

//! The simulated iteration as MLCommons Chakra execution traces (docs/chakra.md), the input of
//! ASTRA-sim: `PREFIX.<rank>.et` for each rank `ranks` shows, in rank order, then
//! `PREFIX.comm_groups.json`, which maps each collective's `pg_name` to its ranks. A rank file is
//! a varint-length-prefixed GlobalMetadata and then one Node per task of the rank's timeline, in
//! an order that respects every dependency: a computation is a COMP node (a host launch one with
//! is_cpu_op), a collective a COMM_COLL node, a pipeline transfer a COMM_SEND or COMM_RECV node, a
//! context-parallel ring exchange a send to the next context rank and a receive from the previous
//! one. data_deps are the task program's dependencies between the rank's tasks, ctrl_deps each
//! stream's order. Call the functions in order: the group file lists the groups the rank files
//! named. `simulation` must hold the whole iteration (SimulationOptions::steady_state false), and
//! outlive the functions; InputError when it holds a steady state's shorter run.
std::vector<OutputFile> chakra_files(const api::Simulation& simulation, TraceRanks ranks, const std::string& prefix);

}  // namespace distsim::io
