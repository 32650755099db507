#include "events/job_events.hpp"

#include <algorithm>

#include "events/event_factory.hpp"
#include "model/parameter_count.hpp"

namespace distsim::events {

LayerRange stage_layers(int total_layers, int num_stages, int stage) {
  const int base = total_layers / num_stages;
  const int extra = total_layers % num_stages;
  LayerRange range;
  range.count = base + (stage < extra ? 1 : 0);
  range.first = stage * base + std::min(stage, extra);
  return range;
}

std::int64_t padded_vocab(std::int64_t vocab, int tensor_parallel) {
  const std::int64_t multiple = 128LL * tensor_parallel;
  return (vocab + multiple - 1) / multiple * multiple;
}

namespace {

using model::ModelSpec;

//! Appends the tasks of one rank's forward and backward passes. Shapes are per tensor-parallel
//! rank, following formats.md §6.1 (Megatron-LM without sequence parallelism).
class RankWorkBuilder {
 public:
  RankWorkBuilder(const strategy::JobSpec& job, const strategy::RankLayout& layout, strategy::RankCoord coord,
                  EventTable& table)
      : model_(job.model),
        strategy_(job.strategy),
        coord_(coord),
        table_(table),
        factory_(job.strategy.dtype),
        tp_(job.strategy.tensor_parallel),
        batch_(job.strategy.micro_batch_size),
        tensor_group_(layout.tensor_group(coord)) {}

  std::vector<TaskTemplate> forward;
  std::vector<TaskTemplate> backward;

  void embedding_forward();
  void embedding_backward();
  void layer_forward(int layer);
  void layer_backward(int layer);
  void head_forward();
  void head_backward();

 private:
  bool is_decoder_of_encoder_decoder(int layer) const {
    return model_.architecture == model::Architecture::encoder_decoder && layer >= model_.num_layers;
  }
  std::int64_t tokens(int layer) const {
    const int seq = is_decoder_of_encoder_decoder(layer) ? model_.target_seq_length() : model_.seq_length;
    return static_cast<std::int64_t>(seq) * batch_;
  }
  std::int64_t encoder_tokens() const { return static_cast<std::int64_t>(model_.seq_length) * batch_; }
  std::int64_t hidden() const { return model_.hidden_size; }
  std::int64_t query_width() const { return std::int64_t{model_.num_attention_heads} * model_.head_dim() / tp_; }
  std::int64_t kv_width() const { return std::int64_t{model_.num_kv_heads} * model_.head_dim() / tp_; }
  std::int64_t ffn_width() const { return model_.ffn_hidden_size / tp_; }
  std::int64_t ffn_up_width() const { return (model_.ffn_type == model::FfnType::swiglu ? 2 : 1) * ffn_width(); }
  std::int64_t vocab_width() const { return padded_vocab(model_.vocab_size, tp_) / tp_; }
  std::string norm_op() const { return model_.norm == model::NormType::rmsnorm ? "rmsnorm" : "layernorm"; }

  int add(std::vector<TaskTemplate>& list, const Event& event, int layer, std::string_view label,
          int waits_for = -1) {
    list.push_back({table_.intern(event), StreamKind::compute, layer, label, waits_for});
    return static_cast<int>(list.size()) - 1;
  }
  //! A tensor-parallel all-reduce of `bytes`; returns its index, or -1 when tp = 1.
  int tensor_all_reduce(std::vector<TaskTemplate>& list, std::int64_t bytes, int layer) {
    if (tp_ == 1) {
      return -1;
    }
    const Event event = factory_.collective(Collective::all_reduce, bytes, tensor_group_, tp_);
    list.push_back({table_.intern(event), StreamKind::tp_comm, layer, "tp all_reduce", -1});
    return static_cast<int>(list.size()) - 1;
  }
  std::int64_t activation_bytes(std::int64_t token_count) const {
    return token_count * hidden() * dtype_bytes(strategy_.dtype);
  }

  void linear_forward(std::int64_t tokens, std::int64_t in, std::int64_t out, int layer, std::string_view label,
                      int waits_for = -1) {
    add(forward, factory_.gemm(tokens, out, in), layer, label, waits_for);
  }
  //! dgrad then wgrad; when `reduce_input_grad`, the input gradient is all-reduced across the
  //! tensor group while wgrad runs (Megatron's async all-reduce in backward). Returns the
  //! all-reduce's index for the next step to wait for, or -1.
  int linear_backward(std::int64_t tokens, std::int64_t in, std::int64_t out, int layer, std::string_view label,
                      bool reduce_input_grad, int waits_for = -1);
  void attention_block_forward(int layer, bool cross);
  void attention_block_backward(int layer, bool cross);
  void mlp_forward(int layer);
  void mlp_backward(int layer);

