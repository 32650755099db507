#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/dtype.hpp"
#include "events/operator.hpp"

namespace distsim::events {

//! A named dimension of a compute event ("m" → 4096). The name is the operator table's field
//! name (or a string literal), which outlives every event.
struct Dim {
  std::string_view name;
  std::int64_t value = 0;
  bool operator==(const Dim&) const = default;
};

//! A unique unit of work. Two tasks with equal keys are the same event and cost the same.
//! Compute events carry their operator, shapes and dtype; communication events their collective,
//! bytes, group size and placement. `flops` and `bytes_moved` are the work the generator derived
//! from the shapes, so cost models need not know each operator's formula.
struct Event {
  EventClass event_class = EventClass::memory_bound;
  Operator op = Operator::gemm;
  std::vector<Dim> dims;  //!< compute shape: the dim and flag fields of the operator's key, in key order
  Dtype dtype = Dtype::bf16;
  double flops = 0;        //!< floating-point operations of one occurrence
  double bytes_moved = 0;  //!< bytes read and written from device memory (compute events)
  //! The GPU type that runs a compute event on a cluster of several (cluster::ClusterSpec::
  //! gpu_type_of_group); 0 otherwise. The key writes it as "gpu=N" when it is not 0.
  int gpu_type = 0;
  // Communication events only.
  Collective collective = Collective::all_reduce;
  std::int64_t bytes = 0;  //!< message size: the whole buffer, as nccl-tests counts it
  int group_size = 1;
  bool within_domain = true;  //!< the whole group is in one scale-up domain ("intra" in the key)
  //! Group members in its busiest scale-up domain: the NICs it drives there (each member's own), and
  //! NCCL's "node" under multi-node NVLink, where a whole NVL72 rack is one node.
  int ranks_per_domain = 1;

  bool is_communication() const {
    return event_class == EventClass::collective || event_class == EventClass::point_to_point;
  }
  //! Communication that leaves its scale-up domain: it goes through the NICs of every device it
  //! involves, which concurrent ones share (ProgramDraft).
  bool crosses_nics() const { return is_communication() && !within_domain; }
  std::int64_t dim(std::string_view name) const;
  //! The dimension, or `fallback` when the event has none of that name (a plain GEMM's batch).
  std::int64_t dim_or(std::string_view name, std::int64_t fallback) const;
  //! Canonical text key: equal keys mean the same event, e.g.
  //! "gemm m=4096 n=3072 k=1024 bf16" or "all_reduce bytes=8388608 group=8 intra"
  //! (format_event_key, event_key.hpp).
  std::string key() const;
};

}  // namespace distsim::events
