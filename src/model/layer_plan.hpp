#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "model/model_spec.hpp"

namespace distsim::model {

//! The blocks layers are made of. Each block has its own pre-norm and residual connection. A
//! transformer layer is an attention block, then an MLP block; a decoder layer of an
//! encoder-decoder model has a cross-attention block between the two.
//! Which block a layer runs is decided once, by layer_plan. Everything that differs by block
//! dispatches on this: the parameters (block_parameters), the passes' events
//! (events::PassBuilder), the activations kept for backward (memory/activation_memory).
enum class LayerBlock {
  self_attention,    //!< causal or bidirectional self-attention over Q, K, V and output projections
  latent_attention,  //!< multi-head latent attention in place of it (MlaSpec)
  cross_attention,   //!< attention of the decoder's tokens over the encoder's output
  mlp,               //!< a dense MLP of the model's ffn_type
  moe,               //!< routed experts, shared experts and their router in place of the MLP (MoeSpec)
  mamba,             //!< a Mamba-2 mixer (MambaSpec), a hybrid model's 'M' layer
};

//! The block a hybrid pattern's symbol names (ModelSpec::hybrid_pattern), if any.
std::optional<LayerBlock> hybrid_block(char symbol, const ModelSpec& model);

//! The blocks of one layer, in forward order.
struct LayerPlan {
  static constexpr int kMaxBlocks = 3;
  std::array<LayerBlock, kMaxBlocks> blocks{};
  int count = 0;

  const LayerBlock* begin() const { return blocks.data(); }
  const LayerBlock* end() const { return blocks.data() + count; }
  bool operator==(const LayerPlan& other) const {
    return count == other.count && std::equal(begin(), end(), other.begin());
  }
};

//! The blocks of layer `layer` (0-based over ModelSpec::total_layers(); the multi-token prediction
//! modules' layers follow at num_layers, ...): in a hybrid model the one block its pattern's symbol
//! names (validation keeps the pattern to known symbols, one per layer); otherwise latent
//! attention where the model has it, else self-attention; cross-attention in the decoder of an
//! encoder-decoder model; experts where MoeSpec::is_moe_layer says so, else a dense MLP.
inline LayerPlan layer_plan(const ModelSpec& model, int layer) {
  LayerPlan plan;
  if (layer >= 0 && static_cast<std::size_t>(layer) < model.hybrid_pattern.size()) {
    plan.blocks[plan.count++] =
        hybrid_block(model.hybrid_pattern[static_cast<std::size_t>(layer)], model).value_or(LayerBlock::mlp);
    return plan;
  }
  plan.blocks[plan.count++] = model.mla.enabled() ? LayerBlock::latent_attention : LayerBlock::self_attention;
  if (model.architecture == Architecture::encoder_decoder && layer >= model.num_layers) {
    plan.blocks[plan.count++] = LayerBlock::cross_attention;
  }
  plan.blocks[plan.count++] = model.moe.is_moe_layer(layer) ? LayerBlock::moe : LayerBlock::mlp;
  return plan;
}

//! How a parameter is laid out over the ranks that hold its layer (Megatron-Core's parallel modes).
enum class ParameterSplit {
  //! Split over the tensor-parallel group: column- and row-parallel GEMM weights and their biases.
  //! The norms too, as Megatron-LM's memory estimator counts them (they are replicated; < 0.1 %).
  tensor,
  //! Whole on every tensor-parallel rank: latent attention's down-projections and latent norms
  //! (Megatron-Core builds them as TELinear with parallel_mode 'duplicated').
  duplicated,
  //! A routed expert's: each rank holds E/ep of the experts, each split over the expert tensor group.
  expert,
};

//! One parameter tensor of a block.
struct ParameterTensor {
  std::string_view name;
  std::int64_t elements = 0;
  ParameterSplit split = ParameterSplit::tensor;
  //! A linear GEMM's weight that runs in the job's low-precision format (TransformerEngine keeps
  //! a copy in it); not a bias, a norm, or the router's gate (Megatron-Core keeps it in 16 bits).
  bool low_precision_gemm = false;
};

//! The parameter tensors of one block of `model`, its pre-norm included.
std::vector<ParameterTensor> block_parameters(const ModelSpec& model, LayerBlock block);

//! Parameters summed by how they are split, all of them and those in the low-precision format.
struct ParameterSums {
  std::int64_t tensor = 0;
  std::int64_t duplicated = 0;
  std::int64_t expert = 0;
  std::int64_t low_precision_tensor = 0;
  std::int64_t low_precision_duplicated = 0;
  std::int64_t low_precision_expert = 0;

  std::int64_t total() const { return tensor + duplicated + expert; }
  //! What data parallelism reduces with the dense parameters: all but the routed experts.
  std::int64_t dense() const { return tensor + duplicated; }
  void add(const ParameterTensor& parameter);
  ParameterSums times(std::int64_t copies) const;
  ParameterSums& operator+=(const ParameterSums& other);
};

ParameterSums block_parameter_sums(const ModelSpec& model, LayerBlock block);

//! Every block of layer `layer` (layer_plan).
ParameterSums layer_parameter_sums(const ModelSpec& model, int layer);

//! Layers first, ..., first + count − 1 summed; each distinct run of alike layers is counted once.
ParameterSums layers_parameter_sums(const ModelSpec& model, int first, int count);

//! One multi-token prediction module (DeepSeek-V3, arXiv 2412.19437 §2.2): the norms of the hidden
//! state and of the next token's embedding, the 2h → h projection, one layer (layer_plan at
//! num_layers) and the norm before the output head. The embedding and output head are the main
//! model's.
ParameterSums mtp_module_parameter_sums(const ModelSpec& model);

}  // namespace distsim::model
