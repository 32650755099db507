#pragma once

#include <string>

#include "io/document/mapping_reader.hpp"
#include "model/model_spec.hpp"

namespace distsim::io {

//! Reads a model in distsim's own schema: the ModelSpec field names, with architecture
//! decoder | encoder | encoder-decoder, ffn_type gelu | swiglu, norm layernorm | rmsnorm and
//! position_embedding learned | rope | relative, and for mixture-of-experts and latent-attention
//! models the `moe:` and `mla:` mappings (docs/moe_models.md), checked by model::moe_problems and
//! model::mla_problems.
//!
//! Starts from `base` (the entry the file's `base:` key named; null when it has none) or, without
//! one, requires num_layers, hidden_size, num_attention_heads, vocab_size and seq_length and
//! defaults the rest. Fields derived from others follow them when the file does not set them and
//! the base used the same derivation: num_kv_heads = num_attention_heads (multi-head attention),
//! ffn_hidden_size = 4h for gelu or Megatron's int(8h/3/64)·64 for swiglu, and for
//! encoder-decoder models decoder_num_layers = num_layers. Problems go to the reader's Diagnostics.
model::ModelSpec read_model_mapping(MappingReader& reader, const model::ModelSpec* base, const std::string& file);

}  // namespace distsim::io
