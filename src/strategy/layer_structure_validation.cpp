#include <cstdint>
#include <optional>
#include <string>

#include "model/layer_plan.hpp"
#include "strategy/job_checks.hpp"

namespace distsim::strategy::detail {

namespace {

//! Llama 4's iRoPE and chunked attention: a decoder's causal self-attention, without a sliding
//! window beside the chunks, and one kind of QK norm.
void check_chunks_and_nope(const model::ModelSpec& model, const std::string& where, Problems& problems) {
  if (model.attention_chunk_size < 0 || model.nope_layer_interval < 0) {
    problems.push_back(where + "attention_chunk_size and nope_layer_interval must be 0 (none) or positive, got " +
                       std::to_string(model.attention_chunk_size) + " and " +
                       std::to_string(model.nope_layer_interval));
  }
  if (model.attention_chunk_size > 0 && model.architecture != model::Architecture::decoder) {
    problems.push_back(where + "attention_chunk_size " + std::to_string(model.attention_chunk_size) +
                       " is modelled for decoder-only models, not for this " +
                       (model.architecture == model::Architecture::encoder ? "encoder-only" : "encoder-decoder") +
                       " model");
  }
  if (model.attention_chunk_size > 0 && model.sliding_window > 0) {
    problems.push_back(where + "attention_chunk_size and sliding_window together are not modelled; give one of them");
  }
  if (model.qk_norm && model.qk_l2_norm) {
    problems.push_back(where + "qk_norm (a learned scale) and qk_l2_norm (none) name two QK norms; give one of them");
  }
}

//! A hybrid model's pattern names each of its decoder layers by a known symbol, and the Mamba-2
//! mixer that its 'M' layers run is whole.
void check_hybrid_pattern(const model::ModelSpec& model, const std::string& where, Problems& problems) {
  const std::string& pattern = model.hybrid_pattern;
  const model::MambaSpec& mamba = model.mamba;
  if (pattern.empty()) {
    if (mamba.enabled()) {
      problems.push_back(where + "mamba is given but no hybrid_pattern places its 'M' layers");
    }
    return;
  }
  if (model.architecture != model::Architecture::decoder || model.mtp_layers > 0) {
    problems.push_back(where + "hybrid_pattern is modelled for decoder-only models without MTP modules");
  }
  if (static_cast<std::int64_t>(pattern.size()) != model.num_layers) {
    problems.push_back(where + "hybrid_pattern has " + std::to_string(pattern.size()) + " symbols for " +
                       std::to_string(model.num_layers) + " layers; give one symbol per layer");
  }
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    const std::optional<model::LayerBlock> block = model::hybrid_block(pattern[i], model);
    if (!block) {
      problems.push_back(where + "hybrid_pattern symbol " + std::to_string(i) + " '" + std::string(1, pattern[i]) +
                         "' is none of M (Mamba-2), * (attention), - (MLP), E (mixture of experts)");
      return;
    }
  }
  if (pattern.find('M') != std::string::npos) {
    if (mamba.num_heads <= 0 || mamba.head_dim <= 0 || mamba.state_size <= 0 || mamba.groups <= 0 ||
        mamba.conv_kernel <= 0 || mamba.chunk_size <= 0) {
      problems.push_back(where + "hybrid_pattern has Mamba layers, so mamba needs num_heads, head_dim, state_size, "
                                 "groups, conv_kernel and chunk_size, each positive");
    } else if (mamba.num_heads % mamba.groups != 0) {
      problems.push_back(where + "mamba.groups " + std::to_string(mamba.groups) + " must divide mamba.num_heads " +
                         std::to_string(mamba.num_heads));
    }
  }
  if (pattern.find('E') != std::string::npos && !model.moe.enabled()) {
    problems.push_back(where + "hybrid_pattern has mixture-of-experts layers (E), so the model needs moe");
  }
}

//! Chunks shorter than the sequence run in fused attention on whole sequences of one rank.
void check_attention_chunks(const JobSpec& job, Problems& problems) {
  const model::ModelSpec& m = job.model;
  if (m.attention_chunks(m.seq_length) == 1) {
    return;
  }
  const std::string chunks = "the chunked attention of model " + quoted(m.name) + " (chunks of " +
                             std::to_string(m.attention_chunk_size) + " tokens, sequence " +
                             std::to_string(m.seq_length) + ")";
  if (job.strategy.attention == Attention::unfused) {
    problems.push_back("attention 'unfused' is not modelled with " + chunks + "; use attention 'flash'");
  }
  if (job.strategy.context_parallel > 1) {
    problems.push_back("context parallelism (cp " + std::to_string(job.strategy.context_parallel) +
                       ") is not modelled with " + chunks +
                       ": each rank's load-balanced halves would hold parts of chunks; use cp 1");
  }
}

//! Megatron-Core's hybrid models: tensor parallelism splits the Mamba heads and groups
//! (MambaMixer asserts both divide); MambaStack splits the pattern's layers evenly over the stages
//! and runs no virtual pipeline; its context parallelism (Megatron Core 0.13's all-to-all of the
//! heads around the scan) is not modelled.
void check_hybrid_parallelism(const JobSpec& job, Problems& problems) {
  const model::ModelSpec& m = job.model;
  if (m.hybrid_pattern.empty()) {
    return;
  }
  const Strategy& s = job.strategy;
  const std::string model = "the hybrid model " + quoted(m.name);
  if (m.hybrid_pattern.find('M') != std::string::npos && s.tensor_parallel > 0 &&
      (m.mamba.num_heads % s.tensor_parallel != 0 || m.mamba.groups % s.tensor_parallel != 0)) {
    problems.push_back("tp " + std::to_string(s.tensor_parallel) + " must divide the Mamba heads (" +
                       std::to_string(m.mamba.num_heads) + ") and groups (" + std::to_string(m.mamba.groups) + ") of " +
                       model);
  }
  if (s.pipeline_parallel > 0 && m.num_layers % s.pipeline_parallel != 0) {
    problems.push_back("pp " + std::to_string(s.pipeline_parallel) + " must divide the " +
                       std::to_string(m.num_layers) + " layers of " + model +
                       " (Megatron-Core splits a hybrid pattern evenly over the stages)");
  }
  if (s.virtual_stages > 1) {
    problems.push_back("virtual pipeline stages (" + std::to_string(s.virtual_stages) + ") are not modelled for " +
                       model + ": Megatron-Core's hybrid stack runs one chunk per stage");
  }
  if (s.context_parallel > 1 && m.hybrid_pattern.find('M') != std::string::npos) {
    problems.push_back("context parallelism (cp " + std::to_string(s.context_parallel) + ") is not modelled for " +
                       model + ": its Mamba layers exchange heads by all-to-all around the scan; use cp 1");
  }
}

}  // namespace

void check_layer_structure(const model::ModelSpec& model, const std::string& where, Problems& problems) {
  check_chunks_and_nope(model, where, problems);
  check_hybrid_pattern(model, where, problems);
}

void check_layer_structure_parallelism(const JobSpec& job, Problems& problems) {
  check_attention_chunks(job, problems);
  check_hybrid_parallelism(job, problems);
}

}  // namespace distsim::strategy::detail
