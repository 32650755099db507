#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "events/event_factory.hpp"
#include "events/event_table.hpp"
#include "events/job_events.hpp"
#include "model/layer_plan.hpp"
#include "strategy/job_spec.hpp"
#include "strategy/rank_layout.hpp"

namespace distsim::events {

//! Appends the forward and backward templates of one model chunk on one rank, operator by
//! operator, with per-rank shapes under tensor parallelism (docs/reference/formats.md §6.1). Without sequence
//! parallelism each layer all-reduces twice in forward (after the attention and MLP output
//! projections) and twice in backward (the input gradients of QKV and FC1, overlapping their
//! weight-gradient GEMMs). With it (Korthikanti et al. 2022 §4.2.2) norms and dropout run on s/t
//! rows, an all-gather precedes each column-parallel GEMM and a reduce-scatter follows each
//! row-parallel one; backward swaps them and re-gathers each column-parallel GEMM's saved input
//! shard for its weight gradient, overlapping the input-gradient GEMM.
//! Where the groups that a rank's layers communicate over sit.
struct LayerGroups {
  strategy::GroupPlacement tensor;
  strategy::GroupPlacement context;
  //! With cp_comm_type a2a+p2p: the all-to-all level and the ring level of the context group.
  strategy::GroupPlacement context_a2a;
  strategy::GroupPlacement context_ring;
  strategy::GroupPlacement expert;
  strategy::GroupPlacement expert_tensor;
  bool operator==(const LayerGroups&) const = default;
};

//! The groups of the rank at `coord`.
LayerGroups layer_groups(const strategy::JobSpec& job, const strategy::RankLayout& layout,
                         const strategy::RankCoord& coord);

class LayerMemo;
struct LayerShape;
enum class LayerPass;

class PassBuilder {
 public:
  //! With a `memo` (of the same table), a transformer layer alike to one it holds is copied from
  //! it, and one it does not hold is added to it.
  PassBuilder(const strategy::JobSpec& job, const LayerGroups& groups, EventTable& table, LayerMemo* memo = nullptr);

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
  //! The model's multi-token prediction modules, each with its own layer and a pass through the
  //! shared output head and loss (pass_builder_mtp.cpp); on the chunk that holds the head.
  //! `recompute`: full recomputation reruns each module's layer before its backward.
  void mtp_forward();
  void mtp_backward(bool recompute);
  //! The all-gather over the tensor group that reassembles a pipeline tensor received in 1/t
  //! slices (scatter/gather transfers): before the forward pass for an activation, before the
  //! backward pass for a gradient. The pass's first compute step waits for it.
  void gather_received_activation(std::int64_t bytes);
  void gather_received_gradient(std::int64_t bytes);

  //! Sharding zero3: the all-gather of a unit's parameters on the DP stream, in the forward pass
  //! or the backward pass; returns its index. Issued before the compute that precedes the unit,
  //! it overlaps that compute (FSDP2's prefetch).
  int gather_parameters(bool backward_pass, const Event& event, int layer);
  //! The next compute step of that pass waits for the all-gather at `index` (-1: none).
  void await_parameters(bool backward_pass, int index);
  //! After a unit's backward: the reduce-scatter of its gradients over the shard group and, with
  //! HSDP, the all-reduce of the shard over the replica group once it is done.
  void reduce_unit_gradients(const Event& reduce_scatter, const std::optional<Event>& replica_all_reduce, int layer);

 private:
  //! Where forward-shaped work goes: the forward pass, or the backward pass as a recompute.
  struct Sink {
    std::vector<TaskTemplate>* list;
    Phase phase;
  };
  Sink forward_sink() { return {&forward, Phase::forward}; }
  Sink backward_sink() { return {&backward, Phase::backward}; }

  bool is_decoder_of_encoder_decoder(int layer) const;
  //! This rank's tokens of a micro-batch: b·s, or b·s/cp under context parallelism.
  std::int64_t tokens(int layer) const;
  std::int64_t encoder_tokens() const;
  //! Rows a norm or dropout sees: a 1/t shard of the tokens under sequence parallelism.
  std::int64_t sharded(std::int64_t token_count) const { return sequence_parallel_ ? token_count / tp_ : token_count; }
  std::int64_t hidden() const { return model_.hidden_size; }
  std::int64_t query_width() const;
  std::int64_t kv_width() const;
  //! Qwen3's per-head query/key norm (qk_norm) normalizes each of this rank's query and key heads
  //! over the head dimension: token_count x (heads + kv_heads) / t rows.
  std::int64_t qk_norm_rows(std::int64_t token_count) const {
    return token_count * (model_.num_attention_heads + model_.num_kv_heads) / tp_;
  }
  std::int64_t ffn_width() const { return model_.ffn_hidden_size / tp_; }
  std::int64_t ffn_up_width() const;
  std::int64_t vocab_width() const;
  Operator norm_op() const;
  Operator norm_backward_op() const;
  Operator qk_norm_op() const;
  Operator qk_norm_backward_op() const;
  std::int64_t activation_bytes(std::int64_t token_count) const;
  //! What a sequence-parallel all-gather before a GEMM of `layer` moves.
  std::int64_t gathered_bytes(std::int64_t token_count, int layer) const;

