#include "goodput/goodput_estimate.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "core/input_error.hpp"
#include "core/plain_text.hpp"
#include "core/sim_time.hpp"
#include "memory/model_state_memory.hpp"

namespace distsim::goodput {

namespace {

constexpr double kMillion = 1e6;

using strategy::CheckpointSave;
using strategy::FailureUnit;

struct Failures {
  std::array<double, 5> rates{};
  double per_hour = 0;
};

Failures job_failures(const strategy::JobSpec& job, std::vector<std::string>& assumptions) {
  Failures failures;
  std::string defaulted;
  const auto& components = strategy::failure_components();
  for (std::size_t i = 0; i < components.size(); ++i) {
    const auto& given = job.run.failure_rates[i];
    failures.rates[i] = given ? *given : strategy::default_failure_rate_per_hour(components[i]);
    if (!given) defaulted += (defaulted.empty() ? "" : ", ") + std::string(components[i].name);
    const double units = components[i].unit == FailureUnit::host ? job.cluster.num_hosts : job.cluster.total_gpus();
    failures.per_hour += failures.rates[i] * units;
  }
  if (!defaulted.empty()) {
    assumptions.push_back(fmt::format(
        "failure rates of {}: Llama 3's unexpected interruptions over its 54-day snapshot on {} GPUs in {} hosts "
        "(Dubey et al. 2024, §3.3.4, Table 5), per GPU-hour (per host-hour for the host)",
        defaulted, digits_grouped(strategy::kLlama3Gpus), digits_grouped(strategy::kLlama3Hosts)));
  }
  return failures;
}

double storage_bytes_per_s(const strategy::JobSpec& job, std::vector<std::string>& assumptions) {
  if (job.run.storage_bandwidth_gbps) return *job.run.storage_bandwidth_gbps * 1e9;
  const double rate = kStorageBytesPerSecondPerGpu * job.cluster.total_gpus();
  assumptions.push_back(fmt::format(
      "storage bandwidth {:.4g} GB/s: the Llama 3 cluster's sustained 2 TB/s for 16,384 GPUs (Dubey et al. 2024, "
      "§3.3.1) as the share of {} GPUs",
      rate / 1e9, digits_grouped(job.cluster.total_gpus())));
  return rate;
}

double staging_bytes_per_s(const strategy::JobSpec& job, std::vector<std::string>& assumptions) {
  if (job.run.staging_bandwidth_gbps) return *job.run.staging_bandwidth_gbps * 1e9;
  assumptions.push_back(fmt::format(
      "an async save stages each GPU's share at {:g} GB/s: an H200's device-to-host copy over PCIe Gen5 x16 "
      "(nvbandwidth, Azure's ND H200 v5 results)",
      kStagingBytesPerSecond / 1e9));
  return kStagingBytesPerSecond;
}

double reinit_s(const strategy::JobSpec& job, std::vector<std::string>& assumptions) {
  if (job.run.restart_s) return *job.run.restart_s;
  assumptions.push_back(fmt::format(
      "a restart takes {:g} min besides reading the checkpoint back: the stall per failure of fully synchronous "
      "training at O(100K) GPUs (Salpekar et al., arXiv 2602.00277)",
      kReinitSeconds / 60));
  return kReinitSeconds;
}

//! The interval, in whole iterations: the job's, or Daly's optimum rounded to the nearest; 0 (no
//! checkpoint) where no failure is expected, which makes the optimum unbounded.
int interval_iterations(const strategy::JobSpec& job, const GoodputEstimate& estimate,
                        std::vector<std::string>& assumptions) {
  if (job.run.checkpoint_interval) return *job.run.checkpoint_interval;
  if (!std::isfinite(estimate.daly_s)) {
    assumptions.emplace_back("no checkpoint: without failures none pays for itself (Young's and Daly's optimum "
                             "intervals are unbounded)");
    return 0;
  }
  const int iterations = static_cast<int>(std::clamp(std::round(estimate.daly_s / estimate.iteration_s), 1.0, 1e9));
  assumptions.push_back(
      fmt::format("a checkpoint every {} iterations: Daly's optimum interval, {:.0f} s, in whole iterations",
                  digits_grouped(iterations), estimate.daly_s));
  return iterations;
}

void check_progress(const GoodputEstimate& estimate, double cost_per_failure_s) {
  if (cost_per_failure_s < estimate.mtbf_s) return;
  throw InputError(fmt::format(
      "goodput: the job fails every {:.3g} h on average and each failure costs {:.3g} h (restart {:.3g} h, "
      "lost work {:.3g} h), so it never makes progress; give lower failure rates (--failure-rate-gpu ...), a "
      "shorter --restart-time, more --storage-bandwidth or a shorter --checkpoint-interval",
      estimate.mtbf_s / kSecondsPerHour, cost_per_failure_s / kSecondsPerHour, estimate.restart_s / kSecondsPerHour,
      estimate.lost_work_per_failure_s / kSecondsPerHour));
}

void add_time_to_train(const strategy::JobSpec& job, double tokens_per_s, GoodputEstimate& estimate) {
  const auto& price = job.run.gpu_hour_price;
  if (job.run.tokens) {
    TimeToTrain time;
    time.tokens = *job.run.tokens;
    time.healthy_s = time.tokens / tokens_per_s;
    time.expected_s = time.healthy_s / estimate.shares.training;
    time.gpu_hours = time.expected_s * estimate.gpus / kSecondsPerHour;
    if (price) time.cost = *price * time.gpu_hours;
    estimate.time_to_train = time;
  } else if (price) {
    estimate.cost_per_million_tokens =
        *price * kMillion / estimate.goodput_tokens_per_s * estimate.gpus / kSecondsPerHour;
  }
}

}  // namespace

double young_interval_s(double checkpoint_s, double mtbf_s) { return std::sqrt(2.0 * checkpoint_s * mtbf_s); }

double daly_interval_s(double checkpoint_s, double mtbf_s) {
  if (checkpoint_s >= 2.0 * mtbf_s) return mtbf_s;
  const double ratio = checkpoint_s / (2.0 * mtbf_s);
  return std::sqrt(2.0 * checkpoint_s * mtbf_s) * (1.0 + std::sqrt(ratio) / 3.0 + ratio / 9.0) - checkpoint_s;
}

GoodputEstimate estimate_goodput(const strategy::JobSpec& job, double iteration_s, double tokens_per_s) {
  GoodputEstimate e;
  e.gpus = job.cluster.total_gpus();
  e.hosts = job.cluster.num_hosts;
  e.iteration_s = iteration_s;
  const Failures failures = job_failures(job, e.assumptions);
  e.failure_rates_per_hour = failures.rates;
  e.failures_per_hour = failures.per_hour;
  e.mtbf_s = failures.per_hour > 0 ? kSecondsPerHour / failures.per_hour : std::numeric_limits<double>::infinity();

  e.checkpoint_bytes = memory::checkpoint_bytes(job.model, job.strategy.dtype);
  e.assumptions.push_back(fmt::format(
      "each of the {} GPUs saves and loads 1/{} of the checkpoint ({:.4g} GB: the weights and Adam's fp32 master "
      "weights, momentum and variance of every parameter once)",
      digits_grouped(e.gpus), digits_grouped(e.gpus), static_cast<double>(e.checkpoint_bytes) / 1e9));
  e.storage_bytes_per_s = storage_bytes_per_s(job, e.assumptions);
  e.write_s = static_cast<double>(e.checkpoint_bytes) / e.storage_bytes_per_s;
  e.save = job.run.checkpoint_save.value_or(CheckpointSave::sync);
  if (e.save == CheckpointSave::async) {
    e.staging_s = static_cast<double>(e.checkpoint_bytes) / e.gpus / staging_bytes_per_s(job, e.assumptions);
  }
  e.reinit_s = reinit_s(job, e.assumptions);
  e.reload_s = e.write_s;
  e.restart_s = e.reinit_s + e.reload_s;

  const double optimum_blocking_s = e.save == CheckpointSave::async ? e.staging_s : e.write_s;
  e.young_s = young_interval_s(optimum_blocking_s, e.mtbf_s);
  e.daly_s = daly_interval_s(optimum_blocking_s, e.mtbf_s);
  e.interval_given = job.run.checkpoint_interval.has_value();
  e.interval_iterations = interval_iterations(job, e, e.assumptions);
  e.interval_s = e.interval_iterations * iteration_s;
  // An async save stops training to stage its share, and again when the write of the last one
  // has not finished by the next save.
  e.blocking_s = e.save == CheckpointSave::async ? e.staging_s + std::max(0.0, e.write_s - e.interval_s) : e.write_s;
  const double period_s = e.interval_s + e.blocking_s;
  e.lost_work_per_failure_s = period_s / 2.0 + (e.save == CheckpointSave::async ? e.write_s : 0.0);

  const double cost_per_failure_s = e.restart_s + e.lost_work_per_failure_s;
  check_progress(e, cost_per_failure_s);
  const double failure_share = std::isfinite(e.mtbf_s) ? cost_per_failure_s / e.mtbf_s : 0.0;
  // Without checkpoints (no failure expected) the whole wall time trains.
  e.shares.training = e.interval_iterations > 0 ? (1.0 - failure_share) * e.interval_s / period_s : 1.0;
  e.shares.checkpoints = e.interval_iterations > 0 ? e.shares.training * e.blocking_s / e.interval_s : 0.0;
  e.shares.redone = std::isfinite(e.mtbf_s) ? e.lost_work_per_failure_s / e.mtbf_s : 0.0;
  e.shares.restarts = std::isfinite(e.mtbf_s) ? e.restart_s / e.mtbf_s : 0.0;
  e.goodput_tokens_per_s = tokens_per_s * e.shares.training;
  add_time_to_train(job, tokens_per_s, e);
  return e;
}

}  // namespace distsim::goodput
