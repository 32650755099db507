#pragma once

#include <string>

#include "cost/fallback_cost_model.hpp"
#include "strategy/job_spec.hpp"

namespace distsim::api {

//! The job with a `balanced` pipeline layout (strategy::kBalancedLayout) replaced by the layout
//! string whose busiest stage computes the least per micro-batch; any other job as it is. Each
//! stage is priced on its GPU type (strategy::GpuPlacement; the slowest of them when its replicas
//! run on several): every decoder layer's forward and backward compute, recomputation included,
//! the embedding's on the first stage and the head's and loss's on the last, each event priced by
//! `costs`. The split is the exact minimum of the busiest stage over every split into contiguous
//! runs of layers (the first and the last stage may hold none besides the embedding or the head),
//! the earliest such split on ties. Communication is left out: it does not depend on the GPU.
//! Expects a job that passed schedule::validate_job.
strategy::JobSpec with_balanced_layout(const strategy::JobSpec& job, const cost::FallbackCostModel& costs);

}  // namespace distsim::api
