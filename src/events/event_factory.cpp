#include "events/event_factory.hpp"

namespace distsim::events {

Event EventFactory::gemm(std::int64_t m, std::int64_t n, std::int64_t k) const {
  Event event;
  event.event_class = EventClass::gemm;
  event.op = "gemm";
  event.dims = {{"m", m}, {"n", n}, {"k", k}};
  event.dtype = dtype_;
  event.flops = 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  event.bytes_moved = static_cast<double>(element_) * static_cast<double>(m * k + k * n + m * n);
  return event;
}

Event EventFactory::fp8_gemm(std::int64_t m, std::int64_t n, std::int64_t k) const {
  Event event = gemm(m, n, k);
  event.dtype = Dtype::fp8;
  const double inputs = static_cast<double>(m * k + k * n);
  event.bytes_moved = dtype_bytes(Dtype::fp8) * inputs + static_cast<double>(element_) * static_cast<double>(m * n);
  return event;
}

Event EventFactory::batched_gemm(std::int64_t batch, std::int64_t m, std::int64_t n, std::int64_t k) const {
  Event event = gemm(m, n, k);
  event.op = "batched_gemm";
  event.dims.insert(event.dims.begin(), {"batch", batch});
  event.flops *= static_cast<double>(batch);
  event.bytes_moved *= static_cast<double>(batch);
  return event;
}

Event EventFactory::attention(bool backward, std::int64_t batch, std::int64_t heads, std::int64_t kv_heads,
                              std::int64_t seq_q, std::int64_t seq_kv, std::int64_t head_dim, bool causal) const {
  Event event;
  event.event_class = EventClass::attention;
  event.op = backward ? "flash_attention_bwd" : "flash_attention_fwd";
  event.dims = {{"b", batch},       {"heads", heads},       {"kv_heads", kv_heads}, {"sq", seq_q},
                {"skv", seq_kv},    {"d", head_dim},        {"causal", causal ? 1 : 0}};
  event.dtype = dtype_;
  const double forward_flops = 4.0 * static_cast<double>(batch * heads) * static_cast<double>(seq_q) *
                               static_cast<double>(seq_kv) * static_cast<double>(head_dim) * (causal ? 0.5 : 1.0);
  event.flops = backward ? 2.5 * forward_flops : forward_flops;
  // Forward reads q, k, v and writes o; backward also reads o and do and writes dq, dk, dv.
  const double q_and_o = static_cast<double>(batch * seq_q * heads * head_dim);
  const double k_and_v = static_cast<double>(batch * seq_kv * kv_heads * head_dim);
  const double forward_bytes = element_ * (2 * q_and_o + 2 * k_and_v);
  event.bytes_moved = backward ? 2 * forward_bytes + element_ * 2 * q_and_o : forward_bytes;
  return event;
}

Event EventFactory::elementwise(const std::string& op, std::int64_t rows, std::int64_t cols, int reads,
                                int writes, double extra_bytes) const {
  Event event;
  event.event_class = EventClass::memory_bound;
  event.op = op;
  event.dims = {{"rows", rows}, {"cols", cols}};
  event.dtype = dtype_;
  const double elements = static_cast<double>(rows) * static_cast<double>(cols);
  event.bytes_moved = elements * element_ * (reads + writes) + extra_bytes;
  return event;
}

Event EventFactory::fp8_cast_transpose(std::int64_t rows, std::int64_t cols) const {
  Event event = elementwise("fp8_cast_transpose", rows, cols, 1, 0);
  event.bytes_moved += 2.0 * dtype_bytes(Dtype::fp8) * static_cast<double>(rows) * static_cast<double>(cols);
  return event;
}

Event EventFactory::norm_to_fp8(const std::string& norm_op, std::int64_t rows, std::int64_t cols) const {
  Event event = fp8_cast_transpose(rows, cols);
  event.op = norm_op + "_fp8";
  return event;
}

Event EventFactory::adam_step(std::int64_t parameters) const {
  Event event;
  event.event_class = EventClass::memory_bound;
  event.op = "adam_step";
  event.dims = {{"params", parameters}};
  event.dtype = dtype_;
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
  event.event_class = EventClass::collective;
  event.collective = collective;
  event.op = std::string(collective_name(collective));
  event.bytes = bytes;
  event.group_size = group_size;
  event.intra_node = group.within_domain();
  event.ranks_per_node = group.ranks_per_host;
  return event;
}

Event EventFactory::send_recv(std::int64_t bytes, const strategy::GroupPlacement& link) const {
  Event event = collective(Collective::send_recv, bytes, link, 2);
  event.event_class = EventClass::point_to_point;
  return event;
}

Event EventFactory::ring_exchange(std::int64_t bytes, const strategy::GroupPlacement& ring, int group_size) const {
  Event event = collective(Collective::ring_exchange, bytes, ring, group_size);
  event.event_class = EventClass::point_to_point;
  return event;
}

}  // namespace distsim::events
