#pragma once

namespace distsim::model {

//! How a router scores the experts before it keeps the top k: one softmax over all experts
//! (Mixtral, Qwen3-MoE) or an independent sigmoid per expert (DeepSeek-V3, arXiv 2412.19437 §2.1.2).
enum class RouterScoring { softmax, sigmoid };

//! The mixture-of-experts layers of a model, in Megatron-Core's terms (--num-experts,
//! --moe-router-topk, --moe-ffn-hidden-size, --moe-shared-expert-intermediate-size,
//! --moe-layer-freq, --moe-router-score-function, --moe-expert-capacity-factor). Every expert is an
//! MLP of the model's ffn_type. A model without routed experts is dense.
struct MoeSpec {
  int num_experts = 0;                    //!< routed experts per MoE layer; 0: a dense model
  int top_k = 0;                          //!< routed experts each token goes to
  int expert_ffn_hidden_size = 0;         //!< FFN size of one routed expert
  int shared_experts = 0;                 //!< experts every token goes to, besides its top k
  int shared_expert_ffn_hidden_size = 0;  //!< FFN size of one shared expert
  int first_dense_layers = 0;             //!< leading layers with a dense MLP (DeepSeek's first_k_dense_replace)
  int layer_interval = 1;                 //!< after those, every layer_interval-th layer is MoE, the last of each run
  RouterScoring router_scoring = RouterScoring::softmax;
  int router_groups = 0;         //!< expert groups a token's top k are drawn from; 0: no grouping
  int router_group_top_k = 0;    //!< groups a token may use (DeepSeek-V3: 4 of 8, at most 4 nodes)
  double capacity_factor = 0.0;  //!< tokens an expert takes over its even share; 0: dropless

  bool enabled() const { return num_experts > 0; }
  bool dropless() const { return capacity_factor <= 0.0; }
  bool operator==(const MoeSpec&) const = default;

  //! Whether decoder layer `layer` (0-based) has experts in place of its dense MLP: layers
  //! first_dense_layers + k·layer_interval − 1 for k = 1, 2, ... (every layer when the interval is
  //! 1, as in Qwen3-MoE's decoder_sparse_step: layer i is sparse when (i + 1) % step == 0).
  bool is_moe_layer(int layer) const {
    return enabled() && layer >= first_dense_layers && layer_interval > 0 &&
           (layer - first_dense_layers + 1) % layer_interval == 0;
  }
};

}  // namespace distsim::model
