#include "search/candidate.hpp"

namespace distsim::search {

const char* to_string(CandidateStatus status) {
  switch (status) {
    case CandidateStatus::ok: return "ok";
    case CandidateStatus::out_of_memory: return "out of memory";
    case CandidateStatus::invalid: return "invalid";
    case CandidateStatus::pruned: return "pruned by bound";
  }
  return "invalid";
}

Candidate candidate_for(const strategy::JobSpec& job) {
  Candidate candidate;
  candidate.setting = std::make_shared<const ModelOnCluster>(ModelOnCluster{job.model, job.cluster});
  candidate.strategy = job.strategy;
  return candidate;
}

const std::string& Candidate::reason() const {
  static const std::string none;
  return reason_text ? *reason_text : none;
}

std::string Candidate::label() const {
  const auto& s = strategy;
  std::string text = s.notation();
  if (model().moe.enabled()) text += " ep " + std::to_string(s.expert_parallel);
  if (s.expert_tensor_parallel > 1) text += " etp " + std::to_string(s.expert_tensor_parallel);
  if (s.context_parallel > 1 && s.cp_comm_type != strategy::CpCommType::p2p) {
    text += std::string(" cp ") + strategy::to_string(s.cp_comm_type);
    if (s.cp_comm_type == strategy::CpCommType::a2a_p2p) text += " a2a=" + std::to_string(s.cp_a2a_size);
  }
  text += " mbs " + std::to_string(s.micro_batch_size) + " " + s.schedule;
  if (s.low_precision_gemms()) {
    text += ' ';
    text += dtype_name(strategy::gemm_dtype(s.gemm_format, s.dtype));
  }
  if (s.virtual_stages > 1) text += " v" + std::to_string(s.virtual_stages);
  if (s.recompute != strategy::Recompute::none) {
    text += std::string(" recompute=") + strategy::to_string(s.recompute);
  }
  if (s.sequence_parallel) text += " sp";
  if (s.zero_stage() != strategy::Sharding::none) text += std::string(" ") + strategy::to_string(s.zero_stage());
  if (s.zero_stage() == strategy::Sharding::full && s.shard_replicas() > 1) {
    text += " hsdp " + std::to_string(s.shard_group_size());
  }
  if (s.overlap_moe_expert_parallel_comm) text += " a2a-overlap";
  if (!s.stage_gpus.empty()) text += " on " + s.stage_gpus;
  return text;
}

}  // namespace distsim::search
