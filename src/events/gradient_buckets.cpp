#include "events/gradient_buckets.hpp"

#include <algorithm>

#include "events/event_factory.hpp"
#include "model/parameter_count.hpp"

namespace distsim::events {

int gradient_element_bytes(Dtype dtype) { return dtype == Dtype::fp16 ? 2 : 4; }

namespace {

//! The backward step after which parameter `index` (counted in bucket order, per rank) has its
//! gradient: the end of the segment that holds it. Segment boundaries are scaled to one rank's
//! share the same way as the chunk's total.
int ready_step(const std::vector<ParameterSegment>& segments, std::int64_t index, int tensor_parallel) {
  std::int64_t cumulative = 0;
  std::int64_t duplicated = 0;
  for (const auto& segment : segments) {
    cumulative += segment.parameters;
    duplicated += segment.duplicated;
    if (model::tensor_rank_parameters(cumulative, duplicated, tensor_parallel) > index) {
      return segment.backward_end;
    }
  }
  return segments.back().backward_end;
}

}  // namespace

std::int64_t rank_parameters(const std::vector<ParameterSegment>& segments, int tensor_parallel) {
  std::int64_t total = 0;
  std::int64_t duplicated = 0;
  for (const auto& segment : segments) {
    total += segment.parameters;
    duplicated += segment.duplicated;
  }
  return model::tensor_rank_parameters(total, duplicated, tensor_parallel);
}

std::vector<GradientBucket> gradient_buckets(const strategy::JobSpec& job, const strategy::RankLayout& layout,
                                             strategy::RankCoord coord, const std::vector<ParameterSegment>& segments,
                                             EventTable& table) {
  const strategy::Strategy& strategy = job.strategy;
  // ZeRO-3 reduces each unit's gradients inside the backward pass and gathers the parameters before
  // each unit (build_rank_work); ZeRO-2 also reduces them there but all-gathers the updated
  // parameters here.
  if (strategy.gradient_group_size() == 1 || segments.empty() || strategy.zero_stage() == strategy::Sharding::full) {
    return {};
  }
  const bool reduced_per_unit = strategy.reduces_per_unit();
  const std::int64_t parameters = rank_parameters(segments, strategy.tensor_parallel);
  const std::int64_t bucket_size = strategy.bucket_params();
  const EventFactory factory(strategy.dtype);
  const strategy::GroupPlacement group = layout.gradient_group(coord);
  const int group_size = strategy.gradient_group_size();
  // ZeRO-1 reduce-scatters the buckets once an iteration; it and ZeRO-2 all-gather the updated
  // parameters.
  const bool sharded = strategy.zero_stage() != strategy::Sharding::none;
  const Collective reduction = sharded ? Collective::reduce_scatter : Collective::all_reduce;
  std::vector<GradientBucket> buckets;
  for (std::int64_t done = 0; done < parameters; done += bucket_size) {
    const std::int64_t size = std::min(bucket_size, parameters - done);
    GradientBucket bucket;
    if (!reduced_per_unit) {
      bucket.reduction =
          table.intern(factory.collective(reduction, size * gradient_element_bytes(strategy.dtype), group, group_size));
    }
    if (sharded) {
      bucket.parameter_gather = table.intern(
          factory.collective(Collective::all_gather, size * dtype_bytes(strategy.dtype), group, group_size));
    }
    bucket.ready_after = ready_step(segments, done + size - 1, strategy.tensor_parallel);
    buckets.push_back(bucket);
  }
  return buckets;
}

}  // namespace distsim::events
