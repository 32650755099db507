#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace distsim::events {

//! How an event's duration is obtained by the analytical model: a GEMM (tile and wave
//! quantization), fused attention (FLOPs at attention efficiency), a memory-bound kernel
//! (bytes over bandwidth), or a communication.
enum class EventClass { gemm, attention, memory_bound, collective, point_to_point };

//! ring_exchange: each of the group's ranks sends `bytes` to the next rank of the ring and
//! receives as many from the previous one, all at once (context parallelism's K/V rotation).
//! all_to_all: each of the group's ranks sends bytes / group to every rank (itself included), as
//! nccl-tests counts an all-to-all's buffer (the token dispatch of mixture-of-experts layers).
enum class Collective { all_reduce, all_gather, reduce_scatter, send_recv, ring_exchange, all_to_all };

//! Every operator an event can name. The operator table (operator_table) says, for each, the
//! first word of its keys, its event class and the fields its keys carry.
enum class Operator {
  gemm,
  batched_gemm,
  flash_attention_fwd,
  flash_attention_bwd,
  adam_step,
  layernorm,
  layernorm_bwd,
  rmsnorm,
  rmsnorm_bwd,
  rope,
  rope_bwd,
  bias_dropout_add,
  bias_dropout_add_bwd,
  swiglu,
  swiglu_bwd,
  gelu,
  gelu_bwd,
  geglu,
  geglu_bwd,
  relu,
  relu_bwd,
  squared_relu,
  squared_relu_bwd,
  embedding,
  embedding_bwd,
  cross_entropy,
  cross_entropy_bwd,
  scale_mask_softmax,
  scale_mask_softmax_bwd,
  attention_dropout,
  attention_dropout_bwd,
  fp8_cast_transpose,
  layernorm_fp8,
  rmsnorm_fp8,
  grouped_gemm,
  moe_router,
  moe_router_bwd,
  moe_permute,
  moe_permute_bwd,
  moe_unpermute,
  moe_unpermute_bwd,
  mxfp8_quantize,
  nvfp4_quantize,
  mla_attention_fwd,
  mla_attention_bwd,
  causal_conv1d,
  causal_conv1d_bwd,
  rmsnorm_gated,
  rmsnorm_gated_bwd,
  ssd_state_passing,
  ssd_state_passing_bwd,
  all_reduce,
  all_gather,
  reduce_scatter,
  send_recv,
  ring_exchange,
  all_to_all,
};

//! How one field of an event key is written, and which part of an Event it holds.
enum class KeyFieldType {
  dim,   //!< "name=N", N a whole number: a dimension of the compute shape (Event::dims)
  flag,  //!< "name=0" or "name=1": a yes/no dimension of the compute shape (Event::dims)
  //! "name=N" with N > 0, left out of the key and of Event::dims when 0, so that the keys of
  //! events without it read as before the field existed
  optional_dim,
  dtype,      //!< the dtype's name alone, e.g. "bf16" (Event::dtype)
  bytes,      //!< "bytes=N": the message size (Event::bytes)
  group,      //!< "group=N": the ranks taking part (Event::group_size)
  placement,  //!< "intra", or "inter per_node=N" (Event::within_domain, Event::ranks_per_domain)
};

//! One field of an event key after the operator's name.
struct KeyField {
  std::string_view name;
  KeyFieldType type;
  //! The smallest value a key may hold: of N for dim, bytes and group, of per_node for placement.
  std::int64_t minimum = 0;
  std::string_view meaning;
};

//! One row of the operator table: an operator's name (the first word of its keys), its event
//! class, the fields that follow the name in key order, and what one occurrence computes.
struct OperatorSpec {
  Operator op;
  std::string_view name;
  EventClass event_class;
  std::vector<KeyField> fields;
  std::string_view meaning;

  bool is_communication() const {
    return event_class == EventClass::collective || event_class == EventClass::point_to_point;
  }
};

//! Every operator, in the order of the Operator enum.
const std::vector<OperatorSpec>& operator_table();
const OperatorSpec& operator_spec(Operator op);
std::string_view operator_name(Operator op);
//! The operator whose keys start with `name`, if any.
std::optional<Operator> find_operator(std::string_view name);
//! The names of every operator, in table order.
std::vector<std::string> operator_names();

//! The communication operator that runs `collective`, and back. collective_of throws
//! InternalError for a compute operator.
Operator operator_of(Collective collective);
Collective collective_of(Operator op);

//! The same name as the collective's operator: "all_reduce", ..., "ring_exchange".
std::string_view collective_name(Collective collective);
//! "gemm", "attention", "memory_bound", "collective" or "point_to_point".
std::string_view event_class_name(EventClass event_class);
//! "dim", "flag", "optional_dim", "dtype", "bytes", "group" or "placement".
std::string_view key_field_type_name(KeyFieldType type);

//! The form of an operator's keys, e.g. "gemm m=<N> n=<N> k=<N> <dtype>" or
//! "send_recv bytes=<N> group=<N> intra|inter per_node=<N>".
std::string key_grammar(const OperatorSpec& spec);

}  // namespace distsim::events
