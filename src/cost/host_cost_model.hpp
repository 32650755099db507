#pragma once

#include "cluster/host_cpu.hpp"
#include "core/sim_time.hpp"
#include "events/event.hpp"

namespace distsim::cost {

//! How long the host thread takes to issue one event: Python, PyTorch's dispatcher and autograd,
//! the framework module around the kernel and the kernel's launch, for a training step run in
//! PyTorch eager mode with TransformerEngine modules, as Megatron-Core runs it. Each event is
//! priced as a number of eager PyTorch operations (each with its kernel's launch), of the time one
//! takes on the host's CPU (cluster::HostCpu); every count and its source is in host_cost_model.cpp
//! and docs/host_time.md.
//! The default model issues everything for free: the GPU never waits for the host.
class HostCostModel {
 public:
  HostCostModel() = default;
  //! The measured eager-mode host times of `cpu`, with the MoE router's kernels fused or not
  //! (Megatron-Core --moe-router-fusion).
  static HostCostModel eager(const cluster::HostCpu& cpu, bool router_fusion = false);

  SimTime host_time(const events::Event& event) const;
  //! What one event stands for, in eager PyTorch operations of the measured host.
  double operations(const events::Event& event) const;
  bool modelled() const { return seconds_per_operation_ > 0; }

 private:
  HostCostModel(double seconds_per_operation, double module_operations, bool router_fusion)
      : seconds_per_operation_(seconds_per_operation),
        module_operations_(module_operations),
        router_fusion_(router_fusion) {}

  double seconds_per_operation_ = 0;
  double module_operations_ = 0;
  bool router_fusion_ = false;
};

}  // namespace distsim::cost
