#pragma once

#include "events/job_events.hpp"

namespace distsim::events {

//! Splits a chunk's backward templates into the input-gradient step B (`backward_input`) and the
//! weight-gradient step W (`backward_weight`), as zero-bubble pipeline schedules run them (Qi et
//! al., ICLR'24 §2; Megatron-Core with TransformerEngine's delay_wgrad_compute). W holds the
//! wgrad GEMMs, with phase weight_gradient; B holds everything else in its order: recompute,
//! dgrad GEMMs, the attention and the element-wise backward kernels, and every tensor-parallel
//! collective, including the input-gradient reduction (which in B no longer overlaps a wgrad GEMM)
//! and, under sequence parallelism, the all-gather of the saved input shard that the wgrad GEMM
//! reads, which Megatron issues during the backward pass and keeps for the delayed wgrad.
//! A W template that waited for such a B template no longer does: B runs first on the device.
//! Fills each gradient bucket's weight_ready_after.
void split_backward(ChunkWork& work);

}  // namespace distsim::events
