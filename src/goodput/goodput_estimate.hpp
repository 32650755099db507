#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "strategy/job_spec.hpp"

namespace distsim::goodput {

//! The rate at which a checkpoint is written to (and read back from) storage when the job gives
//! none: the Llama 3 cluster's sustained storage throughput, 2 TB/s for its 16,384 GPUs (Dubey et
//! al. 2024, §3.3.1, Tectonic), as each GPU's share of it: 2e12 / 16,384 = 122 MB/s per GPU.
inline constexpr double kStorageBytesPerSecondPerGpu = 2e12 / 16'384;
//! The rate at which an async save copies each GPU's share to host memory when the job gives none:
//! nvbandwidth's device-to-host copy measured on an H200 over PCIe Gen5 x16, 55.1 GB/s (Azure
//! AI-benchmarking-guide, ND H200 v5 results; data/hardware.csv's h200 row).
inline constexpr double kStagingBytesPerSecond = 55.1e9;
//! A restart's time, reading the checkpoint back aside, when the job gives none: the stall per
//! failure of fully synchronous training at O(100K) GPUs, 10 minutes (Salpekar et al., "Training
//! LLMs with Fault Tolerant HSDP on 100,000 GPUs", arXiv 2602.00277, abstract).
inline constexpr double kReinitSeconds = 600.0;

//! Checkpoint intervals that minimize the expected wall time for a save that blocks training for
//! `checkpoint_s` seconds on a job whose failures come every `mtbf_s` seconds on average.
//! Young's first-order optimum, sqrt(2 δ M) (J. W. Young, "A first order approximation to the
//! optimum checkpoint interval", Communications of the ACM 17(9), 1974).
double young_interval_s(double checkpoint_s, double mtbf_s);
//! Daly's higher-order optimum (J. T. Daly, "A higher order estimate of the optimum checkpoint
//! interval for restart dumps", Future Generation Computer Systems 22(3), 2006, eq. 37):
//! sqrt(2 δ M) · [1 + ⅓·sqrt(δ / 2M) + ⅑·(δ / 2M)] − δ for δ < 2M, and M otherwise.
double daly_interval_s(double checkpoint_s, double mtbf_s);

//! Where the expected wall time of a run goes; the four shares add up to 1.
struct TimeShares {
  double training = 0;     //!< iterations that count: the effective training time ratio (ETTR)
  double checkpoints = 0;  //!< training stopped to save
  double redone = 0;       //!< iterations lost to a failure since the last durable checkpoint, run again
  double restarts = 0;     //!< from a failure to the job running again: re-initialisation and reload
};

//! The time to train the run's tokens, healthy and expected with failures and checkpoints.
struct TimeToTrain {
  double tokens = 0;
  double healthy_s = 0;        //!< at the simulated iteration time, never failing nor saving
  double expected_s = 0;       //!< healthy_s over the ETTR
  double gpu_hours = 0;        //!< expected_s on every GPU of the job
  std::optional<double> cost;  //!< gpu_hours at the run's price
};

//! The goodput of a run of the job (docs/goodput.md): how often it fails, what a checkpoint costs,
//! the interval between checkpoints, and the share of the wall time that trains.
struct GoodputEstimate {
  int gpus = 0;
  int hosts = 0;
  //! Each component's failures per unit-hour (strategy::failure_components order), as given or
  //! its default, and the job's expected failures per hour from its GPU and host counts.
  std::array<double, 5> failure_rates_per_hour{};
  double failures_per_hour = 0;
  double mtbf_s = 0;

  std::int64_t checkpoint_bytes = 0;  //!< the whole job's (memory::checkpoint_bytes)
  double storage_bytes_per_s = 0;
  double write_s = 0;  //!< the checkpoint written to storage at storage_bytes_per_s
  strategy::CheckpointSave save = strategy::CheckpointSave::sync;
  double staging_s = 0;   //!< async: each GPU's share copied to host memory
  double blocking_s = 0;  //!< training stopped per checkpoint
  double reinit_s = 0;    //!< a restart's re-initialisation
  double reload_s = 0;    //!< a restart's read of the checkpoint from storage
  double restart_s = 0;   //!< reinit_s + reload_s

  double iteration_s = 0;
  double young_s = 0;
  double daly_s = 0;
  int interval_iterations = 0;
  double interval_s = 0;
  bool interval_given = false;
  //! Expected work redone after a failure: half a checkpoint period, plus the write behind an
  //! async save (its checkpoint is durable only once written).
  double lost_work_per_failure_s = 0;

  TimeShares shares;
  double goodput_tokens_per_s = 0;  //!< the healthy rate times the ETTR
  std::optional<TimeToTrain> time_to_train;
  //! Without tokens to train on, a price gives the cost per million tokens trained.
  std::optional<double> cost_per_million_tokens;
  //! The defaults taken for settings the run left out, one sentence each, with its source.
  std::vector<std::string> assumptions;
};

//! The goodput of `job.run` for a job whose healthy iteration takes `iteration_s` seconds and
//! trains `tokens_per_s` tokens a second. Failures arrive at a constant rate (independent, as the
//! Llama 3 table counts them) at any time of the wall clock, each costing a restart and the work
//! since the last durable checkpoint: the first-order model behind Young's interval. Throws
//! InputError when a failure costs more than the mean time between failures, so that the job never
//! makes progress.
GoodputEstimate estimate_goodput(const strategy::JobSpec& job, double iteration_s, double tokens_per_s);

}  // namespace distsim::goodput
