#pragma once

#include <cstdint>
#include <vector>

#include "events/event_table.hpp"
#include "events/job_events.hpp"
#include "strategy/job_spec.hpp"
#include "strategy/rank_layout.hpp"

namespace distsim::events {

//! A run of a chunk's parameters, in the reverse order in which Megatron-LM fills gradient
//! buckets, and the backward step after which all of their gradients exist.
struct ParameterSegment {
  std::int64_t parameters = 0;  //!< of the whole model (before the tensor-parallel split)
  std::int64_t duplicated = 0;  //!< of those, held whole by every tensor-parallel rank
  int backward_end = -1;        //!< index into the chunk's backward templates
};

//! One tensor-parallel rank's parameters in `segments`, split as model::tensor_rank_parameters.
std::int64_t rank_parameters(const std::vector<ParameterSegment>& segments, int tensor_parallel);

//! Splits a chunk's parameters (`segments`, in bucket order) into data-parallel buckets of
//! Strategy::bucket_params parameters. Each bucket's gradients are all-reduced, or with the
//! distributed optimizer reduce-scattered, over the data-parallel group (with context
//! parallelism the dp·cp ranks that share the weights), and the updated parameters all-gathered
//! after the optimizer step. Under ZeRO-2 only the all-gathers: its units reduce their gradients
//! in the backward passes. Empty when dp·cp = 1 and under ZeRO-3.
std::vector<GradientBucket> gradient_buckets(const strategy::JobSpec& job, const strategy::RankLayout& layout,
                                             strategy::RankCoord coord, const std::vector<ParameterSegment>& segments,
                                             EventTable& table);

//! Bytes of one gradient element in the data-parallel reduction: fp32 main gradients with bf16
//! or fp32 training, fp16 with fp16 (Megatron-LM's --accumulate-allreduce-grads-in-fp32
//! default; docs/reference/formats.md §5.1).
int gradient_element_bytes(Dtype dtype);

}  // namespace distsim::events
