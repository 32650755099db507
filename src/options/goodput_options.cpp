#include <optional>
#include <string>

#include <fmt/format.h>

#include "options/option_builders.hpp"

namespace distsim::options::table {

namespace {

using strategy::TrainingRun;

inline double as_number(const Value& value) { return std::get<double>(value); }

//! A goodput setting: written under `goodput:` in a job file, echoed only when given.
JobOption goodput_option(std::string key, std::string flag, ValueType type, std::string help) {
  JobOption option = basic(std::move(key), std::move(flag), type, "", std::move(help));
  option.section = "goodput";
  return option;
}

//! A number setting held in one optional field of the run.
JobOption run_number(std::string key, std::string flag, ValueType type, std::optional<double> TrainingRun::*field,
                     std::string help) {
  JobOption option = goodput_option(std::move(key), std::move(flag), type, std::move(help));
  option.apply = [field](const Value& value, JobSpec& job, const SpecResolvers&) { job.run.*field = as_number(value); };
  option.read = [field](const JobSpec& job) -> Value { return (job.run.*field).value_or(0.0); };
  option.applies = [field](const JobSpec& job) { return (job.run.*field).has_value(); };
  return option;
}

JobOption failure_rate(const strategy::FailureComponentInfo& info) {
  const auto index = static_cast<std::size_t>(info.component);
  const char* unit = info.unit == strategy::FailureUnit::host ? "host" : "GPU";
  JobOption option = goodput_option(
      std::string("failure_rate_") + info.name, std::string("--failure-rate-") + info.name,
      ValueType::non_negative_number,
      fmt::format("failures per {}-hour of the {} ({}; default: Llama 3's, {:.4g}: Dubey et al. 2024, Table 5)", unit,
                  info.name, info.rows, strategy::default_failure_rate_per_hour(info)));
  option.apply = [index](const Value& value, JobSpec& job, const SpecResolvers&) {
    job.run.failure_rates[index] = as_number(value);
  };
  option.read = [index](const JobSpec& job) -> Value { return job.run.failure_rates[index].value_or(0.0); };
  option.applies = [index](const JobSpec& job) { return job.run.failure_rates[index].has_value(); };
  return option;
}

JobOption checkpoint_interval() {
  JobOption option = goodput_option(
      "checkpoint_interval", "--checkpoint-interval", ValueType::positive_integer,
      "iterations between checkpoints, as Megatron-LM's --save-interval (default: Daly's optimum interval)");
  option.apply = [](const Value& value, JobSpec& job, const SpecResolvers&) {
    job.run.checkpoint_interval = as_int(value);
  };
  option.read = [](const JobSpec& job) -> Value { return job.run.checkpoint_interval.value_or(1); };
  option.applies = [](const JobSpec& job) { return job.run.checkpoint_interval.has_value(); };
  return option;
}

JobOption checkpoint_save() {
  JobOption option = goodput_option(
      "checkpoint_save", "--checkpoint-save", ValueType::choice,
      "how a checkpoint is saved: sync stops training until it is written, async only while each GPU copies its "
      "share to host memory (Megatron-LM --async-save, PyTorch DCP async_save) [default: sync]");
  option.noun = "checkpoint save";
  option.allowed = {"sync", "async"};
  option.apply = [](const Value& value, JobSpec& job, const SpecResolvers&) {
    job.run.checkpoint_save =
        as_text(value) == "async" ? strategy::CheckpointSave::async : strategy::CheckpointSave::sync;
  };
  option.read = [](const JobSpec& job) -> Value {
    return std::string(to_string(job.run.checkpoint_save.value_or(strategy::CheckpointSave::sync)));
  };
  option.applies = [](const JobSpec& job) { return job.run.checkpoint_save.has_value(); };
  return option;
}

}  // namespace

std::vector<JobOption> goodput_options() {
  std::vector<JobOption> options{
      run_number("tokens", "--tokens", ValueType::positive_number, &TrainingRun::tokens,
                 "tokens to train on: the time, GPU-hours and cost to train them (docs/goodput.md)"),
      run_number("gpu_hour_price", "--gpu-hour-price", ValueType::positive_number, &TrainingRun::gpu_hour_price,
                 "price of one GPU-hour, in any currency: the cost to train")};
  for (const auto& component : strategy::failure_components()) {
    options.push_back(failure_rate(component));
  }
  options.push_back(checkpoint_interval());
  options.push_back(checkpoint_save());
  options.push_back(run_number(
      "storage_bandwidth", "--storage-bandwidth", ValueType::positive_number, &TrainingRun::storage_bandwidth_gbps,
      "GB/s the whole job writes a checkpoint to storage and reads it back at (default: the Llama 3 cluster's "
      "sustained 2 TB/s as the share of the job's GPUs, 0.122 GB/s each)"));
  options.push_back(run_number("staging_bandwidth", "--staging-bandwidth", ValueType::positive_number,
                               &TrainingRun::staging_bandwidth_gbps,
                               "GB/s each GPU copies its share of an async checkpoint to host memory at (default: "
                               "55.1, an H200's device-to-host copy over PCIe Gen5 x16)"));
  options.push_back(run_number("restart_time", "--restart-time", ValueType::non_negative_number,
                               &TrainingRun::restart_s,
                               "seconds from a failure to the job training again, reading the checkpoint back "
                               "aside (default: 600, Meta's stall per failure at O(100K) GPUs)"));
  return options;
}

}  // namespace distsim::options::table
