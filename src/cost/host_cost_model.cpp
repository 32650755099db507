#include "cost/host_cost_model.hpp"

#include <cmath>

namespace distsim::cost {

namespace {

using events::Operator;

// Megatron-Core's MoE router launches 72 kernels, most of them elementwise (the routing map and
// the auxiliary loss), 31 with TransformerEngine's fused router (--moe-router-fusion; Megatron-LM
// docs/discussions/deepseek-v3-gb200-optimization, "Kernel Fusion in the Router Part", measured on
// DeepSeek-V3). The gating GEMM among them is an event of its own. The guide counts the forward;
// the backward, autograd's mirror of the same operations, is priced alike (an assumption).
constexpr double kRouterKernels = 72;
constexpr double kFusedRouterKernels = 31;

bool issued_by_module(Operator op) {
  switch (op) {
    case Operator::gemm:
    case Operator::grouped_gemm:
    case Operator::flash_attention_fwd:
    case Operator::flash_attention_bwd:
    case Operator::mla_attention_fwd:
    case Operator::mla_attention_bwd: return true;
    default: return false;
  }
}

}  // namespace

HostCostModel HostCostModel::eager(const cluster::HostCpu& cpu, bool router_fusion) {
  return {cpu.eager_operation_us * 1e-6, cpu.module_operations, router_fusion};
}

double HostCostModel::operations(const events::Event& event) const {
  if (event.is_communication()) return 1;  // one torch.distributed call, one NCCL kernel
  if (event.op == Operator::moe_router || event.op == Operator::moe_router_bwd) {
    return (router_fusion_ ? kFusedRouterKernels : kRouterKernels) - 1;
  }
  double count = issued_by_module(event.op) ? module_operations_ : 1;
  // TransformerEngine's GroupedLinear issues one GEMM per local expert, each with its own
  // allocations (two torch.empty per GEMM, issue #1499): an eager operation each.
  if (event.op == Operator::grouped_gemm) count += static_cast<double>(event.dim("groups"));
  return count;
}

SimTime HostCostModel::host_time(const events::Event& event) const {
  if (!modelled()) return 0;
  return static_cast<SimTime>(std::llround(operations(event) * seconds_per_operation_ * 1e9));
}

}  // namespace distsim::cost
