#include "options/option_builders.hpp"

namespace distsim::options::table {

JobOption basic(std::string key, std::string flag, ValueType type, std::string default_value, std::string help) {
  JobOption option;
  option.key = std::move(key);
  option.flag = std::move(flag);
  option.type = type;
  option.default_value = std::move(default_value);
  option.help = std::move(help);
  return option;
}

std::vector<Value> divisors(int n) {
  std::vector<Value> values;
  for (int d = 1; d <= n; ++d) {
    if (n % d == 0) values.emplace_back(d);
  }
  return values;
}

std::vector<Value> free_parallel_sizes(const JobSpec& job, int Strategy::*field) {
  const int others = job.strategy.world_size() / job.strategy.*field;
  const int gpus = job.cluster.total_gpus();
  return gpus % others == 0 ? divisors(gpus / others) : std::vector<Value>{};
}

std::function<std::vector<Value>(const JobSpec&)> both_when(std::function<bool(const JobSpec&)> matters) {
  return [matters = std::move(matters)](const JobSpec& job) {
    return matters(job) ? std::vector<Value>{false, true} : std::vector<Value>{false};
  };
}

JobOption strategy_integer(std::string key, std::string flag, int Strategy::*field, std::string default_value,
                           std::string help) {
  JobOption option =
      basic(std::move(key), std::move(flag), ValueType::positive_integer, std::move(default_value), std::move(help));
  option.apply = [field](const Value& value, JobSpec& job, const SpecResolvers&) {
    job.strategy.*field = as_int(value);
  };
  option.read = [field](const JobSpec& job) -> Value { return job.strategy.*field; };
  return option;
}

JobOption strategy_boolean(std::string key, std::string flag, bool Strategy::*field, std::string help) {
  JobOption option = basic(std::move(key), std::move(flag), ValueType::boolean, "false", std::move(help));
  option.apply = [field](const Value& value, JobSpec& job, const SpecResolvers&) {
    job.strategy.*field = as_bool(value);
  };
  option.read = [field](const JobSpec& job) -> Value { return job.strategy.*field; };
  return option;
}

}  // namespace distsim::options::table
