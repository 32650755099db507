#pragma once

// The building blocks of the job option table, shared by its parts (job_option_table.cpp: specs,
// sizes, schedule, layout, nodes; precision_options.cpp, feature_options.cpp, expert_options.cpp);
// internal to src/options.

#include <functional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "options/job_option.hpp"
#include "strategy/job_spec.hpp"

namespace distsim::options::table {

using strategy::JobSpec;
using strategy::Strategy;

inline int as_int(const Value& value) { return std::get<int>(value); }
inline bool as_bool(const Value& value) { return std::get<bool>(value); }
inline const std::string& as_text(const Value& value) { return std::get<std::string>(value); }

//! An option's name, flag, type, default and help; the caller adds the rest.
JobOption basic(std::string key, std::string flag, ValueType type, std::string default_value, std::string help);

//! The divisors of n, ascending.
std::vector<Value> divisors(int n);

//! A parallel size left free: every size that still divides the GPUs the other sizes leave.
std::vector<Value> free_parallel_sizes(const JobSpec& job, int Strategy::*field);

//! A yes/no setting left free: both, or only off when turning it on changes nothing for the job.
std::function<std::vector<Value>(const JobSpec&)> both_when(std::function<bool(const JobSpec&)> matters);

//! An integer setting that lives in one Strategy field.
JobOption strategy_integer(std::string key, std::string flag, int Strategy::*field, std::string default_value,
                           std::string help);

//! A yes/no setting that lives in one Strategy field; off unless given.
JobOption strategy_boolean(std::string key, std::string flag, bool Strategy::*field, std::string help);

//! A setting with named values that maps to an enumerator of the strategy.
template <class Enum>
JobOption strategy_choice(std::string key, std::string flag, std::string noun, Enum Strategy::*field,
                          std::vector<std::pair<std::string, Enum>> values, std::string help) {
  JobOption option = basic(std::move(key), std::move(flag), ValueType::choice, values.front().first, std::move(help));
  option.noun = std::move(noun);
  for (const auto& value : values) option.allowed.push_back(value.first);
  option.apply = [field, values](const Value& value, JobSpec& job, const SpecResolvers&) {
    for (const auto& [text, enumerator] : values) {
      if (text == as_text(value)) job.strategy.*field = enumerator;
    }
  };
  option.read = [field, values](const JobSpec& job) -> Value {
    for (const auto& [text, enumerator] : values) {
      if (enumerator == job.strategy.*field) return text;
    }
    return values.front().first;
  };
  return option;
}

//! The low-precision formats and the attention kernel (precision_options.cpp).
std::vector<JobOption> precision_options();
//! Virtual stages, sequence parallelism, recomputation, sharding and gradient reduction
//! (feature_options.cpp).
std::vector<JobOption> feature_options();
//! Expert parallelism and its dispatcher (expert_options.cpp).
std::vector<JobOption> expert_options();
//! The run around the iterations: tokens, price, failures, checkpoints and restarts, written under
//! `goodput:` in a job file (goodput_options.cpp).
std::vector<JobOption> goodput_options();
//! Slow GPUs and kernel jitter (variability_options.cpp).
std::vector<JobOption> variability_options();

}  // namespace distsim::options::table
