#include "events/pass_builder.hpp"

// The context-parallel attention core of PassBuilder: ring (p2p), all-to-all (a2a), all-gather
// and hierarchical (a2a+p2p) exchanges of the sequence shards over the context-parallel group,
// each with the attention steps it feeds.
namespace distsim::events {

void PassBuilder::context_attention_forward(Sink sink, int layer) {
  switch (cp_comm_type_) {
    case strategy::CpCommType::p2p: ring_attention_forward(sink, layer, -1); break;
    case strategy::CpCommType::a2a: a2a_attention_forward(sink, layer); break;
    case strategy::CpCommType::allgather: allgather_attention_forward(sink, layer); break;
    case strategy::CpCommType::a2a_p2p: hierarchical_attention_forward(sink, layer); break;
  }
}

void PassBuilder::context_attention_backward(int layer) {
  switch (cp_comm_type_) {
    case strategy::CpCommType::p2p: ring_attention_backward(layer, -1); break;
    case strategy::CpCommType::a2a: a2a_attention_backward(layer); break;
    case strategy::CpCommType::allgather: allgather_attention_backward(layer); break;
    case strategy::CpCommType::a2a_p2p: hierarchical_attention_backward(layer); break;
  }
}

PassBuilder::Ring PassBuilder::ring() const {
  const bool hierarchical = cp_comm_type_ == strategy::CpCommType::a2a_p2p;
  const int a2a = hierarchical ? cp_a2a_size_ : 1;
  const int size = cp_ / a2a;
  return {size, model_.seq_length / size, model_.num_attention_heads / tp_ / a2a, model_.num_kv_heads / tp_ / a2a,
          hierarchical ? &context_ring_group_ : &context_group_};
}

std::int64_t PassBuilder::kv_block_bytes() const {
  const Ring r = ring();
  return std::int64_t{2} * batch_ * r.local_seq * r.kv_heads * model_.head_dim() * element_bytes_;
}

int PassBuilder::context_exchange(Sink sink, std::int64_t bytes, int layer, std::string_view label) {
  const Ring r = ring();
  const Event event = factory_.ring_exchange(bytes, *r.group, r.size);
  sink.list->push_back({table_.intern(event), StreamKind::cp_comm, sink.phase, layer, label, -1});
  return static_cast<int>(sink.list->size()) - 1;
}

Event PassBuilder::ring_attention_step(bool backward_pass, bool diagonal) const {
  const Ring r = ring();
  const std::int64_t d = model_.head_dim();
  if (!model_.causal_self_attention()) {
    return factory_.attention(backward_pass, batch_, r.heads, r.kv_heads, r.local_seq, r.local_seq, d, false);
  }
  if (diagonal) {
    return factory_.attention(backward_pass, batch_, r.heads, r.kv_heads, r.local_seq, r.local_seq, d, true);
  }
  return factory_.attention(backward_pass, batch_, r.heads, r.kv_heads, r.local_seq / 2, r.local_seq, d, false);
}

void PassBuilder::ring_attention_forward(Sink sink, int layer, int inputs) {
  const int size = ring().size;
  int received = inputs;
  for (int step = 0; step < size; ++step) {
    const bool more = step + 1 < size;
    const int exchange = more ? context_exchange(sink, kv_block_bytes(), layer, "cp kv exchange") : -1;
    add(sink, ring_attention_step(false, step == 0), layer, "attention", received);
    received = exchange;
  }
}

void PassBuilder::ring_attention_backward(int layer, int inputs) {
  const Sink sink = backward_sink();
  const int size = ring().size;
  int received = inputs;
  for (int step = 0; step < size; ++step) {
    const bool first = step == 0;
    const bool last = step + 1 == size;
    const std::int64_t bytes = first || last ? kv_block_bytes() : 2 * kv_block_bytes();
    const std::string_view label = first ? "cp kv exchange" : last ? "cp dkv exchange" : "cp kv dkv exchange";
    const int exchange = context_exchange(sink, bytes, layer, label);
    add(sink, ring_attention_step(true, last), layer, "attention", received);
    received = exchange;
  }
  backward_input_ = received;
}

int PassBuilder::context_collective(Sink sink, Collective collective, std::int64_t bytes, int layer,
                                    std::string_view label) {
  const bool hierarchical = cp_comm_type_ == strategy::CpCommType::a2a_p2p;
  const Event event = hierarchical ? factory_.collective(collective, bytes, context_a2a_group_, cp_a2a_size_)
                                   : factory_.collective(collective, bytes, context_group_, cp_);
  sink.list->push_back({table_.intern(event), StreamKind::cp_comm, sink.phase, layer, label, -1});
  return static_cast<int>(sink.list->size()) - 1;
}

std::int64_t PassBuilder::a2a_bytes(bool q_and_kv) const {
  const std::int64_t width = q_and_kv ? query_width() + 2 * kv_width() : query_width();
  return std::int64_t{batch_} * (model_.seq_length / cp_) * width * element_bytes_;
}

// After the all-to-all each rank holds the whole sequence for heads/(t·cp) query and KV heads,
// which validation requires to be whole numbers, as TransformerEngine does.
void PassBuilder::a2a_attention_forward(Sink sink, int layer) {
  const std::int64_t heads = model_.num_attention_heads / tp_ / cp_;
  const std::int64_t kv_heads = model_.num_kv_heads / tp_ / cp_;
  const std::int64_t seq = model_.seq_length;
  const int inputs = context_collective(sink, Collective::all_to_all, a2a_bytes(true), layer, "cp qkv all_to_all");
  add(sink,
      factory_.attention(false, batch_, heads, kv_heads, seq, seq, model_.head_dim(), model_.causal_self_attention()),
      layer, "attention", inputs);
  forward_input_ = context_collective(sink, Collective::all_to_all, a2a_bytes(false), layer, "cp o all_to_all");
}

void PassBuilder::a2a_attention_backward(int layer) {
  const Sink sink = backward_sink();
  const std::int64_t heads = model_.num_attention_heads / tp_ / cp_;
  const std::int64_t kv_heads = model_.num_kv_heads / tp_ / cp_;
  const std::int64_t seq = model_.seq_length;
  const int output_gradient =
      context_collective(sink, Collective::all_to_all, a2a_bytes(false), layer, "cp do all_to_all");
  add(sink,
      factory_.attention(true, batch_, heads, kv_heads, seq, seq, model_.head_dim(), model_.causal_self_attention()),
      layer, "attention", output_gradient);
  backward_input_ = context_collective(sink, Collective::all_to_all, a2a_bytes(true), layer, "cp dqkv all_to_all");
}

void PassBuilder::hierarchical_attention_forward(Sink sink, int layer) {
  const int inputs = context_collective(sink, Collective::all_to_all, a2a_bytes(true), layer, "cp qkv all_to_all");
  ring_attention_forward(sink, layer, inputs);
  forward_input_ = context_collective(sink, Collective::all_to_all, a2a_bytes(false), layer, "cp o all_to_all");
}

// The ring's backward ends with the last dK/dV exchange; the all-to-all of dQ, dK and dV follows
// it on the CP stream, and the step after the attention core waits for that.
void PassBuilder::hierarchical_attention_backward(int layer) {
  const Sink sink = backward_sink();
  const int output_gradient =
      context_collective(sink, Collective::all_to_all, a2a_bytes(false), layer, "cp do all_to_all");
  ring_attention_backward(layer, output_gradient);
  backward_input_ = context_collective(sink, Collective::all_to_all, a2a_bytes(true), layer, "cp dqkv all_to_all");
}

Event PassBuilder::gathered_chunk_attention(bool backward_pass, int chunk) const {
  const std::int64_t chunk_seq = model_.seq_length / (2 * cp_);
  const bool causal = model_.causal_self_attention();
  const std::int64_t keys = causal && chunk == 0 ? chunk_seq : model_.seq_length;
  return factory_.attention(backward_pass, batch_, model_.num_attention_heads / tp_, model_.num_kv_heads / tp_,
                            chunk_seq, keys, model_.head_dim(), causal);
}

std::int64_t PassBuilder::gathered_kv_bytes() const {
  return std::int64_t{batch_} * model_.seq_length * kv_width() * element_bytes_;
}

int PassBuilder::gather_keys_and_values(Sink sink, int layer) {
  context_collective(sink, Collective::all_gather, gathered_kv_bytes(), layer, "cp kv all_gather");
  return context_collective(sink, Collective::all_gather, gathered_kv_bytes(), layer, "cp kv all_gather");
}

void PassBuilder::allgather_attention_forward(Sink sink, int layer) {
  const int gathered = gather_keys_and_values(sink, layer);
  add(sink, gathered_chunk_attention(false, 0), layer, "attention", gathered);
  add(sink, gathered_chunk_attention(false, 1), layer, "attention");
}

// TransformerEngine keeps only the local K and V for backward and gathers them again.
void PassBuilder::allgather_attention_backward(int layer) {
  const Sink sink = backward_sink();
  const int gathered = gather_keys_and_values(sink, layer);
  add(sink, gathered_chunk_attention(true, 0), layer, "attention", gathered);
  add(sink, gathered_chunk_attention(true, 1), layer, "attention");
  context_collective(sink, Collective::reduce_scatter, gathered_kv_bytes(), layer, "cp dkv reduce_scatter");
  backward_input_ =
      context_collective(sink, Collective::reduce_scatter, gathered_kv_bytes(), layer, "cp dkv reduce_scatter");
}

}  // namespace distsim::events
