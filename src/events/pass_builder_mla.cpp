#include "events/pass_builder.hpp"

// The latent-attention block of PassBuilder, as Megatron-Core's MLASelfAttention runs it
// (megatron/core/transformer/multi_latent_attention.py): the down-projections of the queries and
// of the keys and values (TELinear with parallel_mode 'duplicated': every tensor-parallel rank holds
// the whole weight and projects its own rows), the latent norms, the column-parallel
// up-projections that split the heads over the tensor group, RoPE on the decoupled parts, the
// fused attention with query/key heads of qk_nope + qk_rope and value heads of v_head_dim, and the
// row-parallel output projection.
namespace distsim::events {

std::int64_t PassBuilder::latent_heads() const { return model_.num_attention_heads / tp_; }

std::int64_t PassBuilder::latent_query_width() const { return latent_heads() * model_.mla.qk_head_dim(); }

std::int64_t PassBuilder::latent_kv_up_width() const {
  return latent_heads() * (model_.mla.qk_nope_head_dim + model_.mla.v_head_dim);
}

std::int64_t PassBuilder::latent_value_width() const { return latent_heads() * model_.mla.v_head_dim; }

std::int64_t PassBuilder::latent_kv_down_width() const {
  return std::int64_t{model_.mla.kv_lora_rank} + model_.mla.qk_rope_head_dim;
}

// In an fp8 layer the latent norm writes the up-projection's fp8 input, as the input norm does
// for the QKV projection (Megatron-Core fuses it into TELayerNormColumnParallelLinear).
void PassBuilder::latent_norm_forward(Sink sink, std::int64_t rows, std::int64_t cols, int layer,
                                      std::string_view label) {
  if (in_low_precision(layer) && gemm_format_ == strategy::GemmFormat::fp8) {
    add(sink, factory_.norm_to_fp8(norm_op(), rows, cols), layer, label);
    return;
  }
  add(sink, factory_.elementwise(norm_op(), rows, cols, 1, 1), layer, label);
  quantize_operand(sink, rows, cols, layer);
}

// Under sequence parallelism each rank projects down its 1/t shard of the rows, so a
// column-parallel up-projection gathers the latent (t·width elements), not the hidden states.
int PassBuilder::gather_latent(Sink sink, std::int64_t token_count, std::int64_t width, int layer) {
  if (!sequence_parallel_) {
    return -1;
  }
  return tensor_collective(sink, Collective::all_gather, token_count * width * element_bytes_, layer);
}

void PassBuilder::latent_attention_forward(Sink sink, int layer) {
  const model::MlaSpec& mla = model_.mla;
  const std::int64_t t = tokens(layer);
  const std::int64_t rows = sharded(t);
  norm_forward(sink, rows, layer);
  if (mla.q_lora_rank > 0) {
    linear_forward(sink, rows, hidden(), mla.q_lora_rank, layer, "q down");
  }
  linear_forward(sink, rows, hidden(), latent_kv_down_width(), layer, "kv down");
  if (mla.q_lora_rank > 0) {
    latent_norm_forward(sink, rows, mla.q_lora_rank, layer, "q norm");
  }
  latent_norm_forward(sink, rows, mla.kv_lora_rank, layer, "kv norm");
  latent_up_forward(sink, layer);
  const std::int64_t seq = t / batch_;
  add(sink,
      factory_.latent_attention(false, batch_, latent_heads(), seq, seq, mla.qk_head_dim(), mla.v_head_dim,
                                model_.causal_self_attention()),
      layer, "attention");
  linear_forward(sink, t, latent_value_width(), hidden(), layer, "attention out",
                 quantize_operand(sink, t, latent_value_width(), layer));
  dropout_add_forward(sink, t, layer, reduce_partial_sums(sink, t, layer));
}

// What Megatron-Core's qkv_up_proj_and_rope_apply runs, and its mla_up_proj recomputation reruns:
// the query projection (from the latent, or from the hidden states without one), the key/value
// up-projection, and RoPE on each head's query part and on the one key part the heads share.
void PassBuilder::latent_up_forward(Sink sink, int layer) {
  const model::MlaSpec& mla = model_.mla;
  const std::int64_t t = tokens(layer);
  if (mla.q_lora_rank > 0) {
    linear_forward(sink, t, mla.q_lora_rank, latent_query_width(), layer, "q up",
                   gather_latent(sink, t, mla.q_lora_rank, layer));
  } else {
    linear_forward(sink, t, hidden(), latent_query_width(), layer, "q", gather_sequence(sink, t, layer));
  }
  // The RoPE key part bypasses the norm and the up-projection but is gathered with the latent.
  linear_forward(sink, t, mla.kv_lora_rank, latent_kv_up_width(), layer, "kv up",
                 gather_latent(sink, t, latent_kv_down_width(), layer));
  const std::int64_t rope_cols = (latent_heads() + 1) * mla.qk_rope_head_dim;
  add(sink, factory_.elementwise(Operator::rope, t, rope_cols, 1, 1), layer, "rope");
}

// dgrad, the input gradient's reduction over the tensor group, and wgrad over the re-gathered
// latent, as column_linear_backward does for a hidden-wide input. `latent_width` is what was
// gathered in forward: for the keys and values the latent and the shared RoPE key, whose
// gradient is reduced with the latent's.
int PassBuilder::latent_up_backward(std::int64_t token_count, std::int64_t in, std::int64_t out, int layer,
                                    std::string_view label, std::int64_t latent_width) {
  const int gathered_input = gather_latent(backward_sink(), token_count, latent_width, layer);
  return column_backward_gemms(token_count, in, out, latent_width, layer, label, gathered_input);
}

void PassBuilder::latent_attention_backward(int layer) {
  const model::MlaSpec& mla = model_.mla;
  const Sink sink = backward_sink();
  const std::int64_t t = tokens(layer);
  const std::int64_t rows = sharded(t);
  dropout_add_backward(t, layer);
  row_linear_backward(t, latent_value_width(), hidden(), layer, "attention out");
  // Rerun when the gradient reaches the attention's output, where Megatron-Core hooks it.
  if (recompute_ == strategy::Recompute::mla_up_proj) {
    latent_up_forward({&backward, Phase::recompute}, layer);
  }
  const std::int64_t seq = t / batch_;
  add(sink,
      factory_.latent_attention(true, batch_, latent_heads(), seq, seq, mla.qk_head_dim(), mla.v_head_dim,
                                model_.causal_self_attention()),
      layer, "attention");
  const std::int64_t rope_cols = (latent_heads() + 1) * mla.qk_rope_head_dim;
  add(sink, factory_.elementwise(Operator::rope_bwd, t, rope_cols, 1, 1), layer, "rope");
  const int kv_reduction =
      latent_up_backward(t, mla.kv_lora_rank, latent_kv_up_width(), layer, "kv up", latent_kv_down_width());
  int q_reduction = -1;
  if (mla.q_lora_rank > 0) {
    q_reduction = latent_up_backward(t, mla.q_lora_rank, latent_query_width(), layer, "q up", mla.q_lora_rank);
  }
  add(sink, factory_.elementwise(norm_backward_op(), rows, mla.kv_lora_rank, 2, 1), layer, "kv norm", kv_reduction);
  if (mla.q_lora_rank > 0) {
    add(sink, factory_.elementwise(norm_backward_op(), rows, mla.q_lora_rank, 2, 1), layer, "q norm", q_reduction);
  }
  local_linear_backward(rows, hidden(), latent_kv_down_width(), layer, "kv down");
  int reduction = -1;
  if (mla.q_lora_rank > 0) {
    local_linear_backward(rows, hidden(), mla.q_lora_rank, layer, "q down");
  } else {
    reduction = column_linear_backward(t, hidden(), latent_query_width(), layer, "q");
  }
  add(sink, factory_.elementwise(norm_backward_op(), rows, hidden(), 2, 1), layer, "norm", reduction);
}

}  // namespace distsim::events