  int add(Sink sink, const Event& event, int layer, std::string_view label, int waits_for = -1);
  //! A collective over the tensor group; returns its index, or -1 when tp = 1.
  int tensor_collective(Sink sink, Collective collective, std::int64_t bytes, int layer);
  //! Before a column-parallel GEMM: the all-gather of the sequence shards (sequence
  //! parallelism), or nothing. Returns the index for the GEMM to wait for, or -1.
  int gather_sequence(Sink sink, std::int64_t token_count, int layer);
  //! After a row-parallel GEMM: the reduce-scatter (sequence parallelism) or all-reduce of the
  //! partial sums. Returns the index for the next step to wait for, or -1.
  int reduce_partial_sums(Sink sink, std::int64_t token_count, int layer);

  //! The transformer layers' linear GEMMs run in the job's low-precision format, except the
  //! layers kept in bf16 at the start and the end; the embedding and LM head (layer -1) never do.
  bool in_low_precision(int layer) const;
  //! The low-precision format of the layer's expert GEMMs; none when they run in 16 bits.
  std::optional<Dtype> expert_format(int layer) const;
  Event linear_gemm(int layer, std::int64_t m, std::int64_t n, std::int64_t k) const;
  //! A layer's norm; in an fp8 layer it writes the next GEMM's fp8 input (TE's LayerNormLinear).
  //! Under mxfp8 and nvfp4 it writes bf16 and quantize_operand quantizes its output.
  void norm_forward(Sink sink, std::int64_t rows, int layer);
  //! In a low-precision layer, TE's quantization of a GEMM operand (fp8_cast_transpose, or the
  //! block formats' quantize kernel) where no norm has written it in the format (the input of a
  //! row-parallel GEMM, an output gradient). Returns what the GEMM still has to wait for.
  int quantize_operand(Sink sink, std::int64_t rows, std::int64_t cols, int layer, int waits_for = -1);
  void linear_forward(Sink sink, std::int64_t token_count, std::int64_t in, std::int64_t out, int layer,
                      std::string_view label, int waits_for = -1);
  //! dgrad then wgrad of a column-parallel GEMM, with the input gradient summed over the tensor
  //! group while wgrad runs. Returns that reduction's index for the next step to wait for, or -1.
  int column_linear_backward(std::int64_t token_count, std::int64_t in, std::int64_t out, int layer,
                             std::string_view label);
  //! The GEMMs of a column-parallel backward once its input's gather is under way: dgrad, the
  //! reduction over the tensor group of the `reduced_width`-wide input gradient, then wgrad,
  //! which waits for `gathered_input`. Returns the reduction's index, or -1.
  int column_backward_gemms(std::int64_t token_count, std::int64_t in, std::int64_t out, std::int64_t reduced_width,
                            int layer, std::string_view label, int gathered_input);
  //! dgrad then wgrad of a row-parallel GEMM, after gathering the output gradient's shards.
  void row_linear_backward(std::int64_t token_count, std::int64_t in, std::int64_t out, int layer,
                           std::string_view label);
  //! The wgrad GEMM of a linear layer, dW = Xᵀ·dY over `token_count` rows, marked as weight
  //! gradient (TaskTemplate::weight_gradient).
  void weight_gradient_gemm(std::int64_t token_count, std::int64_t in, std::int64_t out, int layer,
                            std::string_view label, int waits_for = -1);
  //! dgrad then wgrad with no tensor-parallel communication.
  void local_linear_backward(std::int64_t token_count, std::int64_t in, std::int64_t out, int layer,
                             std::string_view label, int waits_for = -1);

