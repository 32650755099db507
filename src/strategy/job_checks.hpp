#pragma once

#include <string>
#include <vector>

#include "strategy/job_spec.hpp"

// The rules validate_job checks, one topic per file (job_validation.cpp,
// context_parallel_validation.cpp, expert_validation.cpp, sharding_validation.cpp); each check
// appends one sentence per broken rule.
namespace distsim::strategy::detail {

using Problems = std::vector<std::string>;

using strategy::name_of;
std::string quoted(const std::string& text);

//! The sequence's split into 2·cp chunks, the attention kernel, the models context parallelism is
//! modelled for and the heads the a2a exchange divides; cp_comm_type without context parallelism.
void check_context_parallel(const JobSpec& job, const SettingNames& names, Problems& problems);
//! The expert grid, the token dispatcher and the load imbalance; on a dense model, the expert
//! settings that need experts.
void check_experts(const JobSpec& job, const SettingNames& names, Problems& problems);
//! The ZeRO stage against the distributed optimizer, the experts and the MTP modules, and the
//! HSDP shard group.
void check_sharding(const JobSpec& job, const SettingNames& names, Problems& problems);

}  // namespace distsim::strategy::detail
