#include "events/pass_builder.hpp"

#include <string_view>
#include <vector>

// The Mamba-2 layers of a hybrid model, as Megatron-Core's MambaLayer runs them in training
// (megatron/core/ssm/mamba_layer.py, mamba_mixer.py on mamba_ssm's
// mamba_split_conv1d_scan_combined; Dao and Gu, arXiv 2405.21060): the pre-norm (fused into the
// input projection by TransformerEngine, priced as its own kernel as in the attention block) and
// the column-parallel input projection to z, x, B, C and dt; the causal depthwise convolution over
// x, B and C with SiLU; the SSD scan in chunks; the gate silu(z) and the RMSNorm over groups of
// the heads; the row-parallel output projection and the residual add. Tensor parallelism splits the heads and the
// groups of B and C, so every width below is a rank's share.
//
// The SSD scan (the paper's §6 chunked algorithm, mamba_ssm's mamba_chunk_scan_combined) is priced
// as its matrix products, each a batched GEMM over the micro-batch's chunks: C·Bᵀ within a chunk
// per group, each head's chunk state Bᵀ·X, and the chunk's output from its own inputs
// ((C·Bᵀ ∘ decay)·X) and from the states passed in (C·state); the recurrence between chunks is a
// memory-bound pass over the fp32 states. Backward runs each product's two gradient products.
namespace distsim::events {

namespace {

//! One SSD product A[m x k]·B[k x n], `per_group`: batched over the groups rather than the heads.
struct ScanProduct {
  std::string_view label;
  std::int64_t m;
  std::int64_t n;
  std::int64_t k;
  bool per_group;
};

}  // namespace

PassBuilder::ScanShape PassBuilder::scan_shape(int layer) const {
  const model::MambaSpec& mamba = model_.mamba;
  const std::int64_t length = tokens(layer) / batch_;
  const std::int64_t chunks = (length + mamba.chunk_size - 1) / mamba.chunk_size;
  return {std::int64_t{batch_} * chunks, mamba.num_heads / tp_, mamba.groups / tp_};
}

void PassBuilder::mamba_forward(Sink sink, int layer) {
  const model::MambaSpec& mamba = model_.mamba;
  const std::int64_t t = tokens(layer);
  const std::int64_t inner = mamba.inner() / tp_;
  norm_forward(sink, sharded(t), layer);
  linear_forward(sink, t, hidden(), mamba.in_projection() / tp_, layer, "in proj", gather_sequence(sink, t, layer));
  add(sink, factory_.elementwise(Operator::causal_conv1d, t, mamba.conv_channels() / tp_, 1, 1), layer, "conv1d");
  ssd_scan_forward(sink, layer);
  add(sink, factory_.elementwise(Operator::rmsnorm_gated, t, inner, 2, 1), layer, "gated norm");
  linear_forward(sink, t, inner, hidden(), layer, "out proj", quantize_operand(sink, t, inner, layer));
  dropout_add_forward(sink, t, layer, reduce_partial_sums(sink, t, layer));
}

void PassBuilder::mamba_backward(int layer) {
  const model::MambaSpec& mamba = model_.mamba;
  const Sink sink = backward_sink();
  const std::int64_t t = tokens(layer);
  const std::int64_t inner = mamba.inner() / tp_;
  dropout_add_backward(t, layer);
  row_linear_backward(t, inner, hidden(), layer, "out proj");
  add(sink, factory_.elementwise(Operator::rmsnorm_gated_bwd, t, inner, 3, 2), layer, "gated norm");
  // The combined scan saves the convolution's input, not its output: its backward reruns it.
  add(sink, factory_.elementwise(Operator::causal_conv1d, t, mamba.conv_channels() / tp_, 1, 1), layer, "conv1d");
  ssd_scan_backward(layer);
  add(sink, factory_.elementwise(Operator::causal_conv1d_bwd, t, mamba.conv_channels() / tp_, 2, 1), layer, "conv1d");
  const int reduction = column_linear_backward(t, hidden(), mamba.in_projection() / tp_, layer, "in proj");
  add(sink, factory_.elementwise(norm_backward_op(), sharded(t), hidden(), 2, 1), layer, "norm", reduction);
}

namespace {

//! The forward products in the order the scan runs them; the state recurrence runs between the
//! chunk states and the output.
std::vector<ScanProduct> scan_products(const model::MambaSpec& mamba) {
  const std::int64_t q = mamba.chunk_size;
  const std::int64_t p = mamba.head_dim;
  const std::int64_t n = mamba.state_size;
  return {{"ssd CB", q, q, n, true},
          {"ssd chunk state", n, p, q, false},
          {"ssd chunk output", q, p, q, false},
          {"ssd state output", q, p, n, false}};
}

}  // namespace

void PassBuilder::ssd_scan_forward(Sink sink, int layer) {
  const ScanShape shape = scan_shape(layer);
  const std::vector<ScanProduct> products = scan_products(model_.mamba);
  for (std::size_t i = 0; i < products.size(); ++i) {
    const ScanProduct& product = products[i];
    const std::int64_t batch = shape.chunks * (product.per_group ? shape.groups : shape.heads);
    add(sink, factory_.batched_gemm(batch, product.m, product.n, product.k), layer, product.label);
    if (i == 1) {
      add(sink, state_passing(false, layer), layer, "ssd state passing");
    }
  }
}

// Each product C = A·B has the gradients dA = dC·Bᵀ (m x k over n) and dB = Aᵀ·dC (k x n over m).
void PassBuilder::ssd_scan_backward(int layer) {
  const Sink sink = backward_sink();
  const ScanShape shape = scan_shape(layer);
  const std::vector<ScanProduct> products = scan_products(model_.mamba);
  for (std::size_t i = products.size(); i-- > 0;) {
    const ScanProduct& product = products[i];
    const std::int64_t batch = shape.chunks * (product.per_group ? shape.groups : shape.heads);
    add(sink, factory_.batched_gemm(batch, product.m, product.k, product.n), layer, product.label);
    add(sink, factory_.batched_gemm(batch, product.k, product.n, product.m), layer, product.label);
    if (i == 1) {
      add(sink, state_passing(true, layer), layer, "ssd state passing");
    }
  }
}

// Each chunk state is head_dim x state_size in fp32, read and written once: in a 16-bit job as many
// bytes as two reads and two writes of the job's elements.
Event PassBuilder::state_passing(bool backward_pass, int layer) const {
  constexpr int kStateBytes = 4;
  const int passes = kStateBytes / element_bytes_;
  const ScanShape shape = scan_shape(layer);
  const std::int64_t state = std::int64_t{model_.mamba.head_dim} * model_.mamba.state_size;
  const Operator op = backward_pass ? Operator::ssd_state_passing_bwd : Operator::ssd_state_passing;
  return factory_.elementwise(op, shape.chunks * shape.heads, state, passes, passes);
}

}  // namespace distsim::events