  const ModelSpec& model_;
  const strategy::Strategy& strategy_;
  strategy::RankCoord coord_;
  EventTable& table_;
  EventFactory factory_;
  int tp_;
  int batch_;
  strategy::GroupPlacement tensor_group_;
};

int RankWorkBuilder::linear_backward(std::int64_t tokens, std::int64_t in, std::int64_t out, int layer,
                                     std::string_view label, bool reduce_input_grad, int waits_for) {
  add(backward, factory_.gemm(tokens, in, out), layer, label, waits_for);
  const int reduction = reduce_input_grad ? tensor_all_reduce(backward, tokens * in * dtype_bytes(strategy_.dtype), layer) : -1;
  add(backward, factory_.gemm(in, out, tokens), layer, label);
  return reduction;
}

void RankWorkBuilder::attention_block_forward(int layer, bool cross) {
  const std::int64_t t = tokens(layer);
  const std::int64_t seq_q = t / batch_;
  add(forward, factory_.elementwise(norm_op(), t, hidden(), 1, 1), layer, "norm");
  if (cross) {
    linear_forward(t, hidden(), query_width(), layer, "cross q");
    linear_forward(encoder_tokens(), hidden(), 2 * kv_width(), layer, "cross kv");
  } else {
    linear_forward(t, hidden(), query_width() + 2 * kv_width(), layer, "qkv");
    if (model_.position_embedding == model::PositionEmbedding::rope) {
      add(forward, factory_.elementwise("rope", t, query_width() + kv_width(), 1, 1), layer, "rope");
    }
  }
  const std::int64_t seq_kv = cross ? model_.seq_length : seq_q;
  const bool causal = !cross && (model_.causal_self_attention());
  add(forward,
      factory_.attention(false, batch_, model_.num_attention_heads / tp_, model_.num_kv_heads / tp_, seq_q, seq_kv,
                         model_.head_dim(), causal),
      layer, cross ? "cross attention" : "attention");
  linear_forward(t, query_width(), hidden(), layer, "attention out");
  const int reduction = tensor_all_reduce(forward, activation_bytes(t), layer);
  add(forward, factory_.elementwise("bias_dropout_add", t, hidden(), 2, 1, static_cast<double>(t * hidden())), layer,
      "bias dropout add", reduction);
}

void RankWorkBuilder::attention_block_backward(int layer, bool cross) {
  const std::int64_t t = tokens(layer);
  const std::int64_t seq_q = t / batch_;
  add(backward, factory_.elementwise("bias_dropout_add_bwd", t, hidden(), 2, 1, static_cast<double>(t * hidden())),
      layer, "bias dropout add");
  linear_backward(t, query_width(), hidden(), layer, "attention out", false);
  const std::int64_t seq_kv = cross ? model_.seq_length : seq_q;
  const bool causal = !cross && model_.causal_self_attention();
  add(backward,
      factory_.attention(true, batch_, model_.num_attention_heads / tp_, model_.num_kv_heads / tp_, seq_q, seq_kv,
                         model_.head_dim(), causal),
      layer, cross ? "cross attention" : "attention");
  int reduction = -1;
  if (cross) {
    linear_backward(encoder_tokens(), hidden(), 2 * kv_width(), layer, "cross kv", false);
    reduction = linear_backward(t, hidden(), query_width(), layer, "cross q", true);
  } else {
    if (model_.position_embedding == model::PositionEmbedding::rope) {
      add(backward, factory_.elementwise("rope_bwd", t, query_width() + kv_width(), 1, 1), layer, "rope");
    }
    reduction = linear_backward(t, hidden(), query_width() + 2 * kv_width(), layer, "qkv", true);
  }
  add(backward, factory_.elementwise(norm_op() + "_bwd", t, hidden(), 2, 1), layer, "norm", reduction);
}

void RankWorkBuilder::mlp_forward(int layer) {
  const std::int64_t t = tokens(layer);
  add(forward, factory_.elementwise(norm_op(), t, hidden(), 1, 1), layer, "norm");
  linear_forward(t, hidden(), ffn_up_width(), layer, "fc1");
  if (model_.ffn_type == model::FfnType::swiglu) {
    add(forward, factory_.elementwise("swiglu", t, ffn_width(), 2, 1), layer, "swiglu");
  } else {
    add(forward, factory_.elementwise("gelu", t, ffn_width(), 1, 1), layer, "gelu");
  }
  linear_forward(t, ffn_width(), hidden(), layer, "fc2");
  const int reduction = tensor_all_reduce(forward, activation_bytes(t), layer);
  add(forward, factory_.elementwise("bias_dropout_add", t, hidden(), 2, 1, static_cast<double>(t * hidden())), layer,
      "bias dropout add", reduction);
}

void RankWorkBuilder::mlp_backward(int layer) {
  const std::int64_t t = tokens(layer);
  add(backward, factory_.elementwise("bias_dropout_add_bwd", t, hidden(), 2, 1, static_cast<double>(t * hidden())),
      layer, "bias dropout add");
  linear_backward(t, ffn_width(), hidden(), layer, "fc2", false);
  if (model_.ffn_type == model::FfnType::swiglu) {
    add(backward, factory_.elementwise("swiglu_bwd", t, ffn_width(), 3, 2), layer, "swiglu");
  } else {
    add(backward, factory_.elementwise("gelu_bwd", t, ffn_width(), 2, 1), layer, "gelu");
  }
  const int reduction = linear_backward(t, hidden(), ffn_up_width(), layer, "fc1", true);
  add(backward, factory_.elementwise(norm_op() + "_bwd", t, hidden(), 2, 1), layer, "norm", reduction);
}

void RankWorkBuilder::layer_forward(int layer) {
  attention_block_forward(layer, false);
  if (is_decoder_of_encoder_decoder(layer)) {
    attention_block_forward(layer, true);
  }
  mlp_forward(layer);
}

void RankWorkBuilder::layer_backward(int layer) {
  mlp_backward(layer);
  if (is_decoder_of_encoder_decoder(layer)) {
    attention_block_backward(layer, true);
  }
  attention_block_backward(layer, false);
}

void RankWorkBuilder::embedding_forward() {
  const std::int64_t t = encoder_tokens();
  // Row gather from the vocabulary-parallel table; a learned position table adds one more read.
  const int reads = model_.position_embedding == model::PositionEmbedding::learned ? 2 : 1;
  add(forward, factory_.elementwise("embedding", t, hidden(), reads, 1), -1, "embedding");
  tensor_all_reduce(forward, activation_bytes(t), -1);
  if (model_.architecture == model::Architecture::encoder_decoder) {
    const std::int64_t target = static_cast<std::int64_t>(model_.target_seq_length()) * batch_;
    add(forward, factory_.elementwise("embedding", target, hidden(), 1, 1), -1, "decoder embedding");
    tensor_all_reduce(forward, activation_bytes(target), -1);
  }
}

void RankWorkBuilder::embedding_backward() {
  // Scatter-add of the output gradient into the table's gradient rows.
  add(backward, factory_.elementwise("embedding_bwd", encoder_tokens(), hidden(), 2, 1), -1, "embedding");
}

void RankWorkBuilder::head_forward() {
  const std::int64_t t = tokens(model_.total_layers() - 1);
  add(forward, factory_.elementwise(norm_op(), t, hidden(), 1, 1), -1, "final norm");
  linear_forward(t, hidden(), vocab_width(), -1, "lm head");
  // Vocabulary-parallel cross-entropy: softmax over this rank's logits, then three small fp32
  // all-reduces over [s, b] (max, predicted logit, sum of exp; formats.md §6.1).
  add(forward, factory_.elementwise("cross_entropy", t, vocab_width(), 1, 1), -1, "loss");
  for (int i = 0; i < 3; ++i) {
    tensor_all_reduce(forward, t * 4, -1);
  }
}

void RankWorkBuilder::head_backward() {
  const std::int64_t t = tokens(model_.total_layers() - 1);
  add(backward, factory_.elementwise("cross_entropy_bwd", t, vocab_width(), 1, 1), -1, "loss");
  const int reduction = linear_backward(t, hidden(), vocab_width(), -1, "lm head", true);
  add(backward, factory_.elementwise(norm_op() + "_bwd", t, hidden(), 2, 1), -1, "final norm", reduction);
}

std::int64_t rank_parameters(const ModelSpec& model, const LayerRange& layers, bool first, bool last, int tp) {
  std::int64_t total = 0;
  for (int layer = layers.first; layer < layers.first + layers.count; ++layer) {
    total += model::layer_parameters(model, model.architecture == model::Architecture::encoder_decoder &&
                                                layer >= model.num_layers);
  }
  if (first) {
    total += model::embedding_parameters(model);
  }
  if (last) {
    total += model::head_parameters(model);
    if (model.tie_embeddings && !first) {
      total += static_cast<std::int64_t>(model.vocab_size) * model.hidden_size;  // the output copy of the table
    }
  }
  return total / tp;
}

std::vector<EventId> gradient_buckets(const strategy::JobSpec& job, const strategy::RankLayout& layout,
                                      strategy::RankCoord coord, std::int64_t parameters, EventTable& table) {
  const int dp = job.strategy.data_parallel;
  if (dp == 1) {
    return {};
  }
  // Gradients are reduced in fp32 with bf16 training unless --grad-reduce-in-bf16 (formats.md §5.1).
  const int grad_bytes = job.strategy.dtype == Dtype::fp16 ? 2 : 4;
  const std::int64_t bucket = job.strategy.bucket_params();
  const EventFactory factory(job.strategy.dtype);
  const strategy::GroupPlacement group = layout.data_group(coord);
  std::vector<EventId> buckets;
  for (std::int64_t done = 0; done < parameters; done += bucket) {
    const std::int64_t size = std::min(bucket, parameters - done);
    buckets.push_back(table.intern(factory.collective(Collective::all_reduce, size * grad_bytes, group, dp)));
  }
  return buckets;
}

std::int64_t boundary_bytes(const strategy::JobSpec& job, int last_layer_of_stage) {
  const ModelSpec& model = job.model;
  const std::int64_t batch = job.strategy.micro_batch_size;
  const std::int64_t element = dtype_bytes(job.strategy.dtype);
  const bool in_decoder =
      model.architecture == model::Architecture::encoder_decoder && last_layer_of_stage >= model.num_layers;
  // Decoder stages of an encoder-decoder model also pass the encoder's output along.
  std::int64_t tokens = static_cast<std::int64_t>(in_decoder ? model.target_seq_length() : model.seq_length) * batch;
  if (in_decoder) {
    tokens += static_cast<std::int64_t>(model.seq_length) * batch;
  }
  return tokens * model.hidden_size * element;
}

}  // namespace

RankWork build_rank_work(const strategy::JobSpec& job, const strategy::RankLayout& layout, strategy::RankCoord coord,
                         EventTable& table) {
  const int stages = job.strategy.pipeline_parallel;
  const bool first = coord.pp == 0;
  const bool last = coord.pp == stages - 1;
  const LayerRange layers = stage_layers(job.model.total_layers(), stages, coord.pp);
  RankWorkBuilder builder(job, layout, coord, table);
  if (first) {
    builder.embedding_forward();
  }
  for (int layer = layers.first; layer < layers.first + layers.count; ++layer) {
    builder.layer_forward(layer);
  }
  if (last) {
    builder.head_forward();
    builder.head_backward();
  }
  for (int layer = layers.first + layers.count - 1; layer >= layers.first; --layer) {
    builder.layer_backward(layer);
  }
  if (first) {
    builder.embedding_backward();
  }
  RankWork work;
  work.forward = std::move(builder.forward);
  work.backward = std::move(builder.backward);
  work.first_layer = layers.first;
  work.num_layers = layers.count;
  work.parameters = rank_parameters(job.model, layers, first, last, job.strategy.tensor_parallel);
  const EventFactory factory(job.strategy.dtype);
  const int last_layer = layers.first + layers.count - 1;
  if (!last) {
    work.send_activation = table.intern(factory.send_recv(boundary_bytes(job, last_layer), layout.pipeline_link(coord)));
  }
  if (!first) {
    const strategy::RankCoord previous{coord.tp, coord.dp, coord.pp - 1};
    work.send_gradient = table.intern(factory.send_recv(boundary_bytes(job, layers.first - 1), layout.pipeline_link(previous)));
  }
  work.gradient_buckets = gradient_buckets(job, layout, coord, work.parameters, table);
  if (job.model.tie_embeddings && stages > 1 && (first || last)) {
    const std::int64_t bytes = padded_vocab(job.model.vocab_size, job.strategy.tensor_parallel) /
                               job.strategy.tensor_parallel * job.model.hidden_size * 4;
    work.embedding_reduction =
        table.intern(factory.collective(Collective::all_reduce, bytes, layout.embedding_group(coord), 2));
  }
  work.optimizer_step = table.intern(factory.adam_step(work.parameters));
  return work;
}

}  // namespace distsim::events
