#pragma once

#include <array>
#include <optional>
#include <string>

namespace distsim::strategy {

//! The parts of a cluster whose failures interrupt a training job, each counted per GPU or per
//! host (docs/goodput.md). The defaults are the unexpected interruptions of Llama 3 405B's
//! pre-training (Dubey et al. 2024, "The Llama 3 Herd of Models", §3.3.4, Table 5: 419 in a 54-day
//! snapshot on 16,384 H100 GPUs in 2,048 hosts), grouped by the part that failed.
enum class FailureComponent { gpu, hbm, host, network, software };

//! What a failure rate is counted per: each GPU of the job, or each host.
enum class FailureUnit { gpu, host };

struct FailureComponentInfo {
  FailureComponent component;
  const char* name;  //!< the option's suffix: failure_rate_<name>
  FailureUnit unit;
  //! The Llama 3 interruptions this part caused (Table 5's rows it groups, in `rows`).
  int llama3_interruptions;
  const char* rows;
};

//! Every component, in the order the options and the output list them.
const std::array<FailureComponentInfo, 5>& failure_components();

//! The Llama 3 snapshot the default rates come from (Dubey et al. 2024, §3.3.4).
inline constexpr double kLlama3SnapshotHours = 54.0 * 24.0;
inline constexpr int kLlama3Gpus = 16'384;
inline constexpr int kLlama3Hosts = 2'048;  //!< Grand Teton servers of eight H100 each (§3.3.1)

//! The default rate of `info`'s failures per unit-hour: its Llama 3 interruptions over the
//! snapshot's GPU-hours or host-hours.
double default_failure_rate_per_hour(const FailureComponentInfo& info);

//! How a checkpoint is saved. sync: training stops until every rank has written its share to
//! storage (Megatron-LM's default). async: training stops only while each rank copies its share to
//! host memory, and the write to storage runs beside the next iterations (Megatron-LM --async-save,
//! PyTorch Distributed Checkpoint async_save).
enum class CheckpointSave { sync, async };

inline const char* to_string(CheckpointSave save) { return save == CheckpointSave::async ? "async" : "sync"; }

//! The run the iterations belong to: how many tokens it trains on, what a GPU-hour costs, how the
//! cluster fails, and how the job saves checkpoints and restarts. No iteration depends on it; the
//! goodput estimate (src/goodput) reads it. Every field is unset unless given; an unset one takes
//! its documented default there (docs/goodput.md), so that a job echoes only what the user gave.
struct TrainingRun {
  std::optional<double> tokens;                        //!< tokens to train on
  std::optional<double> gpu_hour_price;                //!< money per GPU-hour, any currency
  std::array<std::optional<double>, 5> failure_rates;  //!< per unit-hour, by FailureComponent
  std::optional<int> checkpoint_interval;              //!< iterations between checkpoints
  std::optional<CheckpointSave> checkpoint_save;
  std::optional<double> storage_bandwidth_gbps;  //!< GB/s the job writes and reads checkpoints at
  std::optional<double> staging_bandwidth_gbps;  //!< GB/s a GPU copies its share to host memory at
  std::optional<double> restart_s;               //!< seconds from a failure to the job running again, reload aside

  //! Whether any setting of the run was given: the goodput estimate is made only then.
  bool given() const;
  bool operator==(const TrainingRun&) const = default;
};

}  // namespace distsim::strategy
