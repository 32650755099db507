#include "cost/analytical_cost_model.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "core/input_error.hpp"
#include "cost/ring_volume.hpp"

namespace distsim::cost {

namespace {

using events::Collective;
using events::Event;
using events::EventClass;

//! One value per NCCL protocol, indexed by NcclProtocol: {LL, LL128, Simple}.
using cluster::PerProtocol;

// NCCL src/graph/tuning.cc (docs/reference/hardware.md §4.5): ring latency of one collective call, µs.
constexpr PerProtocol kRingBaseLatencyUs = {6.6, 14.0, 8.4};

// Payload fraction of the bus bandwidth (tuning.cc ring refinements): an LL line carries 4 data
// bytes in 8, an LL128 line 120 in 128 (NCCL uses 0.92), Simple copies raw data.
constexpr PerProtocol kProtocolBandwidthFactor = {0.5, 0.92, 1.0};

// FlashAttention-2 (Dao 2023, arXiv 2307.08691, Figs. 5 and 6; A100 80GB SXM4, head dim 128,
// sequence 4k-16k): forward 224 TFLOPs/s without and 148 with the causal mask, backward 195 and
// 175; mean 185.5 TFLOPs/s. Against the same GPU's GEMM ceiling, MAMF 271.2 TFLOPs/s
// (docs/reference/hardware.md §5.1), that is 185.5 / 271.2 = 0.68 of what a large GEMM reaches. Forward and
// backward means agree (185.8 and 185.2), so one ratio serves both.
constexpr double kAttentionToGemmEfficiency = 0.68;

// The memory-bound kernels of a training step (norms, softmax, dropout with its random numbers,
// fused bias-activation, optimizer) stream less than STREAM's copy and triad loops. The only
// measurements of them in training are the published runs, so this fraction is fitted there: a
// sweep over the 30 simulated rows of the built-in calibration set (bench/calibration_sweep,
// docs/cost_models.md §8), with the GEMM ceilings fixed at their cited values, has its least
// maximum row error at 0.78 (9.4 %, MAPE 3.57 %) and its least MAPE at 0.76 (3.44 %, max 10.1 %).
// Fitted on any two of the three sources, it lands at 0.74-0.76 and the third source's MAPE is
// 2.7-3.8 %.
constexpr double kTrainingKernelBandwidthFraction = 0.78;

constexpr double kMicro = 1e-6;
constexpr double kGiga = 1e9;

std::size_t slot(NcclProtocol protocol) { return static_cast<std::size_t>(protocol); }

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// NCCL's hop latencies per ring step (tuning.cc hwLat) are cluster::nccl_hop_us. A cluster gives
// its fabric's Simple-protocol hop (0 keeps NCCL's nominal one), and LL and LL128 keep NCCL's
// proportions to it: measured small messages run 2-3x slower than NCCL's nominal LL hop
// (docs/cost_models.md), so the fabric's own figure scales all three protocols alike.
PerProtocol hop_latencies(const PerProtocol& nccl, double simple_hop_us) {
  const double scale = simple_hop_us > 0 ? simple_hop_us / cluster::nccl_simple_hop_us(nccl) : 1.0;
  return {nccl[0] * scale, nccl[1] * scale, nccl[2] * scale};
}

PerProtocol intra_node_hops(const cluster::ClusterSpec& cluster) {
  return hop_latencies(cluster::nccl_hop_us(cluster.intra_node.fabric), cluster.intra_node.latency_us);
}

// A network hop also crosses the host's own fabric to reach the NIC, so it is never faster.
PerProtocol network_hops(const cluster::ClusterSpec& cluster) {
  PerProtocol hops = hop_latencies(cluster::kNcclNetHopUs, cluster.inter_node.latency_us);
  const PerProtocol intra = intra_node_hops(cluster);
  for (std::size_t i = 0; i < hops.size(); ++i) {
    hops[i] = std::max(hops[i], intra[i]);
  }
  return hops;
}

double require_positive(double value, const cluster::ClusterSpec& cluster, std::string_view field, const Event& event) {
  if (value <= 0) {
    throw InputError("cluster '" + cluster.name + "': " + std::string(field) + " must be positive to price event '" +
                     event.key() + "'");
  }
  return value;
}

void check_gpu(const cluster::ClusterSpec& cluster, const cluster::GpuSpec& gpu) {
  const std::vector<std::pair<const char*, double>> fields = {
      {"peak_fp16_tflops or peak_bf16_tflops", std::max(gpu.peak_fp16_tflops, gpu.peak_bf16_tflops)},
      {"memory_bandwidth_gbps", gpu.memory_bandwidth_gbps},
      {"sm_count", static_cast<double>(gpu.sm_count)},
      {"gemm_efficiency", gpu.gemm_efficiency},
      {"memory_efficiency", gpu.memory_efficiency},
  };
  std::string problems;
  for (const auto& [field, value] : fields) {
    if (value <= 0) {
      problems += std::string(problems.empty() ? "" : "; ") + "gpu '" + gpu.name + "' " + field + " must be positive";
    }
  }
  if (!problems.empty()) {
    throw InputError("cluster '" + cluster.name + "': " + problems + " for the analytical cost model");
  }
}

//! The duration on the nanosecond clock; the event's key is built only for the message when it
//! does not fit, since most events never need it.
SimTime clock_time(double seconds, const Event& event) {
  try {
    return checked_seconds_to_time(seconds, "an event");
  } catch (const InputError&) {
    return checked_seconds_to_time(seconds, "event '" + event.key() + "'");
  }
}

}  // namespace

std::string_view nccl_protocol_name(NcclProtocol protocol) {
  switch (protocol) {
    case NcclProtocol::ll: return "LL";
    case NcclProtocol::ll128: return "LL128";
    case NcclProtocol::simple: return "Simple";
  }
  return "?";
}

double tile_efficiency(std::int64_t m, std::int64_t n) {
  const double padded =
      static_cast<double>(ceil_div(m, kGemmTile) * kGemmTile) * static_cast<double>(ceil_div(n, kGemmTile) * kGemmTile);
  return static_cast<double>(m) * static_cast<double>(n) / padded;
}

double wave_efficiency(std::int64_t m, std::int64_t n, int sm_count, std::int64_t batch) {
  const std::int64_t tiles = batch * ceil_div(m, kGemmTile) * ceil_div(n, kGemmTile);
  const std::int64_t waves = ceil_div(tiles, sm_count);
  return static_cast<double>(tiles) / static_cast<double>(waves * sm_count);
}

AnalyticalCostModel::AnalyticalCostModel(cluster::ClusterSpec cluster, std::string_view attention_kernel,
                                         HostCostModel host)
    : cluster_(std::move(cluster)), host_(host) {
  // Indexed by GPU type, which is the index of a host group (cluster::ClusterSpec::gpu_type_of_group).
  attention_fraction_of_peak_.assign(std::max<size_t>(1, cluster_.host_groups.size()), 0.0);
  for (const int type : cluster_.gpu_types()) {
    const cluster::GpuSpec& gpu = cluster_.gpu_of_type(type);
    check_gpu(cluster_, gpu);
    if (attention_kernel == catalog::kGenericAttentionKernel) continue;
    const catalog::AttentionKernelRate* rate = catalog::attention_kernel_rate(attention_kernel, gpu);
    if (rate == nullptr) {
      throw InputError("attention kernel '" + std::string(attention_kernel) + "' has no rate measured on gpu '" +
                       gpu.name + "'");
    }
    attention_fraction_of_peak_[static_cast<size_t>(type)] = rate->fraction_of_peak();
  }
}

std::optional<Cost> AnalyticalCostModel::try_cost(const Event& event) const { return cost(event); }

Cost AnalyticalCostModel::cost(const Event& event) const {
  const double seconds = event.is_communication() ? communication_estimate(event).seconds : compute_seconds(event);
  return Cost{clock_time(seconds, event), CostSource::analytical, host_.host_time(event)};
}

CommunicationEstimate AnalyticalCostModel::communication_estimate(const Event& event) const {
  if (!event.is_communication()) {
    throw InternalError("event '" + event.key() + "' is not a communication");
  }
  // NCCL returns at once for a one-rank group or an empty buffer.
  if (event.group_size <= 1 || event.bytes <= 0) {
    return {};
  }
  const bool send_recv = event.event_class == EventClass::point_to_point || event.collective == Collective::send_recv;
  if (event.collective == Collective::all_to_all) {
    return all_to_all(event);
  }
  return send_recv ? point_to_point(event) : ring_collective(event);
}

double AnalyticalCostModel::compute_seconds(const Event& event) const {
  if (event.gpu_type < 0 ||
      (event.gpu_type > 0 && static_cast<size_t>(event.gpu_type) >= cluster_.host_groups.size())) {
    throw InputError("event '" + event.key() + "' runs on GPU type " + std::to_string(event.gpu_type) +
                     ", which cluster '" + cluster_.name + "' does not have");
  }
  const cluster::GpuSpec& gpu = cluster_.gpu_of_type(event.gpu_type);
  switch (event.event_class) {
    case EventClass::gemm: return gemm_seconds(event, gpu);
    case EventClass::attention: return attention_seconds(event, gpu);
    case EventClass::memory_bound: return memory_seconds(event.bytes_moved, gpu) + gpu.kernel_launch_us * kMicro;
    case EventClass::collective:
    case EventClass::point_to_point: break;
  }
  throw InternalError("event '" + event.key() + "' is not a computation");
}

// Roofline with shape penalties (docs/reference/hardware.md §5.3, after NVIDIA's Matrix Multiplication
// Background guide DU-09799-001 §3.1-3.2): the FLOP rate is the GPU's large-GEMM ceiling times
// the tile and wave quantization of a 128×128-tile, one-CTA-per-SM launch. A batched GEMM
// (cuBLAS strided batched, one grid over every matrix's tiles) pads each matrix to whole tiles and
// fills its waves with the tiles of all of them.
double AnalyticalCostModel::gemm_seconds(const Event& event, const cluster::GpuSpec& gpu) const {
  // A grouped GEMM launches every local expert's tiles in one grid, as a batched one does.
  const std::int64_t batch = event.dim_or("batch", event.dim_or("groups", 1));
  const std::int64_t m = event.dim("m");
  const std::int64_t n = event.dim("n");
  const std::int64_t k = event.dim("k");
  double compute = 0;
  if (batch > 0 && m > 0 && n > 0 && k > 0) {
    const double flops =
        2.0 * static_cast<double>(batch) * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
    const double shape = tile_efficiency(m, n) * wave_efficiency(m, n, gpu.sm_count, batch);
    compute = flops / (tensor_flops_per_second(event.dtype, gpu) * shape);
  }
  return std::max(compute, memory_seconds(event.bytes_moved, gpu)) + gpu.kernel_launch_us * kMicro;
}

// Fused attention never materializes the score matrix, so it is bound by its matmul FLOPs at
// FlashAttention's fraction of the GEMM rate, or by streaming Q, K, V and O. A named kernel runs
// at the fraction of the tensor peak measured for it on the GPU's architecture instead.
double AnalyticalCostModel::attention_seconds(const Event& event, const cluster::GpuSpec& gpu) const {
  const double fraction = attention_fraction_of_peak_[static_cast<size_t>(event.gpu_type)];
  const double rate = fraction > 0 ? gpu.peak_flops(event.dtype) * fraction
                                   : tensor_flops_per_second(event.dtype, gpu) * kAttentionToGemmEfficiency;
  const double compute = event.flops / rate;
  return std::max(compute, memory_seconds(event.bytes_moved, gpu)) + gpu.kernel_launch_us * kMicro;
}

// Achieved DRAM bandwidth is memory_efficiency of the spec figure (STREAM-like, docs/reference/hardware.md §6)
// times the fraction of it that a training step's memory-bound kernels reach.
double AnalyticalCostModel::memory_seconds(double bytes, const cluster::GpuSpec& gpu) const {
  return bytes / (kTrainingKernelBandwidthFraction * gpu.memory_efficiency * gpu.memory_bandwidth_gbps * kGiga);
}

// Large-GEMM ceiling η_max · peak (docs/reference/hardware.md §5.1-5.2), each format at its own peak and
// efficiency. A format without tensor cores of its own (fp8 before Hopper) runs at the 16-bit rate;
// validation refuses such jobs, so only a profile or a hand-made event reaches that fallback.
double AnalyticalCostModel::tensor_flops_per_second(Dtype dtype, const cluster::GpuSpec& gpu) const {
  if (gpu.peak_flops(dtype) > 0 && gpu.gemm_efficiency_of(dtype) > 0) {
    return gpu.peak_flops(dtype) * gpu.gemm_efficiency_of(dtype);
  }
  const double sixteen_bit = std::max(gpu.peak_flops(Dtype::fp16), gpu.peak_flops(Dtype::bf16));
  return sixteen_bit * gpu.gemm_efficiency;
}

// NCCL's ring model (tuning.cc, docs/reference/hardware.md §4.5), taking the fastest protocol as its tuner does:
// t_p = baseLat_p + (steps − interSteps)·intraHop_p + interSteps·netHop_p + factor·S / (busbw·f_p).
CommunicationEstimate AnalyticalCostModel::ring_collective(const Event& event) const {
  const int ranks = event.group_size;
  const bool all_reduce = event.collective == Collective::all_reduce;
  // NCCL's node is a scale-up domain: a DGX host, or a whole NVL72 rack under multi-node NVLink.
  const int ranks_per_domain = std::clamp(event.ranks_per_domain, 1, ranks);
  const int nodes = event.within_domain ? 1 : std::max<int>(2, static_cast<int>(ceil_div(ranks, ranks_per_domain)));
  // A ring all-reduce is a reduce-scatter then an all-gather: 2(n−1) steps, 2(nodes−1) of them
  // across the network; all-gather and reduce-scatter alone take n−1 and nodes−1 (tuning.cc).
  const int steps = all_reduce ? 2 * (ranks - 1) : ranks - 1;
  const int inter_steps = all_reduce ? 2 * (nodes - 1) : nodes - 1;
  // nccl-tests doc/PERFORMANCE.md: busbw = algbw·2(n−1)/n for all-reduce and algbw·(n−1)/n for
  // all-gather and reduce-scatter, S being the whole buffer; so time = factor·S / busbw.
  const double wire_factor = ring_volume(event.collective, ranks);
  const double bus_gbps = event.within_domain ? intra_node_bus_gbps(event) : inter_node_bus_gbps(event);
  const PerProtocol intra_hops = intra_node_hops(cluster_);
  const PerProtocol net_hops = network_hops(cluster_);

  CommunicationEstimate best{std::numeric_limits<double>::infinity(), NcclProtocol::simple};
  for (const NcclProtocol protocol : {NcclProtocol::ll, NcclProtocol::ll128, NcclProtocol::simple}) {
    if (protocol == NcclProtocol::ll128 && !cluster::allows_ll128(cluster_.intra_node.fabric)) {
      continue;
    }
    const std::size_t p = slot(protocol);
    const double latency_us = kRingBaseLatencyUs[p] + (steps - inter_steps) * intra_hops[p] + inter_steps * net_hops[p];
    const double wire_s =
        wire_factor * static_cast<double>(event.bytes) / (bus_gbps * kGiga * kProtocolBandwidthFactor[p]);
    const double seconds = latency_us * kMicro + wire_s;
    if (seconds < best.seconds) {
      best = {seconds, protocol};
    }
  }
  return best;
}

// A send/recv pays the ring's per-call base latency and one hop. NCCL moves point-to-point data
// with LL up to a size threshold and Simple above it, never LL128 (src/enqueue.cc addP2pToPlan),
// so the faster of those two stands for its choice.
CommunicationEstimate AnalyticalCostModel::point_to_point(const Event& event) const {
  const PerProtocol hops = event.within_domain ? intra_node_hops(cluster_) : network_hops(cluster_);
  const double bandwidth_gbps =
      event.within_domain ? require_positive(cluster_.intra_node.p2p_gbps, cluster_, "intra_node.p2p_gbps", event)
                          : nic_share_gbps(event);

  CommunicationEstimate best{std::numeric_limits<double>::infinity(), NcclProtocol::simple};
  for (const NcclProtocol protocol : {NcclProtocol::ll, NcclProtocol::simple}) {
    const std::size_t p = slot(protocol);
    const double wire_s = static_cast<double>(event.bytes) / (bandwidth_gbps * kGiga * kProtocolBandwidthFactor[p]);
    const double seconds = (kRingBaseLatencyUs[p] + hops[p]) * kMicro + wire_s;
    if (seconds < best.seconds) {
      best = {seconds, protocol};
    }
  }
  return best;
}

// NCCL runs an all-to-all as one grouped send/recv to every peer (nccl-tests src/alltoall.cu), all
// at once, so it pays one call's latency and one hop. Each rank sends bytes/n to each of the n
// ranks. Inside one domain the (n−1)/n of the buffer that leaves the rank moves at the domain's
// bus bandwidth (nccl-tests doc/PERFORMANCE.md: all-to-all busbw = algbw·(n−1)/n). Across domains
// the share bound for other domains, (n − r)/n with r members in the busiest domain, goes through
// the rank's own share of its host's NICs, since "alltoall cannot aggregate the bandwidth of
// multiple NICs" (nccl-tests#267; docs/reference/hardware.md §3, §4.2), while the domain-local
// share moves over the domain's fabric at the same time; the slower of the two sets the time.
CommunicationEstimate AnalyticalCostModel::all_to_all(const Event& event) const {
  const double n = event.group_size;
  const auto bytes = static_cast<double>(event.bytes);
  const std::size_t simple = slot(NcclProtocol::simple);
  if (event.within_domain) {
    const double wire_s = bytes * (n - 1) / n / (intra_node_bus_gbps(event) * kGiga);
    return {(kRingBaseLatencyUs[simple] + intra_node_hops(cluster_)[simple]) * kMicro + wire_s, NcclProtocol::simple};
  }
  const double local = std::clamp<double>(event.ranks_per_domain, 1, n);
  const double host_s = bytes * (local - 1) / n / (intra_node_bus_gbps(event) * kGiga);
  const double network_s = bytes * (n - local) / n / (nic_share_gbps(event) * kGiga);
  return {(kRingBaseLatencyUs[simple] + network_hops(cluster_)[simple]) * kMicro + std::max(host_s, network_s),
          NcclProtocol::simple};
}

// A ring that leaves its scale-up domain is as fast as the NICs its ranks in one domain drive, each
// member its own GPU's share, and never faster than the intra-domain ring that feeds them: busbw =
// min(intra busbw, ranks_per_domain · NIC share) (docs/reference/hardware.md §4.2: DGX A100 8 × 24 =
// 192 GB/s, measured by NVIDIA in nccl#812; on GB200 NVL72 partitions of 4 and 8 GPUs in separate
// racks, ring busbw 196.7 and 393.7 GB/s at 16 GiB, 4 and 8 × 49, NVIDIA/nccl#1801). With one rank
// per domain every ring step crosses the network and the intra-domain fabric carries nothing.
double AnalyticalCostModel::inter_node_bus_gbps(const Event& event) const {
  const int ranks_per_domain = std::max(1, std::min(event.ranks_per_domain, cluster_.gpus_per_domain()));
  const double nic_gbps = ranks_per_domain * nic_share_gbps(event);
  if (ranks_per_domain == 1) {
    return nic_gbps;
  }
  return std::min(intra_node_bus_gbps(event), nic_gbps);
}

double AnalyticalCostModel::intra_node_bus_gbps(const Event& event) const {
  return require_positive(cluster_.intra_node.collective_busbw_gbps, cluster_, "intra_node.collective_busbw_gbps",
                          event);
}

// Each GPU's share of its host's NICs. Training traffic is symmetric, so every GPU of a host talks
// across the network at the same time (all data-parallel groups reduce together, all tensor
// ranks of a stage send together) and the host's NIC bandwidth divides among them: one NIC per
// GPU on DGX hosts, half of one on a DGX-2H (16 GPUs, 8 NICs), a quarter of one where four GPUs
// share it.
double AnalyticalCostModel::nic_share_gbps(const Event& event) const {
  const auto& inter = cluster_.inter_node;
  const double nics = require_positive(inter.nics_per_host, cluster_, "inter_node.nics_per_host", event);
  const double nic_gbps = require_positive(inter.nic_busbw_gbps, cluster_, "inter_node.nic_busbw_gbps", event);
  return nics * nic_gbps / std::max(cluster_.gpus_per_host, 1);
}

}  // namespace distsim::cost
