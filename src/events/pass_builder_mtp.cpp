#include "events/pass_builder.hpp"

// Multi-token prediction modules of PassBuilder, as Megatron-Core's MultiTokenPredictionLayer runs
// them (megatron/core/transformer/multi_token_prediction.py; DeepSeek-V3 report, arXiv 2412.19437
// §2.2): the embedding of the tokens shifted by one more position, RMSNorms of it and of the
// previous depth's hidden states, their concatenation projected 2h → h (eh_proj, column-parallel,
// its output gathered over the tensor group), one transformer layer, and the output head and loss
// shared with the main model. Module k's layer is numbered num_layers + k, after the decoder's.
namespace distsim::events {

void PassBuilder::mtp_forward() {
  const Sink sink = forward_sink();
  for (int k = 0; k < model_.mtp_layers; ++k) {
    const int layer = model_.num_layers + k;
    const std::int64_t t = tokens(layer);
    add(sink, factory_.elementwise(Operator::embedding, t, hidden(), 1, 1), layer, "mtp embedding");
    const int embedded = reduce_partial_sums(sink, t, layer);
    add(sink, factory_.elementwise(norm_op(), sharded(t), hidden(), 1, 1), layer, "mtp enorm", embedded);
    add(sink, factory_.elementwise(norm_op(), sharded(t), hidden(), 1, 1), layer, "mtp hnorm");
    // The concatenation is 2h wide: its sequence gather moves the bytes of 2t rows of h.
    linear_forward(sink, t, 2 * hidden(), hidden() / tp_, layer, "mtp eh proj", gather_sequence(sink, 2 * t, layer));
    forward_input_ = tensor_collective(sink, Collective::all_gather, activation_bytes(t), layer);
    layer_forward(sink, layer);
    mtp_head_forward(layer);
  }
}

void PassBuilder::mtp_head_forward(int layer) {
  const Sink sink = forward_sink();
  const std::int64_t t = tokens(layer);
  add(sink, factory_.elementwise(norm_op(), sharded(t), hidden(), 1, 1), layer, "mtp final norm");
  linear_forward(sink, t, hidden(), vocab_width(), layer, "mtp lm head", gather_sequence(sink, t, layer));
  add(sink, factory_.elementwise(Operator::cross_entropy, t, vocab_width(), 1, 1), layer, "mtp loss");
  for (int i = 0; i < 3; ++i) {
    tensor_collective(sink, Collective::all_reduce, t * 4, layer);
  }
}

void PassBuilder::mtp_backward(bool recompute) {
  const Sink sink = backward_sink();
  for (int k = model_.mtp_layers - 1; k >= 0; --k) {
    const int layer = model_.num_layers + k;
    const std::int64_t t = tokens(layer);
    const std::int64_t rows = sharded(t);
    add(sink, factory_.elementwise(Operator::cross_entropy_bwd, t, vocab_width(), 1, 1), layer, "mtp loss");
    const int head_reduction = column_linear_backward(t, hidden(), vocab_width(), layer, "mtp lm head");
    add(sink, factory_.elementwise(norm_backward_op(), rows, hidden(), 2, 1), layer, "mtp final norm", head_reduction);
    if (recompute) {
      layer_recompute(layer);
    }
    layer_backward(layer);
    // The gathered output's backward keeps this rank's slice; the input gradient of the 2h-wide
    // concatenation is reduced over the tensor group (2t rows of h).
    const int gathered_input = gather_sequence(sink, 2 * t, layer);
    quantize_operand(sink, t, hidden() / tp_, layer);
    add(sink, linear_gemm(layer, t, 2 * hidden(), hidden() / tp_), layer, "mtp eh proj");
    const Collective collective = sequence_parallel_ ? Collective::reduce_scatter : Collective::all_reduce;
    const int reduction = tensor_collective(sink, collective, activation_bytes(2 * t), layer);
    weight_gradient_gemm(t, 2 * hidden(), hidden() / tp_, layer, "mtp eh proj", gathered_input);
    add(sink, factory_.elementwise(norm_backward_op(), rows, hidden(), 2, 1), layer, "mtp hnorm", reduction);
    add(sink, factory_.elementwise(norm_backward_op(), rows, hidden(), 2, 1), layer, "mtp enorm");
    const int gathered = gather_sequence(sink, t, layer);
    add(sink, factory_.elementwise(Operator::embedding_bwd, t, hidden(), 2, 1), layer, "mtp embedding", gathered);
  }
}

}  // namespace distsim::events
