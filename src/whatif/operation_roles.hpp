#pragma once

#include <array>
#include <optional>
#include <string_view>

namespace distsim::whatif {

//! The parts of a Megatron-style training step that a measured per-rank timeline records
//! (docs/whatif.md): the pipeline's computations and transfers per micro-batch, then, once the
//! last backward has run, the step's end (Megatron-LM's finalize_model_grads and optimizer step):
//! garbage collection, the layer-norm and embedding gradient all-reduces, the data-parallel
//! gradient reduce-scatters, the gradient-norm all-reduce of clipping, the optimizer, and the
//! parameter all-gathers that feed the next step's forwards.
enum class OpRole {
  forward_compute,
  backward_compute,
  forward_send,
  forward_recv,
  backward_send,
  backward_recv,
  params_all_gather,
  grads_reduce_scatter,
  embedding_grads_all_reduce,
  grad_clip,
  gc,
  layernorm_grads_all_reduce,
  optimizer,
};

//! Which ranks an operation waits for before its transfer runs: none (it runs alone), its pipeline
//! peer (a send and the matching receive), the data-parallel ranks of its stage, the first and
//! last stage of its data-parallel rank (the tied embedding), or every rank of the step.
enum class OpSync { none, pipeline_peer, data_parallel, embedding_stages, every_rank };

//! The statistic of an operation type's durations that stands for it without stragglers:
//! computations by their mean, communications by their median (which a few slow transfers do not
//! move).
enum class IdealStatistic { mean, median };

struct OpRoleInfo {
  OpRole role;
  std::string_view name;  //!< the operation type as traces name it: "forward-compute"
  OpSync sync;
  IdealStatistic ideal;
  //! The group the attribution by operation type puts it in: the four pipeline transfers merge
  //! into forward-pp-comm and backward-pp-comm.
  std::string_view group;
};

const std::array<OpRoleInfo, 13>& op_roles();
const OpRoleInfo& role_info(OpRole role);
//! The role an operation type names (the name rule of core/name_match.hpp), or none.
std::optional<OpRole> find_role(std::string_view name);

}  // namespace distsim::whatif
