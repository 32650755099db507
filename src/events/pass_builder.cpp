#include "events/pass_builder.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "core/input_error.hpp"
#include "events/layer_memo.hpp"
#include "model/layer_plan.hpp"

namespace distsim::events {

namespace {

//! The activation kernels of an MLP type; `inputs` rows x ffn columns are read by the forward
//! (gate and up for a gated MLP), and the backward reads them and the output gradient and writes
//! a gradient for each.
struct Activation {
  Operator forward;
  Operator backward;
  int inputs;
};

Activation activation_of(model::FfnType type) {
  const int inputs = model::is_gated(type) ? 2 : 1;
  switch (type) {
    case model::FfnType::gelu: return {Operator::gelu, Operator::gelu_bwd, inputs};
    case model::FfnType::swiglu: return {Operator::swiglu, Operator::swiglu_bwd, inputs};
    case model::FfnType::geglu: return {Operator::geglu, Operator::geglu_bwd, inputs};
    case model::FfnType::relu: return {Operator::relu, Operator::relu_bwd, inputs};
    case model::FfnType::squared_relu: return {Operator::squared_relu, Operator::squared_relu_bwd, inputs};
  }
  return {Operator::gelu, Operator::gelu_bwd, inputs};
}

//! Timeline labels of the unfused attention core's kernels, for self- and cross-attention.
struct CoreLabels {
  std::string_view scores;
  std::string_view softmax;
  std::string_view dropout;
  std::string_view context;
};

constexpr CoreLabels kSelfCore{"attention scores", "attention softmax", "attention dropout", "attention context"};
constexpr CoreLabels kCrossCore{"cross attention scores", "cross attention softmax", "cross attention dropout",
                                "cross attention context"};

std::string_view tensor_label(Collective collective) {
  switch (collective) {
    case Collective::all_gather: return "tp all_gather";
    case Collective::reduce_scatter: return "tp reduce_scatter";
    default: return "tp all_reduce";
  }
}

}  // namespace

LayerGroups layer_groups(const strategy::JobSpec& job, const strategy::RankLayout& layout,
                         const strategy::RankCoord& coord) {
  const int a2a_size = job.strategy.cp_a2a_size;
  return {layout.tensor_group(coord),
          layout.context_group(coord),
          layout.context_level_group(coord, a2a_size, true),
          layout.context_level_group(coord, a2a_size, false),
          layout.expert_group(coord, strategy::ExpertDim::ep),
          layout.expert_group(coord, strategy::ExpertDim::etp)};
}

PassBuilder::PassBuilder(const strategy::JobSpec& job, const LayerGroups& groups, EventTable& table, LayerMemo* memo)
    : model_(job.model),
      table_(table),
      factory_(job.strategy.dtype),
      tp_(job.strategy.tensor_parallel),
      batch_(job.strategy.micro_batch_size),
      element_bytes_(dtype_bytes(job.strategy.dtype)),
      // With one tensor-parallel rank there is nothing to shard; Megatron-LM switches it off.
      sequence_parallel_(job.strategy.sequence_parallel && job.strategy.tensor_parallel > 1),
      unfused_attention_(job.strategy.attention == strategy::Attention::unfused),
      recompute_(job.strategy.recompute),
      gemm_format_(job.strategy.gemm_format),
      gemm_dtype_(strategy::gemm_dtype(job.strategy.gemm_format, job.strategy.dtype)),
      tensor_group_(groups.tensor),
      cp_(job.strategy.context_parallel),
      cp_comm_type_(job.strategy.cp_comm_type),
      context_group_(groups.context),
      context_a2a_group_(groups.context_a2a),
      context_ring_group_(groups.context_ring),
      cp_a2a_size_(job.strategy.cp_a2a_size),
      expert_group_(groups.expert),
      expert_parallel_(job.strategy.expert_parallel),
      expert_tensor_group_(groups.expert_tensor),
      expert_tensor_parallel_(job.strategy.expert_tensor_parallel),
      dispatcher_(job.strategy.moe_dispatcher),
      strategy_(job.strategy),
      groups_(groups),
      memo_(memo) {
  if (memo != nullptr && &memo->table() != &table) {
    throw InternalError("a layer memo serves the event table its event ids belong to");
  }
}

bool PassBuilder::is_decoder_of_encoder_decoder(int layer) const {
  return model_.architecture == model::Architecture::encoder_decoder && layer >= model_.num_layers;
}

std::int64_t PassBuilder::tokens(int layer) const {
  const int seq = is_decoder_of_encoder_decoder(layer) ? model_.target_seq_length() : model_.seq_length;
  return static_cast<std::int64_t>(seq) * batch_ / cp_;
}

std::int64_t PassBuilder::encoder_tokens() const { return static_cast<std::int64_t>(model_.seq_length) * batch_ / cp_; }

std::int64_t PassBuilder::query_width() const {
  return std::int64_t{model_.num_attention_heads} * model_.head_dim() / tp_;
}

std::int64_t PassBuilder::kv_width() const { return std::int64_t{model_.num_kv_heads} * model_.head_dim() / tp_; }

std::int64_t PassBuilder::ffn_up_width() const { return (model::is_gated(model_.ffn_type) ? 2 : 1) * ffn_width(); }

std::int64_t PassBuilder::vocab_width() const { return padded_vocab(model_.vocab_size, tp_) / tp_; }

Operator PassBuilder::norm_op() const {
  return model_.norm == model::NormType::rmsnorm ? Operator::rmsnorm : Operator::layernorm;
}

Operator PassBuilder::norm_backward_op() const {
  return model_.norm == model::NormType::rmsnorm ? Operator::rmsnorm_bwd : Operator::layernorm_bwd;
}

// Llama 4's scale-free QK norm is x·rsqrt(mean(x²) + ε) (Megatron-Core's L2Norm), RMSNorm's kernel
// without the scale.
Operator PassBuilder::qk_norm_op() const { return model_.qk_l2_norm ? Operator::rmsnorm : norm_op(); }

Operator PassBuilder::qk_norm_backward_op() const {
  return model_.qk_l2_norm ? Operator::rmsnorm_bwd : norm_backward_op();
}

std::int64_t PassBuilder::activation_bytes(std::int64_t token_count) const {
  return token_count * hidden() * element_bytes_;
}

int PassBuilder::add(Sink sink, const Event& event, int layer, std::string_view label, int waits_for) {
  int& input = sink.list == &forward ? forward_input_ : backward_input_;
  if (input >= 0) {
    waits_for = std::max(waits_for, std::exchange(input, -1));
  }
  sink.list->push_back({table_.intern(event), StreamKind::compute, sink.phase, layer, label, waits_for});
  int& parameters = sink.list == &forward ? forward_parameters_ : backward_parameters_;
  sink.list->back().waits_for_parameters = std::exchange(parameters, -1);
  return static_cast<int>(sink.list->size()) - 1;
}

int PassBuilder::tensor_collective(Sink sink, Collective collective, std::int64_t bytes, int layer) {
  if (tp_ == 1) {
    return -1;
  }
  const Event event = factory_.collective(collective, bytes, tensor_group_, tp_);
  sink.list->push_back({table_.intern(event), StreamKind::tp_comm, sink.phase, layer, tensor_label(collective), -1});
  return static_cast<int>(sink.list->size()) - 1;
}

int PassBuilder::gather_sequence(Sink sink, std::int64_t token_count, int layer) {
  if (!sequence_parallel_) {
    return -1;
  }
  return tensor_collective(sink, Collective::all_gather, gathered_bytes(token_count, layer), layer);
}

int PassBuilder::reduce_partial_sums(Sink sink, std::int64_t token_count, int layer) {
  const Collective collective = sequence_parallel_ ? Collective::reduce_scatter : Collective::all_reduce;
  return tensor_collective(sink, collective, activation_bytes(token_count), layer);
}

bool PassBuilder::in_low_precision(int layer) const {
  return strategy_.layer_in_low_precision(layer, model_.total_layers());
}

// TE's NVFP4 recipe (NVFP4BlockScaling) and MXFP8 recipe run all three GEMMs of a linear layer,
// forward, input gradient and weight gradient, in the format; attention stays bf16 (fp8_dpa off).
Event PassBuilder::linear_gemm(int layer, std::int64_t m, std::int64_t n, std::int64_t k) const {
  return in_low_precision(layer) ? factory_.low_precision_gemm(gemm_dtype_, m, n, k) : factory_.gemm(m, n, k);
}

void PassBuilder::norm_forward(Sink sink, std::int64_t rows, int layer) {
  if (in_low_precision(layer) && gemm_format_ == strategy::GemmFormat::fp8) {
    add(sink, factory_.norm_to_fp8(norm_op(), rows, hidden()), layer, "norm");
    return;
  }
  add(sink, factory_.elementwise(norm_op(), rows, hidden(), 1, 1), layer, "norm");
  quantize_operand(sink, rows, hidden(), layer);
}

int PassBuilder::quantize_operand(Sink sink, std::int64_t rows, std::int64_t cols, int layer, int waits_for) {
  if (!in_low_precision(layer)) {
    return waits_for;
  }
  if (gemm_format_ == strategy::GemmFormat::fp8) {
    add(sink, factory_.fp8_cast_transpose(rows, cols), layer, "fp8 cast", waits_for);
  } else {
    add(sink, factory_.block_quantize(gemm_dtype_, rows, cols), layer, "quantize", waits_for);
  }
  return -1;
}

// The block formats' recipes gather sequence-parallel inputs and gradients already quantized
// (TransformerEngine NVFP4 docs, "Distributed training": amax reduced before quantization, then a
// quantized all-gather), so the gather moves the format's bytes.
std::int64_t PassBuilder::gathered_bytes(std::int64_t token_count, int layer) const {
  const bool block_format = gemm_format_ == strategy::GemmFormat::mxfp8 || gemm_format_ == strategy::GemmFormat::nvfp4;
  if (!block_format || !in_low_precision(layer)) {
    return activation_bytes(token_count);
  }
  return static_cast<std::int64_t>(
      std::llround(static_cast<double>(token_count * hidden()) * storage_bytes(gemm_dtype_)));
}

void PassBuilder::linear_forward(Sink sink, std::int64_t token_count, std::int64_t in, std::int64_t out, int layer,
                                 std::string_view label, int waits_for) {
  add(sink, linear_gemm(layer, token_count, out, in), layer, label, waits_for);
}

void PassBuilder::local_linear_backward(std::int64_t token_count, std::int64_t in, std::int64_t out, int layer,
                                        std::string_view label, int waits_for) {
  waits_for = quantize_operand(backward_sink(), token_count, out, layer, waits_for);
  add(backward_sink(), linear_gemm(layer, token_count, in, out), layer, label, waits_for);
  weight_gradient_gemm(token_count, in, out, layer, label);
}

void PassBuilder::weight_gradient_gemm(std::int64_t token_count, std::int64_t in, std::int64_t out, int layer,
                                       std::string_view label, int waits_for) {
  const int index = add(backward_sink(), linear_gemm(layer, in, out, token_count), layer, label, waits_for);
  backward[static_cast<size_t>(index)].weight_gradient = true;
}

int PassBuilder::column_linear_backward(std::int64_t token_count, std::int64_t in, std::int64_t out, int layer,
                                        std::string_view label) {
  // Sequence parallelism keeps only the input's shard; wgrad needs all of it (Korthikanti §4.2.2).
  const int gathered_input = gather_sequence(backward_sink(), token_count, layer);
  return column_backward_gemms(token_count, in, out, in, layer, label, gathered_input);
}

int PassBuilder::column_backward_gemms(std::int64_t token_count, std::int64_t in, std::int64_t out,
                                       std::int64_t reduced_width, int layer, std::string_view label,
                                       int gathered_input) {
  const Sink sink = backward_sink();
  quantize_operand(sink, token_count, out, layer);
  add(sink, linear_gemm(layer, token_count, in, out), layer, label);
  const Collective collective = sequence_parallel_ ? Collective::reduce_scatter : Collective::all_reduce;
  const int reduction = tensor_collective(sink, collective, token_count * reduced_width * element_bytes_, layer);
  weight_gradient_gemm(token_count, in, out, layer, label, gathered_input);
  return reduction;
}

void PassBuilder::row_linear_backward(std::int64_t token_count, std::int64_t in, std::int64_t out, int layer,
                                      std::string_view label) {
  const int gathered_gradient = gather_sequence(backward_sink(), token_count, layer);
  local_linear_backward(token_count, in, out, layer, label, gathered_gradient);
}

void PassBuilder::dropout_add_forward(Sink sink, std::int64_t token_count, int layer, int waits_for) {
  const std::int64_t rows = sharded(token_count);
  const auto mask_bytes = static_cast<double>(rows * hidden());  // the 1-byte dropout mask
  add(sink, factory_.elementwise(Operator::bias_dropout_add, rows, hidden(), 2, 1, mask_bytes), layer,
      "bias dropout add", waits_for);
}

void PassBuilder::dropout_add_backward(std::int64_t token_count, int layer) {
  const std::int64_t rows = sharded(token_count);
  const auto mask_bytes = static_cast<double>(rows * hidden());  // the 1-byte dropout mask
  add(backward_sink(), factory_.elementwise(Operator::bias_dropout_add_bwd, rows, hidden(), 2, 1, mask_bytes), layer,
      "bias dropout add");
}

// Chunked self-attention (Llama 4) runs each chunk as a sequence of its own.
Event PassBuilder::fused_attention(bool backward_pass, int layer, bool cross) const {
  const std::int64_t seq_q = tokens(layer) / batch_;
  const std::int64_t heads = model_.num_attention_heads / tp_;
  const std::int64_t kv_heads = model_.num_kv_heads / tp_;
  if (cross) {
    return factory_.attention(backward_pass, batch_, heads, kv_heads, seq_q, model_.seq_length, model_.head_dim(),
                              false, 0);
  }
  const bool causal = model_.causal_self_attention();
  const std::int64_t chunks = model_.attention_chunks(seq_q);
  const std::int64_t seq = chunks > 1 ? model_.attention_chunk_size : seq_q;
  return factory_.attention(backward_pass, batch_ * chunks, heads, kv_heads, seq, seq, model_.head_dim(), causal,
                            causal ? model_.attention_window(layer) : 0);
}

void PassBuilder::attention_core_forward(Sink sink, int layer, bool cross) {
  if (cp_ > 1) {  // validation keeps cross-attention and the unfused core away from context parallelism
    context_attention_forward(sink, layer);
    return;
  }
  const std::int64_t seq_q = tokens(layer) / batch_;
  const std::int64_t seq_kv = cross ? model_.seq_length : seq_q;
  const std::int64_t heads = model_.num_attention_heads / tp_;
  const std::int64_t d = model_.head_dim();
  if (!unfused_attention_) {
    add(sink, fused_attention(false, layer, cross), layer, cross ? "cross attention" : "attention");
    return;
  }
  const CoreLabels& label = cross ? kCrossCore : kSelfCore;
  const std::int64_t batches = batch_ * heads;
  const std::int64_t score_rows = batches * seq_q;
  add(sink, factory_.batched_gemm(batches, seq_q, seq_kv, d), layer, label.scores);
  // Megatron-LM's FusedScaleMaskSoftmax reads and writes the fp16 scores once.
  add(sink, factory_.elementwise(Operator::scale_mask_softmax, score_rows, seq_kv, 1, 1), layer, label.softmax);
  // torch dropout reads the probabilities, writes them and a 1-byte keep mask.
  const auto mask_bytes = static_cast<double>(score_rows * seq_kv);
  add(sink, factory_.elementwise(Operator::attention_dropout, score_rows, seq_kv, 1, 1, mask_bytes), layer,
      label.dropout);
  add(sink, factory_.batched_gemm(batches, seq_q, d, seq_kv), layer, label.context);
}

void PassBuilder::attention_core_backward(int layer, bool cross) {
  if (cp_ > 1) {
    context_attention_backward(layer);
    return;
  }
  const std::int64_t seq_q = tokens(layer) / batch_;
  const std::int64_t seq_kv = cross ? model_.seq_length : seq_q;
  const std::int64_t heads = model_.num_attention_heads / tp_;
  const std::int64_t d = model_.head_dim();
  const Sink sink = backward_sink();
  if (!unfused_attention_) {
    add(sink, fused_attention(true, layer, cross), layer, cross ? "cross attention" : "attention");
    return;
  }
  if (recompute_ == strategy::Recompute::selective) {
    attention_core_forward({&backward, Phase::recompute}, layer, cross);
  }
  const CoreLabels& label = cross ? kCrossCore : kSelfCore;
  const std::int64_t batches = batch_ * heads;
  const std::int64_t score_rows = batches * seq_q;
  const auto mask_bytes = static_cast<double>(score_rows * seq_kv);
  add(sink, factory_.batched_gemm(batches, seq_q, seq_kv, d), layer, label.context);  // dP = dO·Vᵀ
  add(sink, factory_.batched_gemm(batches, seq_kv, d, seq_q), layer, label.context);  // dV = Pᵀ·dO
  // Reads the gradient and the mask, writes the gradient.
  add(sink, factory_.elementwise(Operator::attention_dropout_bwd, score_rows, seq_kv, 1, 1, mask_bytes), layer,
      label.dropout);
  // Reads the softmax output and its gradient, writes the scores' gradient.
  add(sink, factory_.elementwise(Operator::scale_mask_softmax_bwd, score_rows, seq_kv, 2, 1), layer, label.softmax);
  add(sink, factory_.batched_gemm(batches, seq_q, d, seq_kv), layer, label.scores);  // dQ = dS·K
  add(sink, factory_.batched_gemm(batches, seq_kv, d, seq_q), layer, label.scores);  // dK = dSᵀ·Q
}

void PassBuilder::attention_block_forward(Sink sink, int layer, bool cross) {
  const std::int64_t t = tokens(layer);
  norm_forward(sink, sharded(t), layer);
  if (cross) {
    linear_forward(sink, t, hidden(), query_width(), layer, "cross q", gather_sequence(sink, t, layer));
    const int encoder_output = gather_sequence(sink, encoder_tokens(), layer);
    linear_forward(sink, encoder_tokens(), hidden(), 2 * kv_width(), layer, "cross kv",
                   quantize_operand(sink, encoder_tokens(), hidden(), layer, encoder_output));
  } else {
    linear_forward(sink, t, hidden(), query_width() + 2 * kv_width(), layer, "qkv", gather_sequence(sink, t, layer));
    if (model_.normalizes_query_key_heads(layer)) {
      add(sink, factory_.elementwise(qk_norm_op(), qk_norm_rows(t), model_.head_dim(), 1, 1), layer, "qk norm");
    }
    if (model_.rotates_positions(layer)) {
      add(sink, factory_.elementwise(Operator::rope, t, query_width() + kv_width(), 1, 1), layer, "rope");
    }
  }
  attention_core_forward(sink, layer, cross);
  linear_forward(sink, t, query_width(), hidden(), layer, "attention out",
                 quantize_operand(sink, t, query_width(), layer));
  dropout_add_forward(sink, t, layer, reduce_partial_sums(sink, t, layer));
}

void PassBuilder::attention_block_backward(int layer, bool cross) {
  const Sink sink = backward_sink();
  const std::int64_t t = tokens(layer);
  const std::int64_t rows = sharded(t);
  dropout_add_backward(t, layer);
  row_linear_backward(t, query_width(), hidden(), layer, "attention out");
  attention_core_backward(layer, cross);
  int reduction = -1;
  if (cross) {
    if (sequence_parallel_) {
      column_linear_backward(encoder_tokens(), hidden(), 2 * kv_width(), layer, "cross kv");
    } else {
      local_linear_backward(encoder_tokens(), hidden(), 2 * kv_width(), layer, "cross kv");
    }
    reduction = column_linear_backward(t, hidden(), query_width(), layer, "cross q");
  } else {
    if (model_.rotates_positions(layer)) {
      add(sink, factory_.elementwise(Operator::rope_bwd, t, query_width() + kv_width(), 1, 1), layer, "rope");
    }
    if (model_.normalizes_query_key_heads(layer)) {
      add(sink, factory_.elementwise(qk_norm_backward_op(), qk_norm_rows(t), model_.head_dim(), 2, 1), layer,
          "qk norm");
    }
    reduction = column_linear_backward(t, hidden(), query_width() + 2 * kv_width(), layer, "qkv");
  }
  add(sink, factory_.elementwise(norm_backward_op(), rows, hidden(), 2, 1), layer, "norm", reduction);
}

void PassBuilder::mlp_forward(Sink sink, int layer) {
  const std::int64_t t = tokens(layer);
  norm_forward(sink, sharded(t), layer);
  linear_forward(sink, t, hidden(), ffn_up_width(), layer, "fc1", gather_sequence(sink, t, layer));
  activation_forward(sink, t, ffn_width(), layer, model::ffn_type_name(model_.ffn_type));
  linear_forward(sink, t, ffn_width(), hidden(), layer, "fc2", quantize_operand(sink, t, ffn_width(), layer));
  dropout_add_forward(sink, t, layer, reduce_partial_sums(sink, t, layer));
}

void PassBuilder::mlp_backward(int layer) {
  const Sink sink = backward_sink();
  const std::int64_t t = tokens(layer);
  const std::int64_t rows = sharded(t);
  dropout_add_backward(t, layer);
  row_linear_backward(t, ffn_width(), hidden(), layer, "fc2");
  activation_backward(t, ffn_width(), layer, model::ffn_type_name(model_.ffn_type));
  const int reduction = column_linear_backward(t, hidden(), ffn_up_width(), layer, "fc1");
  add(sink, factory_.elementwise(norm_backward_op(), rows, hidden(), 2, 1), layer, "norm", reduction);
}

void PassBuilder::activation_forward(Sink sink, std::int64_t rows, std::int64_t width, int layer,
                                     std::string_view label) {
  const Activation activation = activation_of(model_.ffn_type);
  add(sink, factory_.elementwise(activation.forward, rows, width, activation.inputs, 1), layer, label);
}

void PassBuilder::activation_backward(std::int64_t rows, std::int64_t width, int layer, std::string_view label) {
  const Activation activation = activation_of(model_.ffn_type);
  add(backward_sink(), factory_.elementwise(activation.backward, rows, width, activation.inputs + 1, activation.inputs),
      layer, label);
}

LayerShape PassBuilder::layer_shape(int layer) const {
  return {is_decoder_of_encoder_decoder(layer), in_low_precision(layer), model_.attention_window(layer),
          model::layer_plan(model_, layer), model_.rotates_positions(layer)};
}

void PassBuilder::layer_forward(Sink sink, int layer) {
  build_layer(sink.phase == Phase::recompute ? LayerPass::recompute : LayerPass::forward, sink, layer);
}

void PassBuilder::layer_forward(int layer) { layer_forward(forward_sink(), layer); }

void PassBuilder::layer_recompute(int layer) { layer_forward({&backward, Phase::recompute}, layer); }

void PassBuilder::layer_backward(int layer) { build_layer(LayerPass::backward, backward_sink(), layer); }

void PassBuilder::emit_layer(LayerPass pass, Sink sink, int layer) {
  const model::LayerPlan plan = model::layer_plan(model_, layer);
  if (pass == LayerPass::backward) {
    for (const model::LayerBlock* block = plan.end(); block != plan.begin();) {
      block_backward(*--block, layer);
    }
    return;
  }
  for (const model::LayerBlock block : plan) {
    block_forward(block, sink, layer);
  }
}

void PassBuilder::block_forward(model::LayerBlock block, Sink sink, int layer) {
  switch (block) {
    case model::LayerBlock::self_attention: attention_block_forward(sink, layer, false); return;
    case model::LayerBlock::latent_attention: latent_attention_forward(sink, layer); return;
    case model::LayerBlock::cross_attention: attention_block_forward(sink, layer, true); return;
    case model::LayerBlock::mlp: mlp_forward(sink, layer); return;
    case model::LayerBlock::moe: moe_forward(sink, layer); return;
    case model::LayerBlock::mamba: mamba_forward(sink, layer); return;
  }
}

void PassBuilder::block_backward(model::LayerBlock block, int layer) {
  switch (block) {
    case model::LayerBlock::self_attention: attention_block_backward(layer, false); return;
    case model::LayerBlock::latent_attention: latent_attention_backward(layer); return;
    case model::LayerBlock::cross_attention: attention_block_backward(layer, true); return;
    case model::LayerBlock::mlp: mlp_backward(layer); return;
    case model::LayerBlock::moe: moe_backward(layer); return;
    case model::LayerBlock::mamba: mamba_backward(layer); return;
  }
}

// A layer is copied only where it starts with waits of the same kinds pending (its chunk's input,
// a parameter gather), which its first compute step takes.
void PassBuilder::build_layer(LayerPass pass, Sink sink, int layer) {
  int& input = sink.list == &forward ? forward_input_ : backward_input_;
  int& parameters = sink.list == &forward ? forward_parameters_ : backward_parameters_;
  if (memo_ == nullptr) {
    emit_layer(pass, sink, layer);
    return;
  }
  const PendingWaits before{input, parameters};
  const LayerShape shape = layer_shape(layer);
  const std::size_t start = sink.list->size();
  if (const RecordedLayer* recorded = memo_->find(groups_, pass, shape, before)) {
    input = recorded->append_to(*sink.list, layer, before);
    parameters = -1;
    return;
  }
  emit_layer(pass, sink, layer);
  if (auto recorded = RecordedLayer::record(*sink.list, start, layer, before, input, parameters)) {
    memo_->add(groups_, pass, shape, before, std::move(*recorded));
  }
}

void PassBuilder::embedding_forward() {
  const Sink sink = forward_sink();
  const std::int64_t t = encoder_tokens();
  // Row gather from the vocabulary-parallel table; a learned position table adds one more read.
  // The partial rows are summed over the tensor group, into sequence shards under sequence
  // parallelism, before the first layer can start (Megatron-LM blocks on it).
  const int reads = model_.position_embedding == model::PositionEmbedding::learned ? 2 : 1;
  add(sink, factory_.elementwise(Operator::embedding, t, hidden(), reads, 1), -1, "embedding");
  forward_input_ = reduce_partial_sums(sink, t, -1);
  if (model_.architecture == model::Architecture::encoder_decoder) {
    const std::int64_t target = static_cast<std::int64_t>(model_.target_seq_length()) * batch_;
    add(sink, factory_.elementwise(Operator::embedding, target, hidden(), 1, 1), -1, "decoder embedding");
    forward_input_ = reduce_partial_sums(sink, target, -1);
  }
}

void PassBuilder::embedding_backward() {
  // Scatter-add of the output gradient into the table's gradient rows; under sequence
  // parallelism the gradient's shards are gathered first.
  const int gathered = gather_sequence(backward_sink(), encoder_tokens(), -1);
  add(backward_sink(), factory_.elementwise(Operator::embedding_bwd, encoder_tokens(), hidden(), 2, 1), -1, "embedding",
      gathered);
}

void PassBuilder::head_forward() {
  const Sink sink = forward_sink();
  const std::int64_t t = tokens(model_.total_layers() - 1);
  add(sink, factory_.elementwise(norm_op(), sharded(t), hidden(), 1, 1), -1, "final norm");
  linear_forward(sink, t, hidden(), vocab_width(), -1, "lm head", gather_sequence(sink, t, -1));
  // Vocabulary-parallel cross-entropy: softmax over this rank's logits, then three small fp32
  // all-reduces over [s, b] (max, predicted logit, sum of exp; docs/reference/formats.md §6.1).
  add(sink, factory_.elementwise(Operator::cross_entropy, t, vocab_width(), 1, 1), -1, "loss");
  for (int i = 0; i < 3; ++i) {
    tensor_collective(sink, Collective::all_reduce, t * 4, -1);
  }
}

void PassBuilder::gather_received_activation(std::int64_t bytes) {
  forward_input_ = tensor_collective(forward_sink(), Collective::all_gather, bytes, -1);
}

void PassBuilder::gather_received_gradient(std::int64_t bytes) {
  backward_input_ = tensor_collective(backward_sink(), Collective::all_gather, bytes, -1);
}

int PassBuilder::gather_parameters(bool backward_pass, const Event& event, int layer) {
  const Sink sink = backward_pass ? backward_sink() : forward_sink();
  sink.list->push_back({table_.intern(event), StreamKind::dp_comm, sink.phase, layer, "fsdp parameter all_gather", -1});
  return static_cast<int>(sink.list->size()) - 1;
}

void PassBuilder::await_parameters(bool backward_pass, int index) {
  (backward_pass ? backward_parameters_ : forward_parameters_) = index;
}

void PassBuilder::reduce_unit_gradients(const Event& reduce_scatter, const std::optional<Event>& replica_all_reduce,
                                        int layer) {
  backward.push_back({table_.intern(reduce_scatter), StreamKind::dp_reduce, Phase::backward, layer,
                      "fsdp gradient reduce_scatter", -1});
  if (replica_all_reduce) {
    const int scattered = static_cast<int>(backward.size()) - 1;
    backward.push_back({table_.intern(*replica_all_reduce), StreamKind::dp_replica, Phase::backward, layer,
                        "hsdp gradient all_reduce", scattered});
  }
}

void PassBuilder::head_backward() {
  const Sink sink = backward_sink();
  const std::int64_t t = tokens(model_.total_layers() - 1);
  add(sink, factory_.elementwise(Operator::cross_entropy_bwd, t, vocab_width(), 1, 1), -1, "loss");
  const int reduction = column_linear_backward(t, hidden(), vocab_width(), -1, "lm head");
  add(sink, factory_.elementwise(norm_backward_op(), sharded(t), hidden(), 2, 1), -1, "final norm", reduction);
}

}  // namespace distsim::events