  //! The attention core between the QKV and output projections: one FlashAttention kernel, or
  //! unfused (Megatron-LM before FlashAttention) a batched GEMM QKᵀ over the full s×s_kv scores
  //! (the causal mask is applied by the softmax, so nothing is skipped), the fused
  //! scale-mask-softmax, dropout on the probabilities (with a 1-byte mask) and a batched GEMM P·V.
  void attention_core_forward(Sink sink, int layer, bool cross);
  //! The fused attention kernel of the layer's self- or cross-attention, forward or backward.
  Event fused_attention(bool backward_pass, int layer, bool cross) const;
  //! Unfused, the reverse: dP = dO·Vᵀ and dV = Pᵀ·dO, dropout and softmax backward, then
  //! dQ = dS·K and dK = dSᵀ·Q, four batched GEMMs in all. Selective recomputation first reruns
  //! the core's forward (phase recompute), since it kept none of the scores.
  void attention_core_backward(int layer, bool cross);
  //! The attention core under context parallelism, by cp_comm_type (pass_builder_cp.cpp).
  void context_attention_forward(Sink sink, int layer);
  void context_attention_backward(int layer);
  //! Context parallelism's ring attention (TransformerEngine's AttnFuncWithCPAndKVP2P): cp
  //! attention steps, each on the K/V block the previous exchange brought. Exchange i runs on the
  //! CP stream beside step i and step i + 1 waits for it. Forward starts on the local K/V and
  //! rotates K/V (cp − 1 exchanges). Backward runs the blocks in reverse, ending on the local one,
  //! and rotates K/V and the dK/dV partial sums: K/V alone first, both in the middle, dK/dV alone
  //! last (cp exchanges); the step after the attention core waits for the last one.
  //! `inputs`: the step the first attention step waits for (a2a+p2p's all-to-all), or -1.
  void ring_attention_forward(Sink sink, int layer, int inputs);
  void ring_attention_backward(int layer, int inputs);
  //! The ring's ranks and what each holds on it: p2p runs it over the cp ranks with s/cp tokens
  //! and the tensor rank's heads; a2a+p2p over cp / cp_a2a_size ranks, each with the
  //! s·cp_a2a_size/cp tokens of its all-to-all group for heads/cp_a2a_size of them.
  struct Ring {
    int size;
    std::int64_t local_seq;
    std::int64_t heads;
    std::int64_t kv_heads;
    const strategy::GroupPlacement* group;
  };
  Ring ring() const;
  //! One step of the ring. `diagonal`: the causal block of the local chunks against themselves.
  //! Otherwise half a block (causal load balancing: the second local chunk's queries against a
  //! whole remote K/V block, what CP rank 0 runs; other ranks run the same FLOPs on the transposed
  //! half). Without the causal mask every step is a whole block.
  Event ring_attention_step(bool backward_pass, bool diagonal) const;
  //! K and V of the ring's block: 2·b·local_seq·kv_heads·d elements. p2p: s/cp tokens of kv_heads/t
  //! heads; a2a+p2p: cp_a2a_size times the tokens of 1/cp_a2a_size of the heads, the same bytes.
  std::int64_t kv_block_bytes() const;
  //! A ring exchange over the ring's group on the CP stream; returns its index.
  int context_exchange(Sink sink, std::int64_t bytes, int layer, std::string_view label);
  //! A collective over the context-parallel group (a2a+p2p: its all-to-all level) on the CP
  //! stream; returns its index.
  int context_collective(Sink sink, Collective collective, std::int64_t bytes, int layer, std::string_view label);
  //! cp_comm_type a2a+p2p (AttnFuncWithCPAndKVP2P with an all-to-all group and a ring group): the
  //! all-to-all of Q, K and V inside the group, the ring across the groups, the all-to-all of the
  //! output back. Backward: the all-to-all of dO, the ring backward, the all-to-all of dQ, dK, dV.
  void hierarchical_attention_forward(Sink sink, int layer);
  void hierarchical_attention_backward(int layer);
  //! cp_comm_type a2a (TransformerEngine's AttnFuncWithCPAndQKVOA2A): an all-to-all of Q, K and V
  //! gives each rank the whole sequence for heads/cp of its heads, attention runs over it, and an
  //! all-to-all of the output restores the sequence shards; the next step waits for it. Backward:
  //! the all-to-all of dO, attention backward, the all-to-all of dQ, dK and dV.
  void a2a_attention_forward(Sink sink, int layer);
  void a2a_attention_backward(int layer);
  //! The rank's Q, K, V (q_and_kv) or O (otherwise) for its s/cp tokens, the buffer each rank sends.
  std::int64_t a2a_bytes(bool q_and_kv) const;
  //! cp_comm_type allgather (TransformerEngine's AttnFuncWithCPAndKVAllGather): K and V gathered
  //! from every rank, then the rank's two load-balanced query chunks against the keys up to their
  //! end. Backward gathers K and V again, runs both chunks and reduce-scatters dK and dV.
  void allgather_attention_forward(Sink sink, int layer);
  void allgather_attention_backward(int layer);
  //! Attention of one of CP rank 0's two query chunks against the gathered keys: chunk 0 (the
  //! sequence's first s/(2cp) tokens) against itself, causal; chunk 1 (the last s/(2cp)) against
  //! the whole sequence, causal bottom-right. Without the causal mask both see every key.
  Event gathered_chunk_attention(bool backward_pass, int chunk) const;
  //! Gathers K and V (one all-gather each, s tokens); returns the second one's index.
  int gather_keys_and_values(Sink sink, int layer);
  //! The gathered K (or V): the whole sequence's tokens for this rank's KV heads.
  std::int64_t gathered_kv_bytes() const;
  void attention_block_forward(Sink sink, int layer, bool cross);
  void mtp_head_forward(int layer);
  //! Multi-head latent attention in place of the self-attention block (pass_builder_mla.cpp).
  void latent_attention_forward(Sink sink, int layer);
  void latent_attention_backward(int layer);
  std::int64_t latent_heads() const;
  //! This rank's query width: heads/t x (qk_nope + qk_rope).
  std::int64_t latent_query_width() const;
  //! The key/value up-projection's output on this rank: heads/t x (qk_nope + v_head_dim).
  std::int64_t latent_kv_up_width() const;
  std::int64_t latent_value_width() const;
  //! The key/value down-projection's output: kv_lora_rank + qk_rope (the shared RoPE key).
  std::int64_t latent_kv_down_width() const;
  void latent_norm_forward(Sink sink, std::int64_t rows, std::int64_t cols, int layer, std::string_view label);
  //! The query and key/value up-projections and RoPE, in forward or rerun before the backward.
  void latent_up_forward(Sink sink, int layer);
  //! The sequence-parallel all-gather of a latent of `width` before an up-projection, or -1.
  int gather_latent(Sink sink, std::int64_t token_count, std::int64_t width, int layer);
  int latent_up_backward(std::int64_t token_count, std::int64_t in, std::int64_t out, int layer, std::string_view label,
                         std::int64_t latent_width);
  void attention_block_backward(int layer, bool cross);
  void mlp_forward(Sink sink, int layer);
  void mlp_backward(int layer);

