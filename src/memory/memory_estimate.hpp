#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "schedule/schedule.hpp"
#include "strategy/job_spec.hpp"

namespace distsim::memory {

//! Framework memory that no tensor of the model accounts for: the CUDA context and loaded kernels,
//! NCCL communicator buffers and cuBLAS workspaces. PyTorch's first CUDA use takes between 300 MiB
//! and 2 GiB (vram.asmirnov.xyz); 1 GiB sits inside that range. See docs/memory_model.md.
constexpr std::int64_t kFrameworkReserveBytes = std::int64_t{1} << 30;
//! Caching-allocator fragmentation and short-lived temporaries, as a fraction of the memory that
//! is allocated and freed every micro-batch (activations and pipeline buffers). Megatron-LM's
//! theoretical_memory_usage.py adds the same 5 % to activations.
constexpr double kFragmentationFraction = 0.05;
//! Double buffering: one buffer in transfer while the next is filled or drained.
constexpr int kBuffersPerDirection = 2;

//! Peak bytes on one device (one tensor-parallel rank) of a pipeline stage. Every device of a
//! stage holds the same amounts.
struct StageMemory {
  int stage = 0;
  std::int64_t parameters = 0;        //!< parameters on the device
  double microbatches_in_flight = 0;  //!< whose activations are held at the peak
  std::int64_t weights = 0;           //!< working weights, plus TransformerEngine's fp8 copies with fp8 GEMMs
  std::int64_t gradients = 0;
  std::int64_t optimizer_states = 0;
  std::int64_t activations = 0;
  std::int64_t pipeline_buffers = 0;  //!< send/receive buffers of activations and their gradients
  std::int64_t overhead = 0;          //!< framework reserve plus fragmentation allowance
  //! Bytes the stage's GPU holds (memory_gb read as GiB: HBM sizes are binary); on a cluster of
  //! several GPU types, the smallest of the types its ranks run on, which `gpu` names.
  std::int64_t capacity = 0;
  std::string gpu;

  std::int64_t total() const {
    return weights + gradients + optimizer_states + activations + pipeline_buffers + overhead;
  }
};

//! The memory one iteration needs on each device against its GPU's capacity.
struct MemoryEstimate {
  std::vector<StageMemory> stages;
  std::int64_t capacity = 0;  //!< bytes: the smallest capacity of the stages' GPUs

  //! The stage with the least memory to spare (the peak() when every stage has one capacity); the
  //! earliest on ties. Throws InternalError when empty.
  const StageMemory& tightest() const;
  //! Whether the stages' GPUs differ in memory.
  bool capacities_differ() const;

  //! The stage that needs the most; the earliest on ties. Throws InternalError when empty.
  const StageMemory& peak() const;
  bool fits() const { return stages_over_capacity() == 0; }
  //! How many stages need more than the capacity.
  int stages_over_capacity() const;
};

//! Per-stage memory of a job (docs/memory_model.md): Megatron-LM's bytes per parameter for the
//! model state and Korthikanti et al.'s activation accounting with the schedule's micro-batches
//! in flight, plus pipeline buffers and a framework allowance. Expects a validated job.
MemoryEstimate estimate_memory(const strategy::JobSpec& job, const schedule::PipelineSchedule& schedule);
//! The estimate under the schedule the job names (Strategy::schedule).
MemoryEstimate estimate_memory(const strategy::JobSpec& job);

}  // namespace distsim::memory
