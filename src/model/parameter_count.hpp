#pragma once

#include <cstdint>

#include "model/model_spec.hpp"

namespace distsim::model {

//! Parameters of one transformer layer. Biases exist in LayerNorm models (GPT, BERT) and not in
//! RMSNorm models (Llama, T5). A GPT layer has 12h² + 13h (docs/reference/formats.md §6.3).
std::int64_t layer_parameters(const ModelSpec& model, bool with_cross_attention);

//! The weights of one transformer layer's linear GEMMs (QKV, attention output, FC1 with SwiGLU's
//! gate, FC2, and the cross-attention projections): layer_parameters without biases and norms.
std::int64_t layer_gemm_weights(const ModelSpec& model, bool with_cross_attention);

//! Token embedding plus the learned position table, if any.
std::int64_t embedding_parameters(const ModelSpec& model);

//! The final norm, and the output projection when it is not tied to the embedding.
std::int64_t head_parameters(const ModelSpec& model);

//! Every parameter of the model.
std::int64_t total_parameters(const ModelSpec& model);

}  // namespace distsim::model
