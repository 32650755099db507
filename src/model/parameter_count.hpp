#pragma once

#include <cstdint>

#include "model/layer_plan.hpp"
#include "model/model_spec.hpp"

namespace distsim::model {

//! One tensor-parallel rank's share of `parameters`, of which `duplicated` are held whole on
//! every rank and the rest split evenly (floor, as Megatron-LM's shards are).
std::int64_t tensor_rank_parameters(std::int64_t parameters, std::int64_t duplicated, int tensor_parallel);

//! The parameters of `sums` that one token's forward pass uses: top_k of the routed experts
//! (model/layer_plan.hpp counts the layers' parameters).
std::int64_t active_part(const ModelSpec& model, const ParameterSums& sums);

//! Token embedding plus the learned position table, if any.
std::int64_t embedding_parameters(const ModelSpec& model);

//! The final norm, and the output projection when it is not tied to the embedding.
std::int64_t head_parameters(const ModelSpec& model);

//! Every parameter of the model, the multi-token prediction modules included.
std::int64_t total_parameters(const ModelSpec& model);

//! The parameters one token's forward pass uses: total_parameters with each MoE layer's experts
//! cut to its top k routed experts (active_part). The embedding table and output head are counted whole, as
//! the published "active" figures do (Mixtral's 12.9B, arXiv 2401.04088 §2, includes them).
std::int64_t active_parameters(const ModelSpec& model);

}  // namespace distsim::model
