#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "model/ffn_type.hpp"
#include "model/mamba_spec.hpp"
#include "model/mla_spec.hpp"
#include "model/moe_spec.hpp"

namespace distsim::model {

//! Which transformer stack the model is: GPT-like, BERT-like, or T5-like.
enum class Architecture { decoder, encoder, encoder_decoder };
enum class NormType { layernorm, rmsnorm };
//! learned: a position table added after the token embedding; rope: rotary on q and k;
//! relative: T5's bias added to the attention scores (no extra kernel of note); none: no
//! position information but the order causal attention and Mamba's scan see (Nemotron-H).
enum class PositionEmbedding { learned, rope, relative, none };
//! Which decoder layers attend within the sliding window: all of them, or alternate ones by
//! 0-based index (GPT-OSS's `layer_types` starts "sliding_attention", "full_attention", ...: the
//! even layers slide, as in Gemma 2).
enum class WindowLayers { all, even, odd };

//! The largest width, length or count of a model's shape (hidden and FFN sizes, heads, vocabulary,
//! sequence length) that distsim computes with: 2^24 = 16,777,216, a hundred times the largest
//! published shapes, and small enough that products of a few of them (tokens x width x bytes) fit
//! 64 bits.
inline constexpr int kLargestDimension = 1 << 24;

//! The architecture of a transformer model, in Megatron-LM's terms (docs/reference
//! docs/reference/formats.md §5.1). For encoder-decoder models `num_layers` counts the encoder layers.
struct ModelSpec {
  std::string name;
  std::string description;
  std::string source;  //!< where the shape comes from (paper, config file)
  Architecture architecture = Architecture::decoder;
  int num_layers = 0;
  int decoder_num_layers = 0;  //!< encoder-decoder only
  int hidden_size = 0;
  int num_attention_heads = 0;
  int num_kv_heads = 0;  //!< query groups; equals num_attention_heads for multi-head attention
  int kv_channels = 0;   //!< head dimension; 0 means hidden_size / num_attention_heads
  int ffn_hidden_size = 0;
  FfnType ffn_type = FfnType::gelu;
  NormType norm = NormType::layernorm;
  PositionEmbedding position_embedding = PositionEmbedding::learned;
  int vocab_size = 0;
  int seq_length = 0;
  int decoder_seq_length = 0;  //!< encoder-decoder only; 0 means seq_length
  bool tie_embeddings = true;  //!< input embedding and LM head share one weight
  //! Biases on the linear layers; unset means the Megatron-LM default: with LayerNorm (GPT, BERT,
  //! T5), not with RMSNorm. Nemotron-4 has LayerNorm and no biases (arXiv 2402.16819 §2).
  std::optional<bool> linear_biases{};
  bool qkv_bias = false;  //!< biases on the Q, K and V projections without LayerNorm biases (Qwen2)
  bool qk_norm = false;   //!< RMSNorm over each query and key head before RoPE (Qwen3)
  MoeSpec moe{};          //!< mixture-of-experts layers; none for a dense model
  MlaSpec mla{};          //!< multi-head latent attention; none for standard attention
  int mtp_layers = 0;     //!< multi-token prediction modules after the last layer (DeepSeek-V3: 1)
  //! Keys each query of a sliding-window layer attends to, itself included (Hugging Face's
  //! `sliding_window`: key j is seen by query i when i - w < j <= i); 0: every layer attends fully.
  int sliding_window = 0;
  WindowLayers window_layers = WindowLayers::all;
  //! Layers below it attend fully whatever `window_layers` says (Qwen2 and Qwen3's
  //! `max_window_layers`: layer i slides when i >= max_window_layers).
  int window_start_layer = 0;
  //! A learned logit per query head added to each softmax denominator (GPT-OSS's attention sinks).
  bool attention_sinks = false;
  //! iRoPE (Llama 4; Megatron-Bridge's nope_layer_interval): layer i has no rotary position
  //! embedding when (i + 1) % nope_layer_interval == 0; 0: every layer of a RoPE model rotates.
  int nope_layer_interval = 0;
  //! Llama 4's QK norm (Megatron-Bridge's qk_l2_norm): each query and key head of a layer that
  //! rotates positions scaled by the root mean square of its elements, without a learned scale.
  bool qk_l2_norm = false;
  //! Queries attend only to the keys of their own chunk of this many tokens (Llama 4's
  //! attention_chunk_size); 0: no chunks. Megatron-Bridge's Llama 4 attention pads the sequence to
  //! whole chunks and runs each chunk as a sequence of its own, in every layer.
  int attention_chunk_size = 0;
  //! A hybrid model's layers, one symbol each (Megatron-Core's hybrid_override_pattern, Hugging
  //! Face NemotronH's hybrid_override_pattern): 'M' a Mamba-2 layer, '*' an attention layer, '-' an
  //! MLP layer, 'E' a mixture-of-experts layer, each a single block with its own norm and residual.
  //! Empty: every layer is a transformer layer (attention, then MLP or experts).
  std::string hybrid_pattern{};
  MambaSpec mamba{};  //!< the Mamba-2 mixer of the 'M' layers

  bool operator==(const ModelSpec&) const = default;
  bool has_linear_biases() const { return linear_biases.value_or(norm == NormType::layernorm); }
  int head_dim() const { return kv_channels > 0 ? kv_channels : hidden_size / num_attention_heads; }
  int total_layers() const { return num_layers + decoder_num_layers; }
  int target_seq_length() const {
    return architecture == Architecture::encoder_decoder && decoder_seq_length > 0 ? decoder_seq_length : seq_length;
  }
  //! Decoder self-attention is causal; encoder attention sees the whole sequence.
  bool causal_self_attention() const { return architecture != Architecture::encoder; }
  //! Whether layer `layer` applies rotary position embedding to its queries and keys.
  bool rotates_positions(int layer) const {
    return position_embedding == PositionEmbedding::rope &&
           (nope_layer_interval <= 0 || (layer + 1) % nope_layer_interval != 0);
  }
  //! Whether layer `layer` normalizes each query and key head: Qwen3's RMSNorm with a learned
  //! scale in every layer, or Llama 4's scale-free one in the layers that rotate positions.
  bool normalizes_query_key_heads(int layer) const { return qk_norm || (qk_l2_norm && rotates_positions(layer)); }
  //! The chunks a self-attention over `seq` tokens runs as: ⌈seq / attention_chunk_size⌉ when the
  //! sequence is longer than a chunk, else 1 (the whole sequence).
  std::int64_t attention_chunks(std::int64_t seq) const {
    return attention_chunk_size > 0 && seq > attention_chunk_size
               ? (seq + attention_chunk_size - 1) / attention_chunk_size
               : 1;
  }
  //! The sliding window of layer `layer` (0-based; multi-token prediction layers follow the
  //! decoder's numbering), or 0 when it attends to the whole causal prefix.
  int attention_window(int layer) const {
    if (layer < window_start_layer) {
      return 0;
    }
    switch (window_layers) {
      case WindowLayers::even: return layer % 2 == 0 ? sliding_window : 0;
      case WindowLayers::odd: return layer % 2 == 1 ? sliding_window : 0;
      case WindowLayers::all: break;
    }
    return sliding_window;
  }
};

}  // namespace distsim::model
