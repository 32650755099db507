#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/dtype.hpp"

namespace distsim::events {

//! How an event's duration is obtained by the analytical model: a GEMM (tile and wave
//! quantization), fused attention (FLOPs at attention efficiency), a memory-bound kernel
//! (bytes over bandwidth), or a communication.
enum class EventClass { gemm, attention, memory_bound, collective, point_to_point };

//! ring_exchange: each of the group's ranks sends `bytes` to the next rank of the ring and
//! receives as many from the previous one, all at once (context parallelism's K/V rotation).
enum class Collective { all_reduce, all_gather, reduce_scatter, send_recv, ring_exchange };

std::string_view collective_name(Collective collective);
//! "gemm", "attention", "memory_bound", "collective" or "point_to_point".
std::string_view event_class_name(EventClass event_class);

//! A named dimension of a compute event ("m" → 4096).
struct Dim {
  std::string name;
  std::int64_t value = 0;
  bool operator==(const Dim&) const = default;
};

//! A unique unit of work. Two tasks with equal keys are the same event and cost the same.
//! Compute events carry their operator, shapes and dtype; communication events their collective,
//! bytes, group size and placement. `flops` and `bytes_moved` are the work the generator derived
//! from the shapes, so cost models need not know each operator's formula.
struct Event {
  EventClass event_class = EventClass::memory_bound;
  std::string op;          //!< "gemm", "flash_attention_bwd", "layernorm", "all_reduce", ...
  std::vector<Dim> dims;   //!< compute shape; for GEMMs m, n, k (batched GEMMs: batch, m, n, k)
  Dtype dtype = Dtype::bf16;
  double flops = 0;        //!< floating-point operations of one occurrence
  double bytes_moved = 0;  //!< bytes read and written from device memory (compute events)
  // Communication events only.
  Collective collective = Collective::all_reduce;
  std::int64_t bytes = 0;  //!< message size: the whole buffer, as nccl-tests counts it
  int group_size = 1;
  bool intra_node = true;  //!< the whole group is in one scale-up domain ("intra" in the key)
  int ranks_per_node = 1;  //!< group members on its busiest host (how many of the host's NICs it drives)

  bool is_communication() const {
    return event_class == EventClass::collective || event_class == EventClass::point_to_point;
  }
  std::int64_t dim(std::string_view name) const;
  //! The dimension, or `fallback` when the event has none of that name (a plain GEMM's batch).
  std::int64_t dim_or(std::string_view name, std::int64_t fallback) const;
  //! Canonical text key: equal keys mean the same event, e.g.
  //! "gemm m=4096 n=3072 k=1024 bf16" or "all_reduce bytes=8388608 group=8 intra".
  std::string key() const;
};

}  // namespace distsim::events