  //! A mixture-of-experts MLP in place of the dense one (Megatron-Core MoELayer with the
  //! alltoall or allgather token dispatcher): the router's gating GEMM, scoring and top-k; the
  //! tokens permuted into expert order and dispatched over the expert-parallel group on the EP
  //! stream; the local experts as grouped GEMMs; the outputs combined back and unpermuted; then
  //! the shared experts, tensor-parallel like a dense MLP. The compute stream waits for each
  //! dispatch and combine. Backward runs the same in reverse, with two more exchanges.
  void moe_forward(Sink sink, int layer);
  void moe_backward(int layer);
  //! The router's input: this rank's tokens, a 1/t shard of them under sequence parallelism.
  std::int64_t router_tokens(int layer) const { return sharded(tokens(layer)); }
  //! moe_tokens_per_expert of this layer's router tokens.
  std::int64_t tokens_per_expert(int layer) const;
  int local_experts() const { return model_.moe.num_experts / expert_parallel_; }
  //! Dispatch or combine over the expert-parallel group on the EP stream, waiting for the template
  //! at `waits_for` (-1: none) besides the compute before it; returns its index, or `waits_for`
  //! with ep 1, where every expert is local and nothing is exchanged.
  int expert_exchange(Sink sink, int layer, std::string_view label, bool dispatch, int waits_for = -1);
  //! Under expert tensor parallelism (etp > 1), Megatron-Core's alltoall dispatcher gathers the
  //! dispatched tokens over the expert tensor group before the experts and reduce-scatters their
  //! outputs before the combine (token_dispatcher.py, dispatch_postprocess and
  //! combine_preprocess), on the ETP stream; backward swaps the two. `gather` waits for the
  //! template at `waits_for` besides the compute before it. Returns its index, or `waits_for`
  //! unchanged with etp 1.
  int expert_tensor_exchange(Sink sink, int layer, bool gather, int waits_for);
  //! Each expert's FFN width on this rank: the expert FFN split over the expert tensor group.
  std::int64_t expert_width() const { return model_.moe.expert_ffn_hidden_size / expert_tensor_parallel_; }
  //! The local experts' grouped GEMMs; the first waits for `dispatched` (the tokens' arrival).
  void experts_forward(Sink sink, int layer, int dispatched);
  //! The same backward; the first waits for `combined` (the output gradients' arrival).
  void experts_backward(int layer, int combined);
  //! Shared experts: one dense MLP of shared_experts x shared_expert_ffn_hidden_size, split over
  //! the tensor group, in the two halves Megatron-Core's shared-expert overlap places apart (fc1
  //! and the activation; fc2); nothing without shared experts. The second half returns the index
  //! of its output reduction, or -1.
  void shared_fc1_forward(Sink sink, int layer, int waits_for = -1);
  //! The MoE block's exchange and expert work under the flex dispatcher (pass_builder_moe.cpp).
  void flex_moe_forward(Sink sink, int layer);
  int flex_moe_backward(int layer);
  int shared_fc2_forward(Sink sink, int layer);
  //! The backward halves; the second returns the index of its input-gradient reduction, or -1.
  void shared_fc2_backward(int layer);
  int shared_fc1_backward(int layer);
  std::int64_t shared_width() const {
    return std::int64_t{model_.moe.shared_experts} * model_.moe.shared_expert_ffn_hidden_size / tp_;
  }
  std::int64_t up_width(std::int64_t width) const { return (model::is_gated(model_.ffn_type) ? 2 : 1) * width; }
  //! A Mamba-2 layer (pass_builder_mamba.cpp).
  void mamba_forward(Sink sink, int layer);
  void mamba_backward(int layer);
  //! The SSD scan's batches: micro-batch sequences x chunks, and this rank's heads and groups.
  struct ScanShape {
    std::int64_t chunks;
    std::int64_t heads;
    std::int64_t groups;
  };
  ScanShape scan_shape(int layer) const;
  void ssd_scan_forward(Sink sink, int layer);
  void ssd_scan_backward(int layer);
  Event state_passing(bool backward_pass, int layer) const;
  void activation_forward(Sink sink, std::int64_t rows, std::int64_t width, int layer, std::string_view label);
  void activation_backward(std::int64_t rows, std::int64_t width, int layer, std::string_view label);
  void layer_forward(Sink sink, int layer);
  //! One block of a layer (model::layer_plan), forward or rerun, or backward.
  void block_forward(model::LayerBlock block, Sink sink, int layer);
  void block_backward(model::LayerBlock block, int layer);
  LayerShape layer_shape(int layer) const;
  //! One pass of a layer: copied from the memo, or built (and then recorded when the memo can
  //! hold it).
  void build_layer(LayerPass pass, Sink sink, int layer);
  void emit_layer(LayerPass pass, Sink sink, int layer);
  void dropout_add_forward(Sink sink, std::int64_t token_count, int layer, int waits_for);
  void dropout_add_backward(std::int64_t token_count, int layer);

