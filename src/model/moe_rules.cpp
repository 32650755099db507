#include "model/moe_rules.hpp"

#include <utility>

namespace distsim::model {

namespace {

std::string text(int value) { return std::to_string(value); }

}  // namespace

std::vector<std::string> moe_problems(const ModelSpec& model) {
  std::vector<std::string> problems;
  const MoeSpec& moe = model.moe;
  if (!moe.enabled()) {
    return problems;
  }
  if (moe.top_k <= 0 || moe.top_k > moe.num_experts) {
    problems.push_back("top_k " + text(moe.top_k) + " must be between 1 and num_experts " + text(moe.num_experts));
  }
  if (moe.expert_ffn_hidden_size <= 0) {
    problems.push_back("expert_ffn_hidden_size must be positive, got " + text(moe.expert_ffn_hidden_size));
  }
  if (moe.shared_experts > 0 && moe.shared_expert_ffn_hidden_size <= 0) {
    problems.push_back("shared_experts " + text(moe.shared_experts) +
                       " needs a positive shared_expert_ffn_hidden_size, got " +
                       text(moe.shared_expert_ffn_hidden_size));
  }
  if (moe.layer_interval <= 0) {
    problems.push_back("layer_interval must be positive, got " + text(moe.layer_interval));
  } else if (model.num_layers > 0 && moe.first_dense_layers + moe.layer_interval > model.num_layers) {
    problems.push_back("first_dense_layers " + text(moe.first_dense_layers) + " and layer_interval " +
                       text(moe.layer_interval) + " leave no MoE layer among the " + text(model.num_layers) +
                       " layers; expected first_dense_layers + layer_interval <= num_layers");
  }
  if (moe.router_groups > 0 && (moe.num_experts % moe.router_groups != 0 || moe.router_group_top_k <= 0 ||
                                moe.router_group_top_k > moe.router_groups)) {
    problems.push_back("router_groups " + text(moe.router_groups) + " must divide num_experts " +
                       text(moe.num_experts) + ", with router_group_top_k " + text(moe.router_group_top_k) +
                       " between 1 and router_groups");
  }
  if (model.architecture != Architecture::decoder) {
    problems.push_back("num_experts " + text(moe.num_experts) + ": experts are modelled in decoder-only models");
  }
  return problems;
}

std::vector<std::string> mla_problems(const ModelSpec& model) {
  std::vector<std::string> problems;
  const MlaSpec& mla = model.mla;
  if (!mla.enabled()) {
    return problems;
  }
  for (const auto& [name, value] : {std::pair<const char*, int>{"qk_nope_head_dim", mla.qk_nope_head_dim},
                                    {"qk_rope_head_dim", mla.qk_rope_head_dim},
                                    {"v_head_dim", mla.v_head_dim}}) {
    if (value <= 0) {
      problems.push_back(std::string(name) + " must be positive with kv_lora_rank " + text(mla.kv_lora_rank) +
                         ", got " + text(value));
    }
  }
  if (model.architecture != Architecture::decoder) {
    problems.push_back("kv_lora_rank " + text(mla.kv_lora_rank) +
                       ": latent attention is modelled in decoder-only models");
  }
  return problems;
}

}  // namespace distsim::model
