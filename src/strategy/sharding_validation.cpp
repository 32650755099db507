#include <string>
#include <vector>

#include "strategy/job_checks.hpp"

namespace distsim::strategy::detail {

namespace {

//! The shard group sizes a job can take: cp times each divisor of dp, so that a group is whole
//! context-parallel groups and a run of data-parallel ranks (PyTorch FSDP2's mesh
//! (dp_replicate, dp_shard x cp), torchtitan's ParallelDims).
std::string valid_shard_groups(const Strategy& s) {
  std::string list;
  for (int divisor = 1; divisor <= s.data_parallel; ++divisor) {
    if (s.data_parallel % divisor == 0) {
      list += (list.empty() ? "" : ", ") + std::to_string(divisor * s.context_parallel);
    }
  }
  return list;
}

}  // namespace

//! --distributed-optimizer is ZeRO-1, so a --sharding that names another stage contradicts it; a
//! shard group (HSDP) is modelled for ZeRO-3 only and must be whole cp groups times a divisor of dp.
void check_sharding(const JobSpec& job, const SettingNames& names, Problems& problems) {
  const Strategy& s = job.strategy;
  const std::string sharding = name_of(names, "sharding") + " " + to_string(s.sharding);
  if (s.distributed_optimizer && s.sharding != Sharding::none && s.sharding != Sharding::optimizer) {
    problems.push_back(name_of(names, "distributed_optimizer") + " means ZeRO-1 (sharding zero1), but " + sharding +
                       " asks for another stage; give one of the two");
  }
  for (auto& problem : sharding_model_problems(job, s.sharding, names)) problems.push_back(std::move(problem));
  if (s.shard_group <= 0) {
    return;
  }
  const std::string group = name_of(names, "shard_group_size") + " " + std::to_string(s.shard_group);
  if (s.sharding != Sharding::full) {
    problems.push_back(group +
                       ": a shard group smaller than the data-parallel group (HSDP) is modelled with "
                       "sharding zero3, got sharding " +
                       std::string(to_string(s.zero_stage())));
    return;
  }
  const int cp = s.context_parallel;
  if (s.shard_group % cp != 0 || s.data_parallel % (s.shard_group / cp) != 0) {
    problems.push_back(group +
                       ": the shard group must be the context parallel size times a divisor of the data "
                       "parallel size (cp " +
                       std::to_string(cp) + " x a divisor of dp " + std::to_string(s.data_parallel) + "), so one of " +
                       valid_shard_groups(s));
  }
}

}  // namespace distsim::strategy::detail

namespace distsim::strategy {

std::vector<std::string> sharding_model_problems(const JobSpec& job, Sharding stage, const SettingNames& names) {
  std::vector<std::string> problems;
  const std::string sharding = name_of(names, "sharding") + " " + to_string(stage);
  if (job.model.moe.enabled() && (stage == Sharding::gradients || stage == Sharding::full)) {
    problems.push_back(sharding + ": sharding the gradients or parameters of the experts of model " +
                       quoted(job.model.name) + " is not modelled; use sharding zero1 (the distributed optimizer)");
  }
  if (job.model.mtp_layers > 0 && stage == Sharding::full) {
    problems.push_back(sharding + ": the multi-token prediction modules of model " + quoted(job.model.name) +
                       " are in no FSDP unit, so sharding their parameters is not modelled; use sharding zero1 or "
                       "zero2");
  }
  return problems;
}

}  // namespace distsim::strategy
