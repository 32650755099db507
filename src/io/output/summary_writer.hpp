#pragma once

#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/run_summary.hpp"
#include "api/simulation.hpp"
#include "strategy/job_spec.hpp"

namespace distsim::io {

//! What was simulated: model, cluster, strategy, batch, schedule, and which ranks `program`
//! simulated (simulated_name). Heads every JSON output so a file explains itself.
nlohmann::json job_json(const strategy::JobSpec& job, const program::JobProgram& program);

//! The complete job as a job file: every option of the table under its key, as run (what
//! `distsim simulate --job` reads back to run the same job). The model, GPU and cluster are their
//! built-in names when those entries are what ran; otherwise (a file, an edited entry) each is its
//! whole mapping as io::model_json, gpu_json and cluster_json write it, which job files and flags
//! take inline.
nlohmann::json job_settings_json(const strategy::JobSpec& job);

//! How the ranks were simulated: "symmetric: one rank per stage", "all ranks", or "all ranks, by
//! placement class: K of N data-parallel indices simulated" when replicas placed alike shared one.
std::string simulated_name(const program::JobProgram& program);

//! The same settings on one line: "model=gpt2-345m seq_length=1024 ... nodes=4"; a spec that its
//! name does not reproduce is its mapping in YAML flow style, "model={name: tiny, ...}". The keys in
//! `left_out` are not written.
std::string job_settings_text(const strategy::JobSpec& job, const std::vector<std::string>& left_out = {});

//! "events: 123 unique, 456,789 instances (dedup 3713x): 0 profiled, 0 extrapolated, 123 analytical"
std::string events_line(const analysis::EventCounts& counts);

//! Per-device memory per stage: every component in bytes, the micro-batches in flight, the peak,
//! the GPU's capacity and whether the job fits.
nlohmann::json memory_json(const memory::MemoryEstimate& estimate);

//! A per-stage memory table in GiB, then "peak memory: ..." or, when the job does not fit,
//! "OUT OF MEMORY: stage 0 needs 93.1 GiB, the a100-40gb has 40 GiB".
std::string memory_text(const memory::MemoryEstimate& estimate);

//! Whether the JSON lists every rank. Per-stage figures and the rank layout describe every rank
//! in a size that does not grow with the GPU count; the list of ranks does.
enum class RankRecords { stages, every_rank };

//! The metrics of a run: job, iteration time, throughput, MFU, bubbles, per-stage means, how ranks
//! map to stages and nodes, event counts and memory; with RankRecords::every_rank also every
//! rank's busy and idle time (fanned out from the simulated devices) under `devices`.
nlohmann::json summary_json(const api::Simulation& simulation, RankRecords ranks = RankRecords::stages);

//! summary_json(simulation, ranks).dump(2) and a line break, written to `out` with the ranks one
//! at a time, so that every rank of a large world is written without holding its records.
void write_summary_json(std::ostream& out, const api::Simulation& simulation, RankRecords ranks);

//! The same metrics as a short human-readable report with a per-stage table and a memory table.
std::string summary_text(const api::Simulation& simulation);

}  // namespace distsim::io
