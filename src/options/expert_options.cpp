#include <sstream>

#include "core/input_error.hpp"
#include "options/option_builders.hpp"
#include "schedule/pipeline_schedule.hpp"

namespace distsim::options::table {

namespace {

bool has_experts(const JobSpec& job) { return job.model.moe.enabled(); }

//! The busiest expert rank's tokens over the mean: a number, at least 1.0 (checked with the job).
std::string imbalance_problem(const std::string& text) {
  std::istringstream in(text);
  double value = 0;
  in >> value;
  if (in.fail() || !in.eof()) {
    return "expected a number such as 1.0 or 1.25, got '" + text + "'";
  }
  return "";
}

//! Expert parallel sizes left free: every size that divides the routed experts and, times the
//! expert tensor parallel size, the ranks of a pipeline stage (tp x cp x dp), which the experts
//! are folded over. A dense model has none.
std::vector<Value> free_expert_parallel_sizes(const JobSpec& job) {
  const int experts = job.model.moe.num_experts;
  const Strategy& s = job.strategy;
  const int stage_ranks = s.tensor_parallel * s.context_parallel * s.data_parallel;
  std::vector<Value> sizes;
  for (int ep = 1; ep <= experts; ++ep) {
    if (experts % ep == 0 && stage_ranks % (ep * s.expert_tensor_parallel) == 0) sizes.emplace_back(ep);
  }
  return sizes;
}

//! Expert tensor parallel sizes left free, for the candidate's expert parallel size: every size
//! that divides the expert FFN and, times ep, the ranks of a pipeline stage; 1 only with the
//! allgather dispatcher, which is simulated without expert tensor parallelism.
std::vector<Value> free_expert_tensor_parallel_sizes(const JobSpec& job) {
  const Strategy& s = job.strategy;
  const int ffn = job.model.moe.expert_ffn_hidden_size;
  const int ranks = s.stage_ranks() / std::max(s.expert_parallel, 1);
  std::vector<Value> sizes;
  for (int etp = 1; etp <= ranks; ++etp) {
    if (ranks % etp == 0 && ffn % etp == 0 && (etp == 1 || s.moe_dispatcher == strategy::MoeDispatcher::alltoall)) {
      sizes.emplace_back(etp);
    }
  }
  return sizes;
}

}  // namespace

std::vector<JobOption> expert_options() {
  JobOption ep = strategy_integer("ep", "--ep", &Strategy::expert_parallel, "1",
                                  "expert parallel size: the routed experts of each MoE layer are spread over ep ranks "
                                  "of a pipeline stage (Megatron-Core MoE parallel folding); must divide the experts");
  JobOption etp = strategy_integer("etp", "--etp", &Strategy::expert_tensor_parallel, "1",
                                   "expert tensor parallel size: ranks each expert's FFN is split over, which gather "
                                   "their dispatched tokens (default 1; Megatron-Core's default is tp)");
  etp.search_values = free_expert_tensor_parallel_sizes;
  JobOption dispatcher = strategy_choice<strategy::MoeDispatcher>(
      "moe_dispatcher", "--moe-dispatcher", "token dispatcher", &Strategy::moe_dispatcher,
      {{"alltoall", strategy::MoeDispatcher::alltoall},
       {"allgather", strategy::MoeDispatcher::allgather},
       {"deepep", strategy::MoeDispatcher::deepep},
       {"hybridep", strategy::MoeDispatcher::hybridep}},
      "how tokens reach their experts: alltoall (all-to-all over the expert-parallel group), allgather (gather "
      "every token of the group, reduce-scatter the outputs), or Megatron-Core's flex dispatcher on deepep or "
      "hybridep kernels (a token sent once to each rank that holds one of its experts; within one NVLink domain)");
  // Megatron-Core's flex dispatcher runs DeepEP unless --moe-flex-dispatcher-backend says otherwise.
  dispatcher.value_aliases = {{"a2a", "alltoall"},           {"flex", "deepep"},        {"flex/deepep", "deepep"},
                              {"flex/hybridep", "hybridep"}, {"flex-deepep", "deepep"}, {"flex-hybridep", "hybridep"}};
  JobOption imbalance = basic("moe_imbalance", "--moe-imbalance", ValueType::text, "1.0",
                              "tokens of the busiest expert rank over the mean (1.0: balanced, as in force-balanced "
                              "benchmark runs); the slowest expert rank sets the MoE layer's pace");
  imbalance.check = imbalance_problem;
  imbalance.apply = [](const Value& value, JobSpec& job, const SpecResolvers&) {
    job.strategy.moe_imbalance = std::stod(as_text(value));
  };
  imbalance.read = [](const JobSpec& job) -> Value {
    std::ostringstream out;
    out << job.strategy.moe_imbalance;
    const std::string text = out.str();
    return text.find_first_of(".e") == std::string::npos ? text + ".0" : text;
  };
  JobOption overlap = strategy_boolean(
      "overlap_moe_expert_parallel_comm", "--overlap-moe-expert-parallel-comm",
      &Strategy::overlap_moe_expert_parallel_comm,
      "Megatron-Core's combined 1F1B: each steady-state forward runs overlapped with another micro-batch's backward, "
      "hiding one's expert-parallel all-to-all behind the other's computation (no pipelining, or interleaved)");
  // A search tries combined 1F1B where Megatron-Core runs it: the job breaks none of its rules
  // and the schedule pairs forwards with backwards that way.
  overlap.search_values = both_when([](const JobSpec& job) {
    const Strategy& s = job.strategy;
    const auto& schedule = schedule::find_schedule(s.schedule);
    return strategy::combined_1f1b_problems(job).empty() &&
           schedule.runs_combined_1f1b(s.pipeline_parallel, schedule.chunks_per_stage(s.virtual_stages));
  });
  JobOption shared_overlap = strategy_boolean(
      "moe_shared_expert_overlap", "--moe-shared-expert-overlap", &Strategy::moe_shared_expert_overlap,
      "Megatron-Core's shared-expert overlap: the shared experts' first linear runs while the tokens are dispatched "
      "and their second while the outputs are combined (alltoall dispatcher; not with combined 1F1B)");
  shared_overlap.search_values =
      both_when([](const JobSpec& job) { return strategy::shared_expert_overlap_problems(job).empty(); });
  JobOption router_fusion = strategy_boolean(
      "moe_router_fusion", "--moe-router-fusion", &Strategy::moe_router_fusion,
      "Megatron-Core's fused router (TransformerEngine's kernels): the router's 72 kernels become 31, which the "
      "host issues in less time (docs/host_time.md)");
  JobOption pad = strategy_boolean(
      "moe_pad_expert_input_to_capacity", "--moe-pad-expert-input-to-capacity", &Strategy::moe_pad_to_capacity,
      "Megatron-Core's drop and pad: with the model's capacity factor, every expert takes exactly its capacity of "
      "tokens, padded where fewer were routed, so the exchanges and expert GEMMs have fixed sizes and the host reads "
      "no token counts back");
  ep.search_values = free_expert_parallel_sizes;
  std::vector<JobOption> options{ep, etp, dispatcher, imbalance, overlap, shared_overlap, router_fusion, pad};
  for (auto& option : options) {
    option.applies = has_experts;
  }
  return options;
}

}  // namespace distsim::options::table