  const model::ModelSpec& model_;
  EventTable& table_;
  EventFactory factory_;
  int tp_;
  int batch_;
  int element_bytes_;
  bool sequence_parallel_;
  bool unfused_attention_;
  strategy::Recompute recompute_;
  strategy::GemmFormat gemm_format_;
  Dtype gemm_dtype_;
  strategy::GroupPlacement tensor_group_;
  int cp_;
  strategy::CpCommType cp_comm_type_;
  strategy::GroupPlacement context_group_;
  strategy::GroupPlacement context_a2a_group_;
  strategy::GroupPlacement context_ring_group_;
  int cp_a2a_size_;
  strategy::GroupPlacement expert_group_;
  int expert_parallel_;
  strategy::GroupPlacement expert_tensor_group_;
  int expert_tensor_parallel_;
  strategy::MoeDispatcher dispatcher_;
  const strategy::Strategy& strategy_;
  LayerGroups groups_;
  LayerMemo* memo_;
  //! A forward collective whose output is the next forward compute step's input and which
  //! nothing else waits for (the embedding's reduction): that step waits for it.
  int forward_input_ = -1;
  //! The same for the backward pass's next compute step (a gathered received gradient, or the
  //! last dK/dV exchange of ring attention).
  int backward_input_ = -1;
  //! The parameter all-gather the next forward (backward) compute step waits for.
  int forward_parameters_ = -1;
  int backward_parameters_ = -1;
};

}  // namespace distsim::events
