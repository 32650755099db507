#include "memory/activation_memory.hpp"

#include <algorithm>
#include <cmath>

#include "core/checked_arithmetic.hpp"
#include "core/dtype.hpp"
#include "events/job_events.hpp"
#include "events/moe_routing.hpp"
#include "memory/model_state_memory.hpp"
#include "model/layer_plan.hpp"

namespace distsim::memory {

namespace {

//! Activations are 16-bit unless the job trains in fp32; fp8 jobs keep bf16 activations
//! (core/dtype.hpp: only GEMM inputs run in fp8).
std::int64_t element_bytes(Dtype dtype) { return dtype == Dtype::fp32 ? 4 : 2; }

constexpr std::int64_t kMaskBytes = 1;

//! A saved GEMM input: TransformerEngine keeps a low-precision GEMM's input in the format for the
//! weight-gradient GEMM (fp8 transposed; mxfp8 and nvfp4 their columnwise copy with its block
//! scales; docs/memory_model.md "FP8 GEMMs", docs/precision.md).
double gemm_input_bytes(const strategy::Strategy& strategy) {
  return strategy.low_precision_gemms() ? storage_bytes(strategy::gemm_dtype(strategy.gemm_format, strategy.dtype))
                                        : static_cast<double>(element_bytes(strategy.dtype));
}

std::int64_t whole(double bytes) { return std::llround(bytes); }

bool is_decoder_layer_of_encoder_decoder(const model::ModelSpec& model, int layer) {
  return model.architecture == model::Architecture::encoder_decoder && layer >= model.num_layers;
}

//! The tokens of a micro-batch that one rank holds: b·s, or its s/cp share with context parallelism.
std::int64_t tokens_of_layer(const model::ModelSpec& model, const strategy::Strategy& strategy, int layer) {
  const int seq = is_decoder_layer_of_encoder_decoder(model, layer) ? model.target_seq_length() : model.seq_length;
  return static_cast<std::int64_t>(seq) * strategy.micro_batch_size / strategy.context_parallel;
}

//! The two parts of a layer's activations: tensors of the full width h that tensor parallelism
//! alone leaves replicated (sequence parallelism shards them), and tensors already split by it.
struct LayerParts {
  std::int64_t sequence_sharded = 0;
  std::int64_t tensor_split = 0;
};

//! One attention block: norm input, the GEMM input after the norm, the output dropout mask
//! (replicated); q, k, v and the output projection's input (split); unfused, the scores:
//! softmax output, its dropout mask and the dropout output, 5·a·s·s_kv·b bytes in 16-bit. With
//! fp8 GEMMs the norm's output is kept in fp8, and the output projection keeps an fp8 copy of its
//! input besides the 16-bit one attention keeps for its own backward.
void add_attention_block(LayerParts& parts, const model::ModelSpec& model, const strategy::Strategy& strategy,
                         std::int64_t tokens, std::int64_t kv_tokens, bool keep_scores, bool qk_norm) {
  const std::int64_t e = element_bytes(strategy.dtype);
  const int tp = strategy.tensor_parallel;
  const std::int64_t h = model.hidden_size;
  const std::int64_t q = static_cast<std::int64_t>(model.num_attention_heads) * model.head_dim() / tp;
  const std::int64_t kv = static_cast<std::int64_t>(model.num_kv_heads) * model.head_dim() / tp;
  const double g = gemm_input_bytes(strategy);
  parts.sequence_sharded += whole((static_cast<double>(e + kMaskBytes) + g) * static_cast<double>(tokens * h));
  parts.tensor_split += e * (2 * tokens * q + 2 * kv_tokens * kv);
  if (qk_norm) {  // the per-head norms keep their inputs, the query and key before the norm
    parts.tensor_split += e * tokens * (q + kv);
  }
  if (strategy.low_precision_gemms()) {
    parts.tensor_split += whole(g * static_cast<double>(tokens * q));
  }
  if (keep_scores) {
    const std::int64_t heads = model.num_attention_heads / tp;
    const std::int64_t score_elements = heads * tokens * (kv_tokens / strategy.micro_batch_size);
    parts.tensor_split += (2 * e + kMaskBytes) * score_elements;
  }
}

//! A cross-attention block: an attention block over the encoder's output, whose low-precision
//! copy the cross kv projection keeps too.
void add_cross_attention_block(LayerParts& parts, const model::ModelSpec& model, const strategy::Strategy& strategy,
                               std::int64_t tokens, bool keep_scores) {
  const std::int64_t encoder_tokens = static_cast<std::int64_t>(model.seq_length) * strategy.micro_batch_size;
  add_attention_block(parts, model, strategy, tokens, encoder_tokens, keep_scores, model.qk_norm);
  if (strategy.low_precision_gemms()) {
    parts.sequence_sharded +=
        whole(gemm_input_bytes(strategy) * static_cast<double>(encoder_tokens * model.hidden_size));
  }
}

//! A latent-attention block (Megatron-Core MLASelfAttention), per rank. Hidden-wide (sharded by
//! sequence parallelism): the norm input, the down-projections' input, the output dropout mask.
//! The latents, which the duplicated down-projections write for this rank's rows (sharded the
//! same way): the query and key/value latents as the latent norms' inputs and, normalized, as the
//! up-projections' inputs. Split over the heads: the query and key of qk_nope + qk_rope per head
//! and the value and attention output of v_head_dim per head, which the fused attention keeps for
//! its backward (RoPE and the concatenations keep nothing: the rotation needs only its angles).
//! Recomputing the up-projections (mla_up_proj) drops the queries, keys and values: Megatron-Core
//! frees its checkpoint's outputs once the attention has run, keeping the attention output.
void add_latent_attention_block(LayerParts& parts, const model::ModelSpec& model, const strategy::Strategy& strategy,
                                std::int64_t tokens, strategy::Recompute recompute) {
  const model::MlaSpec& mla = model.mla;
  const std::int64_t e = element_bytes(strategy.dtype);
  const double g = gemm_input_bytes(strategy);
  const std::int64_t heads = model.num_attention_heads / strategy.tensor_parallel;
  const std::int64_t latents = std::int64_t{mla.q_lora_rank} + mla.kv_lora_rank;
  parts.sequence_sharded +=
      whole((static_cast<double>(e + kMaskBytes) + g) * static_cast<double>(tokens * model.hidden_size));
  parts.sequence_sharded += whole((static_cast<double>(e) + g) * static_cast<double>(tokens * latents));
  const std::int64_t queries_keys_values =
      recompute == strategy::Recompute::mla_up_proj ? 0 : 2 * std::int64_t{mla.qk_head_dim()} + mla.v_head_dim;
  parts.tensor_split += e * tokens * heads * (queries_keys_values + mla.v_head_dim);
  if (strategy.low_precision_gemms()) {
    parts.tensor_split += whole(g * static_cast<double>(tokens * heads * mla.v_head_dim));
  }
}

//! The MLP block: norm input, FC1 input, output dropout mask (replicated); the activation
//! function's input and FC2's input (split). SwiGLU's input is the 2f-wide gate-and-up output.
//! With fp8 GEMMs FC1's and FC2's inputs are kept in fp8.
void add_mlp_block(LayerParts& parts, const model::ModelSpec& model, const strategy::Strategy& strategy,
                   std::int64_t tokens) {
  const std::int64_t e = element_bytes(strategy.dtype);
  const std::int64_t f = model.ffn_hidden_size / strategy.tensor_parallel;
  const std::int64_t activation_input = model::is_gated(model.ffn_type) ? 2 * f : f;
  const double g = gemm_input_bytes(strategy);
  parts.sequence_sharded +=
      whole((static_cast<double>(e + kMaskBytes) + g) * static_cast<double>(tokens * model.hidden_size));
  parts.tensor_split += e * tokens * activation_input + whole(g * static_cast<double>(tokens * f));
}

//! An MoE block in place of the MLP, per rank. Replicated (sharded by sequence parallelism): the
//! norm input, the router's input and the output dropout mask. Routing buffers of the router's
//! T tokens (a 1/t shard under sequence parallelism): fp32 probabilities and the 1-byte routing
//! map over the E experts. The busiest expert rank's R routed copies (events'
//! moe_tokens_per_expert x local experts, the expert tensor group's under etp > 1): FC1's input,
//! the activation's input (a 1/etp slice of the FFN), FC2's input and the expert outputs that
//! unpermutation weighs by the probabilities. Shared experts as an MLP.
void add_moe_block(LayerParts& parts, const model::ModelSpec& model, const strategy::Strategy& strategy,
                   std::int64_t tokens) {
  const auto& moe = model.moe;
  const std::int64_t e = element_bytes(strategy.dtype);
  const double g = gemm_input_bytes(strategy);
  const std::int64_t h = model.hidden_size;
  const bool gated = model::is_gated(model.ffn_type);
  parts.sequence_sharded += (2 * e + kMaskBytes) * tokens * h;
  const std::int64_t router_tokens = strategy.sequence_parallel ? tokens / strategy.tensor_parallel : tokens;
  constexpr std::int64_t kProbabilityBytes = 4;
  parts.tensor_split += (kProbabilityBytes + kMaskBytes) * router_tokens * moe.num_experts;
  const std::int64_t local_experts = moe.num_experts / strategy.expert_parallel;
  const std::int64_t copies = events::moe_tokens_per_expert(model, strategy, router_tokens) * local_experts;
  const std::int64_t f = moe.expert_ffn_hidden_size / strategy.expert_tensor_parallel;
  parts.tensor_split += copies * (e * (gated ? 2 * f : f) + e * h) + whole(g * static_cast<double>(copies * (h + f)));
  if (moe.shared_experts > 0) {
    const std::int64_t shared =
        std::int64_t{moe.shared_experts} * moe.shared_expert_ffn_hidden_size / strategy.tensor_parallel;
    parts.sequence_sharded += whole(g * static_cast<double>(tokens * h));
    parts.tensor_split += e * tokens * (gated ? 2 * shared : shared) + whole(g * static_cast<double>(tokens * shared));
  }
}

//! A Mamba-2 block, per rank (Megatron-Core's MambaMixer on mamba_ssm's
//! mamba_split_conv1d_scan_combined). Hidden-wide (sharded by sequence parallelism): the norm
//! input, the input projection's input, the output dropout mask. Split over the heads: what the
//! combined scan saves, the input projection's output z, x, B, C and dt (its backward reruns the
//! convolution) and the scan's output before the gate; the gated output, which the group RMSNorm
//! keeps; the output projection's input, in the GEMM format.
void add_mamba_block(LayerParts& parts, const model::ModelSpec& model, const strategy::Strategy& strategy,
                     std::int64_t tokens) {
  const model::MambaSpec& mamba = model.mamba;
  const std::int64_t e = element_bytes(strategy.dtype);
  const double g = gemm_input_bytes(strategy);
  const int tp = strategy.tensor_parallel;
  parts.sequence_sharded +=
      whole((static_cast<double>(e + kMaskBytes) + g) * static_cast<double>(tokens * model.hidden_size));
  const std::int64_t inner = mamba.inner() / tp;
  parts.tensor_split +=
      e * tokens * (mamba.in_projection() / tp + 2 * inner) + whole(g * static_cast<double>(tokens * inner));
}

std::int64_t shard_over_sequence(std::int64_t bytes, const strategy::Strategy& strategy) {
  return strategy.sequence_parallel ? ceil_div(bytes, strategy.tensor_parallel) : bytes;
}

std::int64_t stored_layer_bytes(const model::ModelSpec& model, const strategy::Strategy& job_strategy, int layer,
                                AttentionKernel kernel, strategy::Recompute recompute) {
  // A layer kept in bf16 under a low-precision format stores what a bf16 job's layer does.
  strategy::Strategy strategy = job_strategy;
  if (!layer_in_low_precision(model, job_strategy, layer)) {
    strategy.gemm_format = strategy::GemmFormat::none;
  }
  const std::int64_t tokens = tokens_of_layer(model, strategy, layer);
  if (recompute == strategy::Recompute::full) {
    return shard_over_sequence(element_bytes(strategy.dtype) * tokens * model.hidden_size, strategy);
  }
  // The job's own attention (strategy.attention) decides unless a caller asks for Table 2's baseline.
  const bool unfused = kernel == AttentionKernel::unfused || strategy.attention == strategy::Attention::unfused;
  const bool keep_scores = unfused && recompute == strategy::Recompute::none;
  LayerParts parts;
  for (const model::LayerBlock block : model::layer_plan(model, layer)) {
    switch (block) {
      case model::LayerBlock::self_attention:
        add_attention_block(parts, model, strategy, tokens, tokens, keep_scores,
                            model.normalizes_query_key_heads(layer));
        break;
      case model::LayerBlock::latent_attention:
        add_latent_attention_block(parts, model, strategy, tokens, recompute);
        break;
      case model::LayerBlock::cross_attention:
        add_cross_attention_block(parts, model, strategy, tokens, keep_scores);
        break;
      case model::LayerBlock::mlp: add_mlp_block(parts, model, strategy, tokens); break;
      case model::LayerBlock::moe: add_moe_block(parts, model, strategy, tokens); break;
      case model::LayerBlock::mamba: add_mamba_block(parts, model, strategy, tokens); break;
    }
  }
  return shard_over_sequence(parts.sequence_sharded, strategy) + parts.tensor_split;
}

//! What one layer's recomputation brings back while its backward runs, one layer at a time: the
//! whole layer under full recomputation, the queries, keys and values under mla_up_proj.
std::int64_t rebuilt_layer_bytes(const model::ModelSpec& model, const strategy::Strategy& strategy, int layer,
                                 std::int64_t kept) {
  const auto whole_layer = [&] {
    return stored_layer_bytes(model, strategy, layer, AttentionKernel::fused, strategy::Recompute::none);
  };
  switch (strategy.recompute) {
    case strategy::Recompute::full: return whole_layer();
    case strategy::Recompute::mla_up_proj: return whole_layer() - kept;
    case strategy::Recompute::none:
    case strategy::Recompute::selective: return 0;
  }
  return 0;
}

}  // namespace

std::int64_t layer_activation_bytes(const model::ModelSpec& model, const strategy::Strategy& strategy, int layer,
                                    AttentionKernel kernel) {
  return stored_layer_bytes(model, strategy, layer, kernel, strategy.recompute);
}

std::int64_t embedding_activation_bytes(const model::ModelSpec& model, const strategy::Strategy& strategy) {
  constexpr std::int64_t kTokenIdBytes = 8;
  std::int64_t tokens = static_cast<std::int64_t>(model.seq_length) * strategy.micro_batch_size;
  if (model.architecture == model::Architecture::encoder_decoder) {
    tokens += static_cast<std::int64_t>(model.target_seq_length()) * strategy.micro_batch_size;
  }
  tokens /= strategy.context_parallel;
  return shard_over_sequence(tokens * (kTokenIdBytes + kMaskBytes * model.hidden_size), strategy);
}

std::int64_t head_activation_bytes(const model::ModelSpec& model, const strategy::Strategy& strategy) {
  constexpr std::int64_t kSoftmaxBytes = 4;
  const std::int64_t tokens = tokens_of_layer(model, strategy, model.total_layers() - 1);
  const std::int64_t norm_tensors = 2 * element_bytes(strategy.dtype) * tokens * model.hidden_size;
  const std::int64_t vocab_shard =
      events::padded_vocab(model.vocab_size, strategy.tensor_parallel) / strategy.tensor_parallel;
  return shard_over_sequence(norm_tensors, strategy) + kSoftmaxBytes * tokens * vocab_shard;
}

std::int64_t mtp_activation_bytes(const model::ModelSpec& model, const strategy::Strategy& strategy) {
  constexpr std::int64_t kTokenIdBytes = 8;
  std::int64_t total = 0;
  for (int layer = model.num_layers; layer < model.num_layers + model.mtp_layers; ++layer) {
    const std::int64_t tokens = tokens_of_layer(model, strategy, layer);
    const std::int64_t e = element_bytes(strategy.dtype);
    // The shifted token ids, the two norms' inputs and the 2h-wide concatenation eh_proj keeps.
    const std::int64_t inputs = e * tokens * model.hidden_size * 2 + e * tokens * 2 * model.hidden_size;
    total += tokens * kTokenIdBytes + shard_over_sequence(inputs, strategy) +
             layer_activation_bytes(model, strategy, layer) + head_activation_bytes(model, strategy);
  }
  return total;
}

std::int64_t stage_activation_bytes(const model::ModelSpec& model, const strategy::Strategy& strategy,
                                    const std::vector<events::ChunkPlacement>& chunks, double microbatches_in_flight) {
  // One micro-batch through every chunk of the stage; microbatches_in_flight counts a chunk as
  // 1/chunks of it, which is exact when the chunks hold equal work (an even split) and the mean
  // chunk's share under a custom pipeline layout.
  std::int64_t per_microbatch = 0;
  std::int64_t rebuilt_layer = 0;
  for (const auto& chunk : chunks) {
    const events::LayerRange layers = chunk.layers;
    for (int layer = layers.first; layer < layers.first + layers.count; ++layer) {
      const std::int64_t kept = layer_activation_bytes(model, strategy, layer);
      per_microbatch += kept;
      rebuilt_layer = std::max(rebuilt_layer, rebuilt_layer_bytes(model, strategy, layer, kept));
    }
    if (chunk.embedding) {
      per_microbatch += embedding_activation_bytes(model, strategy);
    }
    if (chunk.head) {
      per_microbatch += head_activation_bytes(model, strategy) + mtp_activation_bytes(model, strategy);
    }
  }
  return std::llround(microbatches_in_flight * static_cast<double>(per_microbatch)) + rebuilt_layer;
}

}  // namespace distsim::memory
