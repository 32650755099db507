#include <sstream>
#include <string>

#include "strategy/job_checks.hpp"
#include "strategy/rank_layout.hpp"

namespace distsim::strategy::detail {

namespace {

std::string divisors_of(int value) {
  std::string list;
  for (int d = 1; d <= value; ++d) {
    if (value % d == 0) {
      list += (list.empty() ? "" : ", ") + std::to_string(d);
    }
  }
  return list;
}

//! The expert settings on a dense model: each names the model, since the fix is a different model
//! or dropping the setting.
void check_dense_model_settings(const JobSpec& job, const SettingNames& names, Problems& problems) {
  const Strategy& s = job.strategy;
  const std::string dense =
      " needs a mixture-of-experts model; model " + quoted(job.model.name) + " is dense (no moe.num_experts)";
  if (s.expert_parallel != 1) {
    problems.push_back(name_of(names, "ep") + " " + std::to_string(s.expert_parallel) + ": expert parallelism" + dense);
  }
  if (s.expert_tensor_parallel != 1) {
    problems.push_back(name_of(names, "etp") + " " + std::to_string(s.expert_tensor_parallel) +
                       ": expert tensor parallelism" + dense);
  }
  if (s.moe_dispatcher != MoeDispatcher::alltoall) {
    problems.push_back(name_of(names, "moe_dispatcher") + " " + to_string(s.moe_dispatcher) + ": a token dispatcher" +
                       dense);
  }
  if (s.moe_imbalance != 1.0) {
    std::ostringstream value;
    value << s.moe_imbalance;
    problems.push_back(name_of(names, "moe_imbalance") + " " + value.str() + ": an expert load imbalance" + dense);
  }
  if (s.overlap_moe_expert_parallel_comm) {
    problems.push_back(name_of(names, "overlap_moe_expert_parallel_comm") +
                       ": overlapping the expert-parallel all-to-all" + dense);
  }
  if (s.moe_shared_expert_overlap) {
    problems.push_back(name_of(names, "moe_shared_expert_overlap") + ": overlapping shared experts" + dense);
  }
}

}  // namespace

void check_shared_expert_overlap(const JobSpec& job, const SettingNames& names, Problems& problems) {
  const Strategy& s = job.strategy;
  const std::string option = name_of(names, "moe_shared_expert_overlap") + ": ";
  if (job.model.moe.shared_experts == 0) {
    problems.push_back(option + "model " + quoted(job.model.name) +
                       " has no shared experts (moe.shared_experts 0), so there is nothing to overlap");
  }
  if (s.moe_dispatcher != MoeDispatcher::alltoall) {
    problems.push_back(option + "needs " + name_of(names, "moe_dispatcher") + " alltoall, got " +
                       to_string(s.moe_dispatcher) +
                       " (Megatron-Core: \"moe_shared_expert_overlap only works with "
                       "alltoall or flex token dispatcher\")");
  }
  if (s.overlap_moe_expert_parallel_comm) {
    problems.push_back(option + "cannot run with " + name_of(names, "overlap_moe_expert_parallel_comm") +
                       " (Megatron-Core: \"disable moe_shared_expert_overlap when enabling "
                       "overlap_moe_expert_parallel_comm\")");
  }
}

void check_combined_1f1b(const JobSpec& job, const SettingNames& names, Problems& problems) {
  const Strategy& s = job.strategy;
  const std::string option = name_of(names, "overlap_moe_expert_parallel_comm") + ": ";
  if (s.expert_parallel == 1) {
    problems.push_back(option + "there is no expert-parallel all-to-all to overlap with " + name_of(names, "ep") +
                       " 1; Megatron-Core requires expert parallelism (" + name_of(names, "ep") + " > 1)");
  }
  if (s.moe_dispatcher != MoeDispatcher::alltoall) {
    problems.push_back(option + "needs " + name_of(names, "moe_dispatcher") + " alltoall, got " +
                       to_string(s.moe_dispatcher) + " (Megatron-Core runs it with the alltoall or flex dispatcher)");
  }
  if (s.recompute == Recompute::full) {
    problems.push_back(option + "cannot run with full recomputation (Megatron-Core: \"disable full recomputation when "
                                "enabling overlap_moe_expert_parallel_comm\"); use selective recomputation or none");
  }
  if (s.dtype != Dtype::bf16 && s.dtype != Dtype::fp16) {
    problems.push_back(option + "needs a bf16 or fp16 model, as Megatron-Core does; got dtype '" +
                       std::string(dtype_name(s.dtype)) + "'");
  }
  if (job.model.mtp_layers > 1) {
    problems.push_back(option + "model " + quoted(job.model.name) + " has " + std::to_string(job.model.mtp_layers) +
                       " multi-token prediction layers; Megatron-Core runs combined 1F1B with at most one");
  }
}

//! The flex dispatcher as distsim models it: DeepEP or HybridEP kernels over an expert-parallel
//! group inside one NVLink (scale-up) domain, with the tensor and expert tensor parallel size 1
//! that Megatron-Bridge's flex recipes use and dropless routing. DeepEP's internode kernels (RDMA
//! to the same local rank of each node, then NVLink forwarding), a tensor-parallel exchange group
//! and token dropping are refused as not modelled.
void check_flex_dispatcher(const JobSpec& job, const SettingNames& names, Problems& problems) {
  const Strategy& s = job.strategy;
  const std::string option = name_of(names, "moe_dispatcher") + " " + to_string(s.moe_dispatcher) + ": ";
  if (s.expert_parallel <= 1) {
    problems.push_back(option +
                       "the flex dispatcher exchanges tokens over expert parallelism; Megatron-Core's "
                       "DeepEP backend requires tp x ep > 1 (use " +
                       name_of(names, "ep") + " > 1 or the alltoall dispatcher)");
    return;
  }
  if (s.tensor_parallel > 1) {
    problems.push_back(option +
                       "is modelled with tp 1, as Megatron-Bridge's flex recipes run it (its exchange group "
                       "with tp " +
                       std::to_string(s.tensor_parallel) + " would be the tensor and expert ranks together)");
  }
  if (s.moe_pad_to_capacity || !job.model.moe.dropless()) {
    problems.push_back(option + "token dropping (a capacity factor) is not modelled with the flex dispatcher "
                                "(Megatron-Core's DeepEP backend refuses padding to capacity)");
  }
  if (s.tensor_parallel <= 0 || s.context_parallel <= 0 || s.data_parallel <= 0 || s.pipeline_parallel <= 0 ||
      job.cluster.num_hosts <= 0) {
    return;  // reported by check_strategy
  }
  const RankLayout layout(s, job.cluster);
  const GroupPlacement group = layout.expert_group(RankCoord{}, ExpertDim::ep);
  if (!group.within_domain()) {
    problems.push_back(option + "the expert-parallel group of " + std::to_string(s.expert_parallel) + " ranks spans " +
                       std::to_string(group.domains) +
                       " NVLink domains; the flex dispatcher is modelled within one (DeepEP's internode kernels, "
                       "RDMA to each node then NVLink forwarding, are not modelled): use a smaller " +
                       name_of(names, "ep") + " or the alltoall dispatcher");
  }
}

//! Megatron-Core's rules for the expert grid (MoE parallel folding, arguments.py and
//! parallel_state.py): EP divides the routed experts, ETP·EP divides a pipeline stage's ranks,
//! ETP divides the expert FFN, and with tensor parallelism the MoE layer needs sequence
//! parallelism (arguments.py: "When using MoE and tensor parallelism, sequence parallelism must
//! be used").
void check_experts(const JobSpec& job, const SettingNames& names, Problems& problems) {
  const Strategy& s = job.strategy;
  const auto& moe = job.model.moe;
  if (!moe.enabled()) {
    check_dense_model_settings(job, names, problems);
    return;
  }
  const std::string ep = name_of(names, "ep");
  const std::string etp = name_of(names, "etp");
  if (s.expert_parallel <= 0 || s.expert_tensor_parallel <= 0) {
    return;  // reported by check_strategy
  }
  if (moe.num_experts % s.expert_parallel != 0) {
    problems.push_back(ep + " " + std::to_string(s.expert_parallel) + ": expert parallel size must divide the " +
                       std::to_string(moe.num_experts) + " routed experts of model " + quoted(job.model.name) +
                       "; valid sizes: " + divisors_of(moe.num_experts));
  }
  const int expert_model = s.expert_parallel * s.expert_tensor_parallel;
  if (s.stage_ranks() > 0 && s.stage_ranks() % expert_model != 0) {
    problems.push_back(ep + " " + std::to_string(s.expert_parallel) + ", " + etp + " " +
                       std::to_string(s.expert_tensor_parallel) + ": expert tensor parallel x expert parallel = " +
                       std::to_string(expert_model) + " must divide the " + std::to_string(s.stage_ranks()) +
                       " ranks of a pipeline stage (tp x cp x dp); valid products: " + divisors_of(s.stage_ranks()));
  }
  if (s.expert_tensor_parallel > 1 && moe.expert_ffn_hidden_size % s.expert_tensor_parallel != 0) {
    problems.push_back(etp + " " + std::to_string(s.expert_tensor_parallel) + ": expert tensor parallel size must " +
                       "divide the expert FFN size " + std::to_string(moe.expert_ffn_hidden_size) + " of model " +
                       quoted(job.model.name) + ", which each expert's weights are split by");
  }
  if (s.expert_tensor_parallel > 1 && s.moe_dispatcher != MoeDispatcher::alltoall) {
    problems.push_back(etp + " " + std::to_string(s.expert_tensor_parallel) + " with " +
                       name_of(names, "moe_dispatcher") + " " + to_string(s.moe_dispatcher) +
                       ": expert tensor parallelism is simulated with the alltoall dispatcher only; use " +
                       name_of(names, "moe_dispatcher") + " alltoall or " + etp + " 1");
  }
  if (s.tensor_parallel > 1 && !s.sequence_parallel) {
    problems.push_back("tensor parallel size " + std::to_string(s.tensor_parallel) + " with model " +
                       quoted(job.model.name) +
                       "'s experts needs sequence parallelism (--sequence-parallel, or sequence_parallel: true in "
                       "a job file), as Megatron-Core requires");
  }
  if (s.moe_pad_to_capacity && moe.dropless()) {
    problems.push_back(name_of(names, "moe_pad_expert_input_to_capacity") + " with model " + quoted(job.model.name) +
                       ", which routes without dropping: padding is to each expert's capacity, so the model needs a "
                       "capacity factor (moe.capacity_factor in a model file, --moe-expert-capacity-factor in "
                       "Megatron-LM's arguments), as Megatron-Core requires");
  }
  if (s.overlap_moe_expert_parallel_comm) check_combined_1f1b(job, names, problems);
  if (sends_once_per_rank(s.moe_dispatcher)) check_flex_dispatcher(job, names, problems);
  if (s.moe_shared_expert_overlap) check_shared_expert_overlap(job, names, problems);
  if (!(s.moe_imbalance >= 1.0)) {
    std::ostringstream value;
    value << s.moe_imbalance;
    problems.push_back(name_of(names, "moe_imbalance") + " " + value.str() +
                       ": the busiest expert rank's tokens over the mean must be at least 1.0");
  }
  // An expert receives each token at most once: at most every token, num_experts / top_k times
  // the mean, and so does the busiest rank relative to its share.
  const double most = static_cast<double>(job.model.moe.num_experts) / job.model.moe.top_k;
  const bool routing_valid = job.model.moe.top_k >= 1 && job.model.moe.top_k <= job.model.moe.num_experts;
  if (routing_valid && s.moe_imbalance > most) {
    std::ostringstream value;
    value << s.moe_imbalance << ": the busiest expert rank's tokens over the mean can be at most num_experts / top_k ("
          << job.model.moe.num_experts << " / " << job.model.moe.top_k << " = " << most
          << ": every token routed to the same experts)";
    problems.push_back(name_of(names, "moe_imbalance") + " " + value.str());
  }
}

}  // namespace distsim::strategy::detail
