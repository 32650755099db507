#pragma once

#include <string>
#include <vector>

#include "core/plain_text.hpp"
#include "strategy/job_spec.hpp"

// The rules validate_job checks, one topic per file (job_validation.cpp,
// context_parallel_validation.cpp, expert_validation.cpp, sharding_validation.cpp,
// attention_kernel_validation.cpp, variability_validation.cpp, layer_structure_validation.cpp); each check
// appends one sentence per broken rule.
namespace distsim::strategy::detail {

using Problems = std::vector<std::string>;

using strategy::name_of;

//! The sequence's split into 2·cp chunks, the attention kernel, the models context parallelism is
//! modelled for and the heads the a2a exchange divides; cp_comm_type without context parallelism.
void check_context_parallel(const JobSpec& job, const SettingNames& names, Problems& problems);
//! The expert grid, the token dispatcher and the load imbalance; on a dense model, the expert
//! settings that need experts.
void check_experts(const JobSpec& job, const SettingNames& names, Problems& problems);
//! Megatron-Core's rules for combined 1F1B (transformer_config.py, overlap_moe_expert_parallel_comm),
//! whether or not the job asks for it; the schedule's own (no pipelining, or interleaved) are
//! schedule::PipelineSchedule::runs_combined_1f1b.
void check_combined_1f1b(const JobSpec& job, const SettingNames& names, Problems& problems);
//! Megatron-Core's rules for moe_shared_expert_overlap, whether or not the job asks for it.
void check_shared_expert_overlap(const JobSpec& job, const SettingNames& names, Problems& problems);
//! The ZeRO stage against the distributed optimizer, the experts and the MTP modules, and the
//! HSDP shard group.
void check_sharding(const JobSpec& job, const SettingNames& names, Problems& problems);
//! A named attention kernel: fused attention, 16-bit, and a rate measured on the GPU's architecture.
void check_attention_kernel(const JobSpec& job, const SettingNames& names, Problems& problems);
//! A model's layer structure (layer_structure_validation.cpp): Llama 4's chunked attention and
//! position-free layers, a hybrid pattern and its Mamba-2 mixer; `where` names the model.
void check_layer_structure(const model::ModelSpec& model, const std::string& where, Problems& problems);
//! The parallelism a model's layer structure admits: chunks shorter than the sequence, and
//! Megatron-Core's rules for hybrid models (tp, pp, virtual stages, cp).
void check_layer_structure_parallelism(const JobSpec& job, Problems& problems);
//! Slow ranks, stages and hosts the job has (variability_validation.cpp).
void check_variability(const JobSpec& job, const SettingNames& names, Problems& problems);

}  // namespace distsim::strategy::detail
