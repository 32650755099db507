#include <algorithm>
#include <string>

#include "strategy/job_checks.hpp"

namespace distsim::strategy::detail {

namespace {

//! The a2a exchange gives each context rank heads/cp whole query and KV heads of its tensor rank
//! (TransformerEngine asserts num_heads % cp_size == 0 for Q, K and V); a2a+p2p gives each rank of
//! an all-to-all group heads/cp_a2a_size.
void check_a2a_heads(const JobSpec& job, Problems& problems) {
  const Strategy& s = job.strategy;
  const bool hierarchical = s.cp_comm_type == CpCommType::a2a_p2p;
  const int group = hierarchical ? s.cp_a2a_size : s.context_parallel;
  const std::string group_name = hierarchical ? "cp_a2a_size" : "cp";
  const int tp = std::max(1, s.tensor_parallel);
  const int heads = job.model.num_attention_heads / tp;
  const int kv_heads = job.model.num_kv_heads / tp;
  if ((s.cp_comm_type != CpCommType::a2a && !hierarchical) || group < 1 ||
      (heads % group == 0 && kv_heads % group == 0)) {
    return;
  }
  std::string sizes;
  for (int size = 2; size <= std::min(heads, kv_heads); ++size) {
    if (heads % size == 0 && kv_heads % size == 0) sizes += ", " + std::to_string(size);
  }
  problems.push_back("cp_comm_type '" + std::string(to_string(s.cp_comm_type)) +
                     "' needs the query heads of a tensor rank (num_attention_heads / tp = " +
                     std::to_string(job.model.num_attention_heads) + " / " + std::to_string(tp) + " = " +
                     std::to_string(heads) +
                     ") and its KV heads (num_kv_heads / tp = " + std::to_string(job.model.num_kv_heads) + " / " +
                     std::to_string(tp) + " = " + std::to_string(kv_heads) + ") to be divisible by " + group_name +
                     " " + std::to_string(group) + " (the all-to-all gives each of its ranks heads/" + group_name +
                     " whole heads); sizes that divide both: 1" + sizes + "; or use cp_comm_type 'p2p' or 'allgather'");
}

//! a2a+p2p splits the context ranks into all-to-all groups of cp_a2a_size adjacent ranks and a
//! ring across them: both levels need two ranks or more (Megatron-Core asserts that the sizes'
//! product is cp).
void check_hierarchy(const JobSpec& job, const SettingNames& names, Problems& problems) {
  const Strategy& s = job.strategy;
  const int cp = s.context_parallel;
  const int a2a = s.cp_a2a_size;
  if (s.cp_comm_type != CpCommType::a2a_p2p) {
    if (a2a != 1) {
      problems.push_back(name_of(names, "cp_a2a_size") + " " + std::to_string(a2a) +
                         ": an all-to-all level needs cp_comm_type 'a2a+p2p', got '" + to_string(s.cp_comm_type) + "'");
    }
    return;
  }
  if (a2a >= 2 && a2a < cp && cp % a2a == 0) return;
  std::string sizes;
  for (int size = 2; size < cp; ++size) {
    if (cp % size == 0) sizes += (sizes.empty() ? "" : ", ") + std::to_string(size);
  }
  problems.push_back(name_of(names, "cp_a2a_size") + " " + std::to_string(a2a) +
                     ": cp_comm_type 'a2a+p2p' needs an all-to-all group of 2 or more context ranks that divides cp " +
                     std::to_string(cp) + " into 2 or more groups for the ring; " +
                     (sizes.empty() ? "cp " + std::to_string(cp) + " has no such size (use cp_comm_type 'a2a' or 'p2p')"
                                    : "sizes that do: " + sizes));
}

}  // namespace

//! Context parallelism (Megatron-Core, TransformerEngine's ring attention) cuts each sequence into
//! 2·cp chunks and gives rank r chunks r and 2cp − 1 − r, so 2·cp must divide the sequence. It runs
//! inside TransformerEngine's fused attention, and distsim models it for one sequence per model
//! (decoder-only or encoder-only).
void check_context_parallel(const JobSpec& job, const SettingNames& names, Problems& problems) {
  const Strategy& s = job.strategy;
  const auto& m = job.model;
  const int cp = s.context_parallel;
  if (cp <= 1) {  // cp <= 0 is reported by check_strategy
    if (cp == 1 && s.cp_comm_type != CpCommType::p2p) {
      problems.push_back(name_of(names, "cp_comm_type") + " " + to_string(s.cp_comm_type) +
                         ": a context-parallel exchange needs context parallelism (cp 2 or more), got cp 1");
    } else if (cp == 1 && s.cp_a2a_size != 1) {
      problems.push_back(name_of(names, "cp_a2a_size") + " " + std::to_string(s.cp_a2a_size) +
                         ": an all-to-all level needs context parallelism (cp 4 or more with cp_comm_type 'a2a+p2p'), "
                         "got cp 1");
    }
    return;
  }
  check_hierarchy(job, names, problems);
  if (m.seq_length > 0 && m.seq_length % (2 * cp) != 0) {
    problems.push_back("context parallelism needs seq_length " + std::to_string(m.seq_length) + " of model " +
                       quoted(m.name) + " to be divisible by 2 x context parallel size = 2 x " + std::to_string(cp) +
                       " = " + std::to_string(2 * cp) + " (each rank holds 2 of the sequence's " +
                       std::to_string(2 * cp) + " load-balanced chunks)");
  }
  if (s.attention == Attention::unfused) {
    problems.push_back("context parallelism (cp " + std::to_string(cp) +
                       ") needs attention 'flash': it runs as ring attention inside the fused attention kernel "
                       "(TransformerEngine), got 'unfused'");
  }
  if (m.sliding_window > 0) {
    problems.push_back("context parallelism (cp " + std::to_string(cp) +
                       ") is not modelled with the sliding-window attention of model " + quoted(m.name) + " (window " +
                       std::to_string(m.sliding_window) +
                       "): a rank's chunk would need only the keys within the window of its neighbours, which the "
                       "ring exchange does not model; use cp 1");
  }
  if (m.mla.enabled()) {
    problems.push_back("context parallelism (cp " + std::to_string(cp) +
                       ") is not modelled with the latent attention of model " + quoted(m.name) +
                       " (its ring exchange would move the up-projected keys and values); use cp 1");
  }
  check_a2a_heads(job, problems);
  if (m.architecture == model::Architecture::encoder_decoder) {
    problems.push_back("context parallelism (cp " + std::to_string(cp) +
                       ") is modelled for decoder-only and "
                       "encoder-only models, not for the encoder-decoder model " +
                       quoted(m.name));
  }
}

}  // namespace distsim::strategy::detail
