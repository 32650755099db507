#include "whatif/operation_roles.hpp"

#include "core/name_match.hpp"

namespace distsim::whatif {

const std::array<OpRoleInfo, 13>& op_roles() {
  using enum OpRole;
  using enum OpSync;
  using enum IdealStatistic;
  static const std::array<OpRoleInfo, 13> roles{{
      {forward_compute, "forward-compute", none, mean, "forward-compute"},
      {backward_compute, "backward-compute", none, mean, "backward-compute"},
      {forward_send, "forward-send", pipeline_peer, median, "forward-pp-comm"},
      {forward_recv, "forward-recv", pipeline_peer, median, "forward-pp-comm"},
      {backward_send, "backward-send", pipeline_peer, median, "backward-pp-comm"},
      {backward_recv, "backward-recv", pipeline_peer, median, "backward-pp-comm"},
      {params_all_gather, "params-all-gather", data_parallel, median, "params-all-gather"},
      {grads_reduce_scatter, "grads-reduce-scatter", data_parallel, median, "grads-reduce-scatter"},
      {embedding_grads_all_reduce, "embedding-grads-all-reduce", embedding_stages, median,
       "embedding-grads-all-reduce"},
      {grad_clip, "optimizer-clip-main-grad", every_rank, median, "optimizer-clip-main-grad"},
      {gc, "gc", none, mean, "gc"},
      // Megatron-LM all-reduces the layer norms' gradients over the tensor-parallel group under
      // sequence parallelism; the traces time it on the rank as one operation.
      {layernorm_grads_all_reduce, "layernorm-grads-all-reduce", none, median, "layernorm-grads-all-reduce"},
      {optimizer, "optimizer", none, mean, "optimizer"},
  }};
  return roles;
}

const OpRoleInfo& role_info(OpRole role) { return op_roles().at(static_cast<std::size_t>(role)); }

std::optional<OpRole> find_role(std::string_view name) {
  for (const auto& info : op_roles()) {
    if (same_name(name, info.name)) return info.role;
  }
  return std::nullopt;
}

}  // namespace distsim::whatif
