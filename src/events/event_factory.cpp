#include "events/event_factory.hpp"

#include "core/input_error.hpp"

namespace distsim::events {

namespace {

//! An event of compute operator `op` whose dimensions are `values`, named by the dim and flag
//! fields of the operator's key in order.
Event compute_event(Operator op, Dtype dtype, std::initializer_list<std::int64_t> values) {
  const OperatorSpec& spec = operator_spec(op);
  Event event;
  event.event_class = spec.event_class;
  event.op = op;
  event.dtype = dtype;
  event.dims.reserve(values.size());
  const auto* value = values.begin();
  for (const auto& field : spec.fields) {
    if (field.type != KeyFieldType::dim && field.type != KeyFieldType::flag &&
        field.type != KeyFieldType::optional_dim) {
      continue;
    }
    if (value == values.end()) {
      throw InternalError("too few dimensions for operator '" + std::string(spec.name) + "'");
    }
    const std::int64_t given = *value++;
    if (field.type != KeyFieldType::optional_dim || given != 0) {
      event.dims.push_back({field.name, given});
    }
  }
  if (value != values.end()) {
    throw InternalError("too many dimensions for operator '" + std::string(spec.name) + "'");
  }
  return event;
}

}  // namespace

Event EventFactory::gemm(std::int64_t m, std::int64_t n, std::int64_t k) const {
  Event event = compute_event(Operator::gemm, dtype_, {m, n, k});
  event.flops = 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  event.bytes_moved = static_cast<double>(element_) * static_cast<double>(m * k + k * n + m * n);
  return event;
}

Event EventFactory::fp8_gemm(std::int64_t m, std::int64_t n, std::int64_t k) const {
  return low_precision_gemm(Dtype::fp8, m, n, k);
}

Event EventFactory::low_precision_gemm(Dtype format, std::int64_t m, std::int64_t n, std::int64_t k) const {
  Event event = gemm(m, n, k);
  event.dtype = format;
  const auto inputs = static_cast<double>(m * k + k * n);
  event.bytes_moved = storage_bytes(format) * inputs + static_cast<double>(element_) * static_cast<double>(m * n);
  return event;
}

Event EventFactory::batched_gemm(std::int64_t batch, std::int64_t m, std::int64_t n, std::int64_t k) const {
  const Event product = gemm(m, n, k);
  Event event = compute_event(Operator::batched_gemm, dtype_, {batch, m, n, k});
  event.flops = product.flops * static_cast<double>(batch);
  event.bytes_moved = product.bytes_moved * static_cast<double>(batch);
  return event;
}

Event EventFactory::grouped_gemm(std::int64_t groups, std::int64_t m, std::int64_t n, std::int64_t k,
                                 std::optional<Dtype> format) const {
  const Event product = format ? low_precision_gemm(*format, m, n, k) : gemm(m, n, k);
  Event event = compute_event(Operator::grouped_gemm, product.dtype, {groups, m, n, k});
  event.flops = product.flops * static_cast<double>(groups);
  event.bytes_moved = product.bytes_moved * static_cast<double>(groups);
  return event;
}

Event EventFactory::attention(bool backward, std::int64_t batch, std::int64_t heads, std::int64_t kv_heads,
                              std::int64_t seq_q, std::int64_t seq_kv, std::int64_t head_dim, bool causal,
                              std::int64_t window) const {
  // A window as long as the sequence changes nothing, so its events are the full causal ones.
  const std::int64_t effective_window = window < seq_kv ? window : 0;
  if (effective_window > 0 && (!causal || seq_q != seq_kv)) {
    throw InternalError("a sliding window is priced only for causal self-attention over the whole sequence");
  }
  Event event = compute_event(backward ? Operator::flash_attention_bwd : Operator::flash_attention_fwd, dtype_,
                              {batch, heads, kv_heads, seq_q, seq_kv, head_dim, causal ? 1 : 0, effective_window});
  double forward_flops = 4.0 * static_cast<double>(batch * heads) * static_cast<double>(seq_q) *
                         static_cast<double>(seq_kv) * static_cast<double>(head_dim) * (causal ? 0.5 : 1.0);
  if (effective_window > 0) {
    // Queries 0 .. w-1 see 1 .. w keys, w(w+1)/2 pairs; the other sq - w see w keys each.
    const auto w = static_cast<double>(effective_window);
    const double pairs = static_cast<double>(seq_q) * w - 0.5 * w * (w - 1);
    forward_flops = 4.0 * static_cast<double>(batch * heads) * pairs * static_cast<double>(head_dim);
  } else if (causal && seq_q < seq_kv) {
    // Bottom-right causal mask: the queries are the last seq_q positions, so query i sees
    // seq_kv − seq_q + i + 1 keys, seq_q·seq_kv − seq_q²/2 query-key pairs in all.
    const auto pairs = static_cast<double>(seq_q) * static_cast<double>(seq_kv) -
                       0.5 * static_cast<double>(seq_q) * static_cast<double>(seq_q);
    forward_flops = 4.0 * static_cast<double>(batch * heads) * pairs * static_cast<double>(head_dim);
  }
  event.flops = backward ? 2.5 * forward_flops : forward_flops;
  // Forward reads q, k, v and writes o; backward also reads o and do and writes dq, dk, dv.
  const auto q_and_o = static_cast<double>(batch * seq_q * heads * head_dim);
  const auto k_and_v = static_cast<double>(batch * seq_kv * kv_heads * head_dim);
  const double forward_bytes = element_ * (2 * q_and_o + 2 * k_and_v);
  event.bytes_moved = backward ? 2 * forward_bytes + element_ * 2 * q_and_o : forward_bytes;
  return event;
}

Event EventFactory::latent_attention(bool backward, std::int64_t batch, std::int64_t heads, std::int64_t seq_q,
                                     std::int64_t seq_kv, std::int64_t qk_head_dim, std::int64_t v_head_dim,
                                     bool causal) const {
  Event event = compute_event(backward ? Operator::mla_attention_bwd : Operator::mla_attention_fwd, dtype_,
                              {batch, heads, seq_q, seq_kv, qk_head_dim, v_head_dim, causal ? 1 : 0});
  const double scores = 2.0 * static_cast<double>(batch * heads) * static_cast<double>(seq_q) *
                        static_cast<double>(seq_kv) * (causal ? 0.5 : 1.0);
  const auto dqk = static_cast<double>(qk_head_dim);
  const auto dv = static_cast<double>(v_head_dim);
  event.flops = backward ? scores * (3 * dqk + 2 * dv) : scores * (dqk + dv);
  const auto q = static_cast<double>(batch * seq_q * heads * qk_head_dim);
  const auto o = static_cast<double>(batch * seq_q * heads * v_head_dim);
  const auto k = static_cast<double>(batch * seq_kv * heads * qk_head_dim);
  const auto v = static_cast<double>(batch * seq_kv * heads * v_head_dim);
  event.bytes_moved = element_ * (backward ? 2 * (q + k + v) + 4 * o : q + k + v + o);
  return event;
}

Event EventFactory::elementwise(Operator op, std::int64_t rows, std::int64_t cols, int reads, int writes,
                                double extra_bytes) const {
  Event event = compute_event(op, dtype_, {rows, cols});
  const double elements = static_cast<double>(rows) * static_cast<double>(cols);
  event.bytes_moved = elements * element_ * (reads + writes) + extra_bytes;
  return event;
}

Event EventFactory::moe_router(bool backward, std::int64_t rows, std::int64_t experts, std::int64_t top_k) const {
  Event event =
      compute_event(backward ? Operator::moe_router_bwd : Operator::moe_router, dtype_, {rows, experts, top_k});
  event.bytes_moved = static_cast<double>(rows) * static_cast<double>(experts) * element_ * 3;
  return event;
}

Event EventFactory::fp8_cast_transpose(std::int64_t rows, std::int64_t cols) const {
  Event event = elementwise(Operator::fp8_cast_transpose, rows, cols, 1, 0);
  event.bytes_moved += 2.0 * dtype_bytes(Dtype::fp8) * static_cast<double>(rows) * static_cast<double>(cols);
  return event;
}

Event EventFactory::norm_to_fp8(Operator norm, std::int64_t rows, std::int64_t cols) const {
  if (norm != Operator::layernorm && norm != Operator::rmsnorm) {
    throw InternalError("no fp8-writing form of operator '" + std::string(operator_name(norm)) + "'");
  }
  Event event = fp8_cast_transpose(rows, cols);
  event.op = norm == Operator::layernorm ? Operator::layernorm_fp8 : Operator::rmsnorm_fp8;
  return event;
}

Event EventFactory::block_quantize(Dtype format, std::int64_t rows, std::int64_t cols) const {
  if (format != Dtype::mxfp8 && format != Dtype::nvfp4) {
    throw InternalError("no block quantization into '" + std::string(dtype_name(format)) + "'");
  }
  Event event =
      elementwise(format == Dtype::mxfp8 ? Operator::mxfp8_quantize : Operator::nvfp4_quantize, rows, cols, 1, 0);
  event.bytes_moved += 2.0 * storage_bytes(format) * static_cast<double>(rows) * static_cast<double>(cols);
  return event;
}

Event EventFactory::adam_step(std::int64_t parameters) const {
  Event event = compute_event(Operator::adam_step, dtype_, {parameters});
  constexpr double kNormBytes = 4;
  constexpr double kAdamBytes = 28;
  const double unscale_bytes = dtype_ == Dtype::fp16 ? 8 : 0;
  const double copy_bytes = dtype_ == Dtype::fp32 ? 0 : 4 + element_;
  event.bytes_moved = (unscale_bytes + kNormBytes + kAdamBytes + copy_bytes) * static_cast<double>(parameters);
  return event;
}

Event EventFactory::collective(Collective collective, std::int64_t bytes, const strategy::GroupPlacement& group,
                               int group_size) const {
  Event event;
  event.op = operator_of(collective);
  event.event_class = operator_spec(event.op).event_class;
  event.collective = collective;
  event.bytes = bytes;
  event.group_size = group_size;
  event.within_domain = group.within_domain();
  event.ranks_per_domain = group.ranks_per_domain;
  return event;
}

Event EventFactory::send_recv(std::int64_t bytes, const strategy::GroupPlacement& link) const {
  return collective(Collective::send_recv, bytes, link, 2);
}

Event EventFactory::ring_exchange(std::int64_t bytes, const strategy::GroupPlacement& ring, int group_size) const {
  return collective(Collective::ring_exchange, bytes, ring, group_size);
}

}  // namespace distsim::events
