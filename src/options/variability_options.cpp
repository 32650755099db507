#include <string>

#include "options/option_builders.hpp"

namespace distsim::options::table {

namespace {

using strategy::Variability;

JobOption slow_ranks() {
  JobOption option =
      basic("slow_ranks", "--slow-ranks", ValueType::text, "",
            "GPUs whose kernels run slower: RANK:FACTOR, stageS:FACTOR or hostH:FACTOR, comma-separated (7:1.3 makes "
            "rank 7's kernels take 1.3 times as long); a slow rank or host gives every rank its own timeline "
            "(docs/variability.md)");
  option.check = [](const std::string& text) { return strategy::parse_slow_ranks(text).problem; };
  option.apply = [](const Value& value, JobSpec& job, const SpecResolvers&) {
    job.variability.slow = strategy::parse_slow_ranks(as_text(value)).items;
  };
  option.read = [](const JobSpec& job) -> Value { return strategy::slow_ranks_text(job.variability.slow); };
  option.applies = [](const JobSpec& job) { return !job.variability.slow.empty(); };
  return option;
}

JobOption kernel_jitter() {
  JobOption option = basic(
      "kernel_jitter", "--kernel-jitter", ValueType::text, "",
      "multiplicative noise on every kernel's duration, mean 1: lognormal:SIGMA, normal:SIGMA or uniform:HALF_WIDTH; "
      "simulate samples --jitter-samples iterations and reports their step-time distribution (docs/variability.md)");
  option.check = [](const std::string& text) { return strategy::parse_kernel_jitter(text).problem; };
  option.apply = [](const Value& value, JobSpec& job, const SpecResolvers&) {
    job.variability.jitter = strategy::parse_kernel_jitter(as_text(value)).jitter;
  };
  option.read = [](const JobSpec& job) -> Value {
    return job.variability.jitter ? strategy::kernel_jitter_text(*job.variability.jitter) : std::string();
  };
  option.applies = [](const JobSpec& job) { return job.variability.jitter.has_value(); };
  return option;
}

JobOption jitter_samples() {
  JobOption option = basic("jitter_samples", "--jitter-samples", ValueType::positive_integer, "32",
                           "iterations sampled under --kernel-jitter");
  option.apply = [](const Value& value, JobSpec& job, const SpecResolvers&) {
    job.variability.jitter_samples = as_int(value);
  };
  option.read = [](const JobSpec& job) -> Value { return job.variability.jitter_samples; };
  option.applies = [](const JobSpec& job) { return job.variability.jitter.has_value(); };
  return option;
}

JobOption jitter_seed() {
  JobOption option = basic("jitter_seed", "--jitter-seed", ValueType::positive_integer, "1",
                           "the seed of --kernel-jitter's samples: the same seed gives the same output");
  option.apply = [](const Value& value, JobSpec& job, const SpecResolvers&) {
    job.variability.jitter_seed = static_cast<std::uint64_t>(as_int(value));
  };
  option.read = [](const JobSpec& job) -> Value { return static_cast<int>(job.variability.jitter_seed); };
  option.applies = [](const JobSpec& job) { return job.variability.jitter.has_value(); };
  return option;
}

//! A rank's number means another GPU in each candidate of a search, and noise would rank them by
//! chance: both are simulate's.
JobOption refused_by_search(JobOption option) {
  option.search_refusal = "slow GPUs and kernel jitter are simulated by distsim simulate (docs/variability.md)";
  return option;
}

}  // namespace

std::vector<JobOption> variability_options() {
  return {refused_by_search(slow_ranks()), refused_by_search(kernel_jitter()), jitter_samples(), jitter_seed()};
}

}  // namespace distsim::options::table
