#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "events/event_factory.hpp"
#include "events/event_table.hpp"
#include "events/job_events.hpp"
#include "strategy/job_spec.hpp"
#include "strategy/rank_layout.hpp"

namespace distsim::events {

//! Appends the forward and backward templates of one model chunk on one rank, operator by
//! operator, with per-rank shapes under tensor parallelism (formats.md §6.1). Without sequence
//! parallelism each layer all-reduces twice in forward (after the attention and MLP output
//! projections) and twice in backward (the input gradients of QKV and FC1, overlapping their
//! weight-gradient GEMMs). With it (Korthikanti et al. 2022 §4.2.2) norms and dropout run on s/t
//! rows, an all-gather precedes each column-parallel GEMM and a reduce-scatter follows each
//! row-parallel one; backward swaps them and re-gathers each column-parallel GEMM's saved input
//! shard for its weight gradient, overlapping the input-gradient GEMM.
class PassBuilder {
 public:
  PassBuilder(const strategy::JobSpec& job, const strategy::GroupPlacement& tensor_group, EventTable& table);

  std::vector<TaskTemplate> forward;
  std::vector<TaskTemplate> backward;

  void embedding_forward();
  void embedding_backward();
  void layer_forward(int layer);
  //! The layer's forward rerun at this point of the backward pass, collectives included, with
  //! phase recompute (full activation recomputation).
  void layer_recompute(int layer);
  void layer_backward(int layer);
  void head_forward();
  void head_backward();

 private:
  //! Where forward-shaped work goes: the forward pass, or the backward pass as a recompute.
  struct Sink {
    std::vector<TaskTemplate>* list;
    Phase phase;
  };
  Sink forward_sink() { return {&forward, Phase::forward}; }
  Sink backward_sink() { return {&backward, Phase::backward}; }

  bool is_decoder_of_encoder_decoder(int layer) const;
  std::int64_t tokens(int layer) const;
  std::int64_t encoder_tokens() const;
  //! Rows a norm or dropout sees: a 1/t shard of the tokens under sequence parallelism.
  std::int64_t sharded(std::int64_t token_count) const { return sequence_parallel_ ? token_count / tp_ : token_count; }
  std::int64_t hidden() const { return model_.hidden_size; }
  std::int64_t query_width() const;
  std::int64_t kv_width() const;
  std::int64_t ffn_width() const { return model_.ffn_hidden_size / tp_; }
  std::int64_t ffn_up_width() const;
  std::int64_t vocab_width() const;
  std::string norm_op() const;
  std::int64_t activation_bytes(std::int64_t token_count) const;

  int add(Sink sink, const Event& event, int layer, std::string_view label, int waits_for = -1);
  //! A collective over the tensor group; returns its index, or -1 when tp = 1.
  int tensor_collective(Sink sink, Collective collective, std::int64_t bytes, int layer);
  //! Before a column-parallel GEMM: the all-gather of the sequence shards (sequence
  //! parallelism), or nothing. Returns the index for the GEMM to wait for, or -1.
  int gather_sequence(Sink sink, std::int64_t token_count, int layer);
  //! After a row-parallel GEMM: the reduce-scatter (sequence parallelism) or all-reduce of the
  //! partial sums. Returns the index for the next step to wait for, or -1.
  int reduce_partial_sums(Sink sink, std::int64_t token_count, int layer);

  void linear_forward(Sink sink, std::int64_t token_count, std::int64_t in, std::int64_t out, int layer,
                      std::string_view label, int waits_for = -1);
  //! dgrad then wgrad of a column-parallel GEMM, with the input gradient summed over the tensor
  //! group while wgrad runs. Returns that reduction's index for the next step to wait for, or -1.
  int column_linear_backward(std::int64_t token_count, std::int64_t in, std::int64_t out, int layer,
                             std::string_view label);
  //! dgrad then wgrad of a row-parallel GEMM, after gathering the output gradient's shards.
  void row_linear_backward(std::int64_t token_count, std::int64_t in, std::int64_t out, int layer,
                           std::string_view label);
  //! dgrad then wgrad with no tensor-parallel communication.
  void local_linear_backward(std::int64_t token_count, std::int64_t in, std::int64_t out, int layer,
                             std::string_view label, int waits_for = -1);

  //! The attention core between the QKV and output projections: one FlashAttention kernel, or
  //! unfused (Megatron-LM before FlashAttention) a batched GEMM QKᵀ over the full s×s_kv scores
  //! (the causal mask is applied by the softmax, so nothing is skipped), the fused
  //! scale-mask-softmax, dropout on the probabilities (with a 1-byte mask) and a batched GEMM P·V.
  void attention_core_forward(Sink sink, int layer, bool cross);
  //! Unfused, the reverse: dP = dO·Vᵀ and dV = Pᵀ·dO, dropout and softmax backward, then
  //! dQ = dS·K and dK = dSᵀ·Q, four batched GEMMs in all. Selective recomputation first reruns
  //! the core's forward (phase recompute), since it kept none of the scores.
  void attention_core_backward(int layer, bool cross);
  void attention_block_forward(Sink sink, int layer, bool cross);
  void attention_block_backward(int layer, bool cross);
  void mlp_forward(Sink sink, int layer);
  void mlp_backward(int layer);
  void layer_forward(Sink sink, int layer);
  void dropout_add_forward(Sink sink, std::int64_t token_count, int layer, int waits_for);

  const model::ModelSpec& model_;
  EventTable& table_;
  EventFactory factory_;
  int tp_;
  int batch_;
  int element_bytes_;
  bool sequence_parallel_;
  bool unfused_attention_;
  bool selective_recompute_;
  strategy::GroupPlacement tensor_group_;
  //! A forward collective whose output is the next forward compute step's input and which
  //! nothing else waits for (the embedding's reduction): that step waits for it.
  int forward_input_ = -1;
};

}  // namespace distsim::events
