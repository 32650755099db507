#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "catalog/attention_kernels.hpp"
#include "cluster/cluster_spec.hpp"
#include "cost/cost_model.hpp"
#include "cost/host_cost_model.hpp"

namespace distsim::cost {

//! NCCL's wire protocols: LL (8-byte lines of 4 data + 4 flag bytes), LL128 (128-byte lines with
//! 120 data bytes) and Simple (bulk copies fenced per chunk).
enum class NcclProtocol { ll, ll128, simple };

std::string_view nccl_protocol_name(NcclProtocol protocol);

//! A communication event's modelled time and the protocol NCCL's tuner would pick for it.
struct CommunicationEstimate {
  double seconds = 0;
  NcclProtocol protocol = NcclProtocol::simple;
};

//! Output tile edge of the GEMM model: 128×128 tiles, one CTA per SM (docs/reference/hardware.md §5.3).
inline constexpr std::int64_t kGemmTile = 128;

//! Useful fraction of the padded output: m·n / (⌈m/128⌉·128 · ⌈n/128⌉·128).
double tile_efficiency(std::int64_t m, std::int64_t n);
//! Busy fraction of the SM slots over all waves: tiles / (⌈tiles/SMs⌉ · SMs), with
//! tiles = batch·⌈m/128⌉·⌈n/128⌉ (a batched GEMM launches every matrix's tiles in one grid).
double wave_efficiency(std::int64_t m, std::int64_t n, int sm_count, std::int64_t batch = 1);

//! Prices every event from the cluster's specifications alone (a compute event on the GPU of its
//! Event::gpu_type): GEMMs by FLOPs over a
//! shape-dependent achievable rate, fused attention and memory-bound kernels by roofline, and
//! communication by NCCL's ring model with the fastest protocol per message. Every formula and
//! constant is cited in analytical_cost_model.cpp and docs/cost_models.md.
class AnalyticalCostModel : public CostModel {
 public:
  //! Throws InputError when a GPU figure every compute event needs (peak, bandwidth, SMs,
  //! efficiencies) is not positive, or when the named attention kernel has no rate measured on the
  //! GPU's architecture.
  //! `host` prices each event's issue on the host (none by default).
  explicit AnalyticalCostModel(cluster::ClusterSpec cluster,
                               std::string_view attention_kernel = catalog::kGenericAttentionKernel,
                               HostCostModel host = {});

  //! Always answers, with source analytical.
  std::optional<Cost> try_cost(const events::Event& event) const override;
  Cost cost(const events::Event& event) const;
  //! Time and protocol of a collective or send/recv event; an InternalError for compute events.
  CommunicationEstimate communication_estimate(const events::Event& event) const;

 private:
  double compute_seconds(const events::Event& event) const;
  double gemm_seconds(const events::Event& event, const cluster::GpuSpec& gpu) const;
  double attention_seconds(const events::Event& event, const cluster::GpuSpec& gpu) const;
  double memory_seconds(double bytes, const cluster::GpuSpec& gpu) const;
  double tensor_flops_per_second(Dtype dtype, const cluster::GpuSpec& gpu) const;
  CommunicationEstimate ring_collective(const events::Event& event) const;
  CommunicationEstimate point_to_point(const events::Event& event) const;
  CommunicationEstimate all_to_all(const events::Event& event) const;
  double intra_node_bus_gbps(const events::Event& event) const;
  double inter_node_bus_gbps(const events::Event& event) const;
  double nic_share_gbps(const events::Event& event) const;

  cluster::ClusterSpec cluster_;
  HostCostModel host_;
  //! Per GPU type: the named attention kernel's measured fraction of the 16-bit tensor peak; 0 for
  //! the generic one.
  std::vector<double> attention_fraction_of_peak_;
};

}  // namespace distsim::cost
