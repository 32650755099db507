#include "events/operator.hpp"

#include <algorithm>

#include "core/input_error.hpp"

namespace distsim::events {

namespace {

KeyField dim(std::string_view name, std::string_view meaning) { return {name, KeyFieldType::dim, 0, meaning}; }

KeyField dtype(std::string_view meaning) { return {"dtype", KeyFieldType::dtype, 0, meaning}; }

std::vector<KeyField> gemm_fields(bool batched) {
  std::vector<KeyField> fields;
  if (batched) {
    fields.push_back(dim("batch", "independent products in the one kernel"));
  }
  fields.push_back(dim("m", "rows of A and C"));
  fields.push_back(dim("n", "columns of B and C"));
  fields.push_back(dim("k", "columns of A and rows of B, the dimension summed over"));
  fields.push_back(dtype("type of A and B; fp8 means e4m3 inputs and a bf16 C, as TransformerEngine runs them"));
  return fields;
}

//! One GEMM per local expert in one grouped kernel, every expert given the same token count m.
std::vector<KeyField> grouped_gemm_fields() {
  return {dim("groups", "experts on this rank: one product per expert in the one grouped kernel"),
          dim("m", "tokens each expert computes (rows of A and C)"), dim("n", "columns of B and C"),
          dim("k", "columns of A and rows of B, the dimension summed over"),
          dtype("type of A and B; fp8 means e4m3 inputs and a bf16 C, as TransformerEngine runs them")};
}

std::vector<KeyField> attention_fields() {
  return {dim("b", "sequences in the micro-batch"),
          dim("heads", "query heads on this rank"),
          dim("kv_heads", "key/value heads on this rank (fewer than heads with grouped-query attention)"),
          dim("sq", "query tokens of each sequence"),
          dim("skv", "key/value tokens of each sequence"),
          dim("d", "head dimension"),
          {"causal", KeyFieldType::flag, 0, "1 when the causal mask lets the kernel skip the masked half"},
          {"window", KeyFieldType::optional_dim, 1,
           "keys each query sees in a causal sliding window, itself included; absent: the whole causal prefix"},
          dtype("type of Q, K, V and the output")};
}

//! Latent attention's core after the up-projections: every head has its own key (no grouping),
//! and the query/key head dimension differs from the value's.
std::vector<KeyField> latent_attention_fields() {
  return {dim("b", "sequences in the micro-batch"),
          dim("heads", "query, key and value heads on this rank"),
          dim("sq", "query tokens of each sequence"),
          dim("skv", "key/value tokens of each sequence"),
          dim("dqk", "query and key head dimension (the no-RoPE part plus the RoPE part)"),
          dim("dv", "value head dimension"),
          {"causal", KeyFieldType::flag, 0, "1 when the causal mask lets the kernel skip the masked half"},
          dtype("type of Q, K, V and the output")};
}

//! The router's scoring and top-k over `cols` experts: the profiler needs top_k to run it.
std::vector<KeyField> router_fields() {
  return {dim("rows", "tokens this rank routes"), dim("cols", "routed experts of the model"),
          dim("top_k", "experts each token is sent to"), dtype("type of the logits")};
}

std::vector<KeyField> rows_cols_fields() {
  return {dim("rows", "rows of the tensor: tokens, or attention score rows (b x heads x sq)"),
          dim("cols", "elements of each row"), dtype("type of the tensor")};
}

std::vector<KeyField> message_fields() {
  return {{"bytes", KeyFieldType::bytes, 1, "message size: the whole buffer, as nccl-tests counts it"},
          {"group", KeyFieldType::group, 2, "ranks taking part"},
          {"placement", KeyFieldType::placement, 1,
           "intra: the whole group within one scale-up domain; inter per_node=N: across domains (NCCL's nodes), N of "
           "its ranks in each"}};
}

OperatorSpec compute(Operator op, std::string_view name, EventClass event_class, std::vector<KeyField> fields,
                     std::string_view meaning) {
  return {op, name, event_class, std::move(fields), meaning};
}

OperatorSpec memory_bound(Operator op, std::string_view name, std::string_view meaning) {
  return {op, name, EventClass::memory_bound, rows_cols_fields(), meaning};
}

OperatorSpec communication(Operator op, std::string_view name, EventClass event_class, std::string_view meaning) {
  return {op, name, event_class, message_fields(), meaning};
}

std::vector<OperatorSpec> build_table() {
  using O = Operator;
  using C = EventClass;
  return {
      compute(O::gemm, "gemm", C::gemm, gemm_fields(false), "C[m x n] = A[m x k] . B[k x n] in one GEMM: 2mnk FLOPs"),
      compute(O::batched_gemm, "batched_gemm", C::gemm, gemm_fields(true),
              "batch independent products C[m x n] = A[m x k] . B[k x n] in one strided batched GEMM (torch.bmm)"),
      compute(O::flash_attention_fwd, "flash_attention_fwd", C::attention, attention_fields(),
              "fused (Flash) attention forward: softmax(Q K^T / sqrt(d)) V"),
      compute(O::flash_attention_bwd, "flash_attention_bwd", C::attention, attention_fields(),
              "fused (Flash) attention backward: dQ, dK and dV from Q, K, V, the output and its gradient"),
      compute(O::adam_step, "adam_step", C::memory_bound,
              {dim("params", "parameters this rank updates"), dtype("type of the model's parameters")},
              "Megatron-LM's optimizer step: unscale (fp16) and norm of the gradients, Adam on fp32 main "
              "parameters, copy into the model's parameters (fp16, bf16)"),
      memory_bound(O::layernorm, "layernorm", "LayerNorm forward over each row"),
      memory_bound(O::layernorm_bwd, "layernorm_bwd", "LayerNorm backward"),
      memory_bound(O::rmsnorm, "rmsnorm", "RMSNorm forward over each row"),
      memory_bound(O::rmsnorm_bwd, "rmsnorm_bwd", "RMSNorm backward"),
      memory_bound(O::rope, "rope", "rotary position embedding of the query and key columns"),
      memory_bound(O::rope_bwd, "rope_bwd", "rotary position embedding backward"),
      memory_bound(O::bias_dropout_add, "bias_dropout_add",
                   "bias add, dropout and residual add after the attention and MLP blocks"),
      memory_bound(O::bias_dropout_add_bwd, "bias_dropout_add_bwd", "bias-dropout-add backward"),
      memory_bound(O::swiglu, "swiglu", "SwiGLU: silu(a) * b of two rows x cols halves of the first MLP output"),
      memory_bound(O::swiglu_bwd, "swiglu_bwd", "SwiGLU backward"),
      memory_bound(O::gelu, "gelu", "GELU activation"),
      memory_bound(O::gelu_bwd, "gelu_bwd", "GELU backward"),
      memory_bound(O::geglu, "geglu", "GeGLU: gelu(a) * b of two rows x cols halves of the first MLP output"),
      memory_bound(O::geglu_bwd, "geglu_bwd", "GeGLU backward"),
      memory_bound(O::relu, "relu", "ReLU activation"),
      memory_bound(O::relu_bwd, "relu_bwd", "ReLU backward"),
      memory_bound(O::squared_relu, "squared_relu", "squared ReLU activation: relu(x)^2"),
      memory_bound(O::squared_relu_bwd, "squared_relu_bwd", "squared ReLU backward"),
      memory_bound(O::embedding, "embedding",
                   "word embedding lookup of rows tokens (plus the position table where the model has one)"),
      memory_bound(O::embedding_bwd, "embedding_bwd", "embedding backward: gradients added into the table's rows"),
      memory_bound(O::cross_entropy, "cross_entropy", "softmax cross-entropy over cols vocabulary logits per token"),
      memory_bound(O::cross_entropy_bwd, "cross_entropy_bwd", "cross-entropy backward: the logits' gradient"),
      memory_bound(O::scale_mask_softmax, "scale_mask_softmax",
                   "unfused attention's scaled, causally masked softmax of the scores (cols = skv)"),
      memory_bound(O::scale_mask_softmax_bwd, "scale_mask_softmax_bwd", "scaled masked softmax backward"),
      memory_bound(O::attention_dropout, "attention_dropout", "dropout on unfused attention's probabilities"),
      memory_bound(O::attention_dropout_bwd, "attention_dropout_bwd", "attention dropout backward"),
      memory_bound(O::fp8_cast_transpose, "fp8_cast_transpose",
                   "TransformerEngine's cast of a GEMM input to fp8 plus its transpose (Hopper's fp8 GEMMs take "
                   "only the TN layout); dtype is the input's type"),
      memory_bound(O::layernorm_fp8, "layernorm_fp8",
                   "LayerNorm writing an fp8 output and its transpose (TransformerEngine's LayerNormLinear)"),
      memory_bound(O::rmsnorm_fp8, "rmsnorm_fp8",
                   "RMSNorm writing an fp8 output and its transpose (TransformerEngine's LayerNormLinear)"),
      compute(O::grouped_gemm, "grouped_gemm", C::gemm, grouped_gemm_fields(),
              "groups products C[m x n] = A[m x k] . B[k x n], one per local expert, in one grouped GEMM "
              "(TransformerEngine GroupedLinear): 2 groups mnk FLOPs"),
      compute(O::moe_router, "moe_router", C::memory_bound, router_fields(),
              "MoE router after its gating GEMM: softmax or sigmoid scores over cols expert logits of rows "
              "tokens, top-k selection and the routing map"),
      compute(O::moe_router_bwd, "moe_router_bwd", C::memory_bound, router_fields(),
              "MoE router scoring backward: the logits' gradient from the gradient of the top_k chosen "
              "probabilities"),
      memory_bound(O::moe_permute, "moe_permute",
                   "MoE token permutation: rows routed token copies (tokens x top-k) of cols elements gathered "
                   "into expert order before dispatch"),
      memory_bound(O::moe_permute_bwd, "moe_permute_bwd",
                   "MoE permutation backward: the copies' gradients summed back into token order"),
      memory_bound(O::moe_unpermute, "moe_unpermute",
                   "MoE unpermutation after combine: rows expert outputs scaled by their router probabilities and "
                   "summed back into token order"),
      memory_bound(O::moe_unpermute_bwd, "moe_unpermute_bwd",
                   "MoE unpermutation backward: the output gradient scattered to the routed copies"),
      memory_bound(O::mxfp8_quantize, "mxfp8_quantize",
                   "TransformerEngine's MXFP8 quantization of a GEMM input: a rowwise and a columnwise e4m3 copy, "
                   "each with one E8M0 scale per 32 elements; dtype is the input's type"),
      memory_bound(O::nvfp4_quantize, "nvfp4_quantize",
                   "TransformerEngine's NVFP4 quantization of a GEMM input: a rowwise and a columnwise E2M1 copy, "
                   "each with one E4M3 scale per 16 elements, the columnwise one (the weight-gradient GEMM's "
                   "operand) after a 16x16 random Hadamard transform; dtype is the input's type"),
      compute(O::mla_attention_fwd, "mla_attention_fwd", C::attention, latent_attention_fields(),
              "fused attention forward of multi-head latent attention: softmax(Q K^T / sqrt(dqk)) V with query/key "
              "heads of dqk and value heads of dv"),
      compute(O::mla_attention_bwd, "mla_attention_bwd", C::attention, latent_attention_fields(),
              "fused attention backward of multi-head latent attention: dQ, dK and dV"),
      memory_bound(O::causal_conv1d, "causal_conv1d",
                   "Mamba-2's causal depthwise convolution with SiLU over cols channels (x, B and C) of rows tokens"),
      memory_bound(O::causal_conv1d_bwd, "causal_conv1d_bwd",
                   "causal convolution backward: the input's gradient (its weight and bias gradients summed in the "
                   "same pass)"),
      memory_bound(O::rmsnorm_gated, "rmsnorm_gated",
                   "Mamba-2's gated RMSNorm: the scan's output of cols channels times silu of the gate z, normalized "
                   "per group of heads"),
      memory_bound(O::rmsnorm_gated_bwd, "rmsnorm_gated_bwd",
                   "gated RMSNorm backward: gradients of the input and "
                   "the gate"),
      memory_bound(O::ssd_state_passing, "ssd_state_passing",
                   "the SSD scan's recurrence between chunks: rows chunk states (batch x chunks x heads) of cols = "
                   "head_dim x state_size fp32 elements, each decayed and added into the next, with the step "
                   "sizes' cumulative sums"),
      memory_bound(O::ssd_state_passing_bwd, "ssd_state_passing_bwd",
                   "the state recurrence backward, with the step sizes' and decays' gradients"),
      communication(O::all_reduce, "all_reduce", C::collective, "NCCL all-reduce of the buffer over the group"),
      communication(O::all_gather, "all_gather", C::collective,
                    "NCCL all-gather: each rank gives bytes / group, every rank receives the whole buffer"),
      communication(O::reduce_scatter, "reduce_scatter", C::collective,
                    "NCCL reduce-scatter: the whole buffer is reduced, each rank keeps bytes / group of it"),
      communication(O::send_recv, "send_recv", C::point_to_point,
                    "point-to-point transfer between two pipeline stages (group is 2)"),
      communication(O::ring_exchange, "ring_exchange", C::point_to_point,
                    "one ring step: every rank sends bytes to its successor and receives as many from its "
                    "predecessor at once (context parallelism's K/V rotation)"),
      communication(O::all_to_all, "all_to_all", C::collective,
                    "NCCL all-to-all: each rank sends bytes / group to every rank of the group (MoE token dispatch "
                    "and combine)"),
  };
}

std::string field_grammar(const KeyField& field) {
  switch (field.type) {
    case KeyFieldType::dim:
    case KeyFieldType::bytes:
    case KeyFieldType::group: return std::string(field.name) + "=<N>";
    case KeyFieldType::flag: return std::string(field.name) + "=0|1";
    case KeyFieldType::optional_dim: return std::string(field.name).insert(0, 1, '[') + "=<N>]";
    case KeyFieldType::dtype: return "<dtype>";
    case KeyFieldType::placement: return "intra|inter per_node=<N>";
  }
  return "?";
}

}  // namespace

const std::vector<OperatorSpec>& operator_table() {
  static const std::vector<OperatorSpec> table = [] {
    std::vector<OperatorSpec> rows = build_table();
    for (size_t i = 0; i < rows.size(); ++i) {
      if (static_cast<size_t>(rows[i].op) != i) {
        throw InternalError("operator table row " + std::to_string(i) + " ('" + std::string(rows[i].name) +
                            "') is out of the Operator enum's order");
      }
    }
    return rows;
  }();
  return table;
}

const OperatorSpec& operator_spec(Operator op) { return operator_table().at(static_cast<size_t>(op)); }

std::string_view operator_name(Operator op) { return operator_spec(op).name; }

std::optional<Operator> find_operator(std::string_view name) {
  const auto& table = operator_table();
  const auto found = std::find_if(table.begin(), table.end(), [&](const auto& spec) { return spec.name == name; });
  return found == table.end() ? std::nullopt : std::optional<Operator>(found->op);
}

std::vector<std::string> operator_names() {
  std::vector<std::string> names;
  for (const auto& spec : operator_table()) {
    names.emplace_back(spec.name);
  }
  return names;
}

Operator operator_of(Collective collective) {
  switch (collective) {
    case Collective::all_reduce: return Operator::all_reduce;
    case Collective::all_gather: return Operator::all_gather;
    case Collective::reduce_scatter: return Operator::reduce_scatter;
    case Collective::send_recv: return Operator::send_recv;
    case Collective::ring_exchange: return Operator::ring_exchange;
    case Collective::all_to_all: return Operator::all_to_all;
  }
  throw InternalError("unknown collective");
}

Collective collective_of(Operator op) {
  for (Collective collective : {Collective::all_reduce, Collective::all_gather, Collective::reduce_scatter,
                                Collective::send_recv, Collective::ring_exchange, Collective::all_to_all}) {
    if (operator_of(collective) == op) {
      return collective;
    }
  }
  throw InternalError("operator '" + std::string(operator_name(op)) + "' is not a communication");
}

std::string_view collective_name(Collective collective) { return operator_name(operator_of(collective)); }

std::string_view event_class_name(EventClass event_class) {
  switch (event_class) {
    case EventClass::gemm: return "gemm";
    case EventClass::attention: return "attention";
    case EventClass::memory_bound: return "memory_bound";
    case EventClass::collective: return "collective";
    case EventClass::point_to_point: return "point_to_point";
  }
  return "?";
}

std::string_view key_field_type_name(KeyFieldType type) {
  switch (type) {
    case KeyFieldType::dim: return "dim";
    case KeyFieldType::flag: return "flag";
    case KeyFieldType::optional_dim: return "optional_dim";
    case KeyFieldType::dtype: return "dtype";
    case KeyFieldType::bytes: return "bytes";
    case KeyFieldType::group: return "group";
    case KeyFieldType::placement: return "placement";
  }
  return "?";
}

std::string key_grammar(const OperatorSpec& spec) {
  std::string text(spec.name);
  for (const auto& field : spec.fields) {
    text += ' ';
    text += field_grammar(field);
  }
  return text;
}

}  // namespace distsim::events
