#include "events/pass_builder.hpp"

#include <algorithm>

#include "events/moe_routing.hpp"

// The mixture-of-experts layer of PassBuilder: router, permutation, expert-parallel dispatch and
// combine, grouped expert GEMMs and shared experts.
namespace distsim::events {

std::int64_t PassBuilder::tokens_per_expert(int layer) const {
  return moe_tokens_per_expert(model_, strategy_, router_tokens(layer));
}

int PassBuilder::expert_exchange(Sink sink, int layer, std::string_view label, bool dispatch, int waits_for) {
  if (expert_parallel_ == 1) {
    return waits_for;  // every expert is local: the tokens are only permuted, nothing is exchanged
  }
  const std::int64_t token_bytes = hidden() * element_bytes_;
  Event event;
  if (dispatcher_ != strategy::MoeDispatcher::allgather) {
    // Every rank sends its routed copies, router_tokens·top_k rows of h, or with the flex
    // dispatcher each token once per destination rank; the busiest rank's share (the imbalance)
    // sets when the exchange ends for all.
    const std::int64_t rows = moe_dispatched_rows(model_, strategy_, router_tokens(layer));
    event = factory_.collective(Collective::all_to_all, rows * token_bytes, expert_group_, expert_parallel_);
  } else {
    // The whole group's tokens are gathered, and the outputs reduce-scattered back.
    const std::int64_t bytes = router_tokens(layer) * expert_parallel_ * token_bytes;
    event = factory_.collective(dispatch ? Collective::all_gather : Collective::reduce_scatter, bytes, expert_group_,
                                expert_parallel_);
  }
  sink.list->push_back({table_.intern(event), StreamKind::ep_comm, sink.phase, layer, label, waits_for});
  return static_cast<int>(sink.list->size()) - 1;
}

int PassBuilder::expert_tensor_exchange(Sink sink, int layer, bool gather, int waits_for) {
  if (expert_tensor_parallel_ == 1) {
    return waits_for;
  }
  // The gathered side holds the expert tensor group's dispatched rows: etp times this rank's.
  const std::int64_t rows = moe_dispatched_copies(model_, strategy_, router_tokens(layer)) * expert_tensor_parallel_;
  const Event event =
      factory_.collective(gather ? Collective::all_gather : Collective::reduce_scatter,
                          rows * hidden() * element_bytes_, expert_tensor_group_, expert_tensor_parallel_);
  sink.list->push_back({table_.intern(event), StreamKind::etp_comm, sink.phase, layer,
                        gather ? "etp all_gather" : "etp reduce_scatter", waits_for});
  return static_cast<int>(sink.list->size()) - 1;
}

// TransformerEngine's GroupedLinear runs the expert GEMMs in the layer's low-precision format,
// per-tensor fp8 or MXFP8 block scaling (NVIDIA/TransformerEngine#2966: GroupedLinear under
// MXFP8BlockScaling; the Megatron-Bridge 25.11 FP8-MX MoE recipes).
std::optional<Dtype> PassBuilder::expert_format(int layer) const {
  return in_low_precision(layer) ? std::optional<Dtype>(gemm_dtype_) : std::nullopt;
}

void PassBuilder::experts_forward(Sink sink, int layer, int dispatched) {
  const std::int64_t m = tokens_per_expert(layer);
  const std::int64_t groups = local_experts();
  const std::int64_t width = expert_width();
  const std::int64_t rows = m * groups;
  dispatched = quantize_operand(sink, rows, hidden(), layer, dispatched);
  add(sink, factory_.grouped_gemm(groups, m, up_width(width), hidden(), expert_format(layer)), layer, "expert fc1",
      dispatched);
  activation_forward(sink, rows, width, layer, "expert activation");
  add(sink, factory_.grouped_gemm(groups, m, hidden(), width, expert_format(layer)), layer, "expert fc2",
      quantize_operand(sink, rows, width, layer));
}

void PassBuilder::experts_backward(int layer, int combined) {
  const Sink sink = backward_sink();
  const std::int64_t m = tokens_per_expert(layer);
  const std::int64_t groups = local_experts();
  const std::int64_t width = expert_width();
  const std::int64_t rows = m * groups;
  const std::optional<Dtype> format = expert_format(layer);
  // dgrad then wgrad of each grouped GEMM, as for a local linear layer.
  combined = quantize_operand(sink, rows, hidden(), layer, combined);
  add(sink, factory_.grouped_gemm(groups, m, width, hidden(), format), layer, "expert fc2", combined);
  int index = add(sink, factory_.grouped_gemm(groups, width, hidden(), m, format), layer, "expert fc2");
  backward[static_cast<size_t>(index)].weight_gradient = true;
  activation_backward(rows, width, layer, "expert activation");
  quantize_operand(sink, rows, up_width(width), layer);
  add(sink, factory_.grouped_gemm(groups, m, hidden(), up_width(width), format), layer, "expert fc1");
  index = add(sink, factory_.grouped_gemm(groups, hidden(), up_width(width), m, format), layer, "expert fc1");
  backward[static_cast<size_t>(index)].weight_gradient = true;
}

void PassBuilder::shared_fc1_forward(Sink sink, int layer, int waits_for) {
  if (model_.moe.shared_experts == 0) {
    return;
  }
  const std::int64_t t = tokens(layer);
  linear_forward(sink, t, hidden(), up_width(shared_width()), layer, "shared fc1",
                 std::max(waits_for, gather_sequence(sink, t, layer)));
  activation_forward(sink, t, shared_width(), layer, "shared activation");
}

int PassBuilder::shared_fc2_forward(Sink sink, int layer) {
  if (model_.moe.shared_experts == 0) {
    return -1;
  }
  const std::int64_t t = tokens(layer);
  linear_forward(sink, t, shared_width(), hidden(), layer, "shared fc2",
                 quantize_operand(sink, t, shared_width(), layer));
  return reduce_partial_sums(sink, t, layer);
}

void PassBuilder::shared_fc2_backward(int layer) {
  if (model_.moe.shared_experts == 0) {
    return;
  }
  row_linear_backward(tokens(layer), shared_width(), hidden(), layer, "shared fc2");
}

int PassBuilder::shared_fc1_backward(int layer) {
  if (model_.moe.shared_experts == 0) {
    return -1;
  }
  const std::int64_t t = tokens(layer);
  activation_backward(t, shared_width(), layer, "shared activation");
  return column_linear_backward(t, hidden(), up_width(shared_width()), layer, "shared fc1");
}

// Megatron-Core's router is a plain linear layer (no fp8) over the experts, then the scores and
// top-k; the permutation copies each token once per routed expert. The shared experts run after
// the routed ones, or, overlapped (token_dispatcher.py: "tokens A2A -> shared experts fc1"), their
// fc1 while the dispatch is in flight and their fc2 while the combine is.
void PassBuilder::moe_forward(Sink sink, int layer) {
  const std::int64_t t = router_tokens(layer);
  const std::int64_t experts = model_.moe.num_experts;
  const std::int64_t copies = t * model_.moe.top_k;
  const bool overlap_shared = strategy_.moe_shared_expert_overlap;
  add(sink, factory_.elementwise(norm_op(), t, hidden(), 1, 1), layer, "norm");
  add(sink, factory_.gemm(t, experts, hidden()), layer, "router");
  add(sink, factory_.moe_router(false, t, experts, model_.moe.top_k), layer, "router top-k");
  if (strategy::sends_once_per_rank(dispatcher_)) {
    flex_moe_forward(sink, layer);
    return;
  }
  const int permuted = add(sink, factory_.elementwise(Operator::moe_permute, copies, hidden(), 1, 1), layer, "permute");
  // The dispatcher sizes its exchange and the grouped GEMMs' splits from the per-expert token
  // counts, which the host reads back before it issues the all-to-all (docs/host_time.md); padded
  // to capacity, the sizes are known and nothing is read back.
  (*sink.list)[static_cast<size_t>(permuted)].host_waits = !strategy_.moe_pad_to_capacity;
  const int dispatched = expert_tensor_exchange(sink, layer, true, expert_exchange(sink, layer, "ep dispatch", true));
  if (overlap_shared) shared_fc1_forward(sink, layer);
  experts_forward(sink, layer, dispatched);
  const int combined =
      expert_exchange(sink, layer, "ep combine", false, expert_tensor_exchange(sink, layer, false, -1));
  int shared_output = overlap_shared ? shared_fc2_forward(sink, layer) : -1;
  add(sink, factory_.elementwise(Operator::moe_unpermute, copies, hidden(), 1, 1), layer, "unpermute", combined);
  if (!overlap_shared) {
    shared_fc1_forward(sink, layer);
    shared_output = shared_fc2_forward(sink, layer);
  }
  dropout_add_forward(sink, tokens(layer), layer, shared_output);
}

// Backward mirrors the forward: overlapped, the shared experts' fc2 runs while the combine's
// gradient is exchanged and their fc1 while the dispatch's is ("probs A2A -> tokens A2A -> shared
// experts fc1").
void PassBuilder::moe_backward(int layer) {
  const Sink sink = backward_sink();
  const std::int64_t t = router_tokens(layer);
  const std::int64_t experts = model_.moe.num_experts;
  const std::int64_t copies = t * model_.moe.top_k;
  const bool overlap_shared = strategy_.moe_shared_expert_overlap;
  dropout_add_backward(tokens(layer), layer);
  int shared_reduction = -1;
  if (!overlap_shared) {
    shared_fc2_backward(layer);
    shared_reduction = shared_fc1_backward(layer);
  }
  int router_input = -1;  // what the router's backward waits for besides the compute before it
  if (strategy::sends_once_per_rank(dispatcher_)) {
    router_input = flex_moe_backward(layer);
  } else {
    add(sink, factory_.elementwise(Operator::moe_unpermute_bwd, copies, hidden(), 1, 1), layer, "unpermute");
    const int combined = expert_tensor_exchange(sink, layer, true, expert_exchange(sink, layer, "ep combine", true));
    if (overlap_shared) shared_fc2_backward(layer);
    experts_backward(layer, combined);
    const int dispatched =
        expert_exchange(sink, layer, "ep dispatch", false, expert_tensor_exchange(sink, layer, false, -1));
    if (overlap_shared) shared_reduction = shared_fc1_backward(layer);
    add(sink, factory_.elementwise(Operator::moe_permute_bwd, copies, hidden(), 1, 1), layer, "permute", dispatched);
  }
  add(sink, factory_.moe_router(true, t, experts, model_.moe.top_k), layer, "router top-k", router_input);
  add(sink, factory_.gemm(t, hidden(), experts), layer, "router");
  const int index = add(sink, factory_.gemm(hidden(), experts, t), layer, "router");
  backward[static_cast<size_t>(index)].weight_gradient = true;
  add(sink, factory_.elementwise(norm_backward_op(), t, hidden(), 2, 1), layer, "norm", shared_reduction);
}

// Megatron-Core's flex dispatcher (MoEFlexTokenDispatcher on DeepEP or HybridEP): the exchange
// comes first, each token sent once to each rank that holds one of its experts, then the rank
// copies each received token for its local experts. Before the exchange moves the tokens the host
// waits for the counts each rank receives (DeepEP's CPU waits for the counts its notify kernel
// exchanges and hands them back as a list; HybridEP syncs to size its buffers): the host waits for
// the routing, the computation before the exchange. Before the combine the copies are summed back
// into one row per token and rank. The compute stream waits for the combine before the shared
// experts (or the residual add), as the dispatcher synchronizes it.
void PassBuilder::flex_moe_forward(Sink sink, int layer) {
  const std::int64_t copies = router_tokens(layer) * model_.moe.top_k;
  sink.list->back().host_waits = expert_parallel_ > 1;
  const int dispatched = expert_exchange(sink, layer, "ep dispatch", true);
  add(sink, factory_.elementwise(Operator::moe_permute, copies, hidden(), 1, 1), layer, "permute", dispatched);
  experts_forward(sink, layer, -1);
  add(sink, factory_.elementwise(Operator::moe_unpermute, copies, hidden(), 1, 1), layer, "unpermute");
  const int combined = expert_exchange(sink, layer, "ep combine", false);
  if (model_.moe.shared_experts == 0) {
    dropout_add_forward(sink, tokens(layer), layer, combined);
    return;
  }
  shared_fc1_forward(sink, layer, combined);
  dropout_add_forward(sink, tokens(layer), layer, shared_fc2_forward(sink, layer));
}

// The backward of the exchange reuses the forward's layout (DeepEP's cached dispatch): no counts
// are read back. Returns the index of the exchange that brings the tokens' gradients home.
int PassBuilder::flex_moe_backward(int layer) {
  const Sink sink = backward_sink();
  const std::int64_t copies = router_tokens(layer) * model_.moe.top_k;
  const int combined = expert_exchange(sink, layer, "ep combine", true);
  add(sink, factory_.elementwise(Operator::moe_unpermute_bwd, copies, hidden(), 1, 1), layer, "unpermute", combined);
  experts_backward(layer, -1);
  add(sink, factory_.elementwise(Operator::moe_permute_bwd, copies, hidden(), 1, 1), layer, "permute");
  return expert_exchange(sink, layer, "ep dispatch", false);
}

}  // namespace distsim::events
