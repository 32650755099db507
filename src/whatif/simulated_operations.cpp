#include "whatif/simulated_operations.hpp"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "core/input_error.hpp"
#include "program/iteration_end.hpp"

namespace distsim::whatif {

namespace {

using compare::ActivityKind;

//! What an activity is part of: an operation it makes together with the other activities of the
//! same micro-batch (`whole_pass`), or one of its own, numbered later by its measured order.
struct Placement {
  OpRole role = OpRole::forward_compute;
  int seq = 0;
  bool whole_pass = true;
};

[[noreturn]] void not_modelled(const std::string& where, const SimulatedActivity& activity, std::string_view what) {
  throw InputError(fmt::format("{}: '{}' ({}, {}, data-parallel rank {}, stage {}): {}", where, activity.label,
                               compare::activity_kind_name(activity.kind), events::phase_name(*activity.phase),
                               activity.dp, activity.stage, what));
}

//! The pipeline transfer a stream and phase make: activations go to the next stage in the forward
//! pass, gradients to the previous one in the backward pass.
Placement pipeline_transfer(const SimulatedActivity& activity, const std::string& where) {
  const bool forward = activity.phase == events::Phase::forward;
  const bool backward = activity.phase == events::Phase::backward;
  if (activity.kind == ActivityKind::pp_send_next && forward) return {OpRole::forward_send, activity.microbatch};
  if (activity.kind == ActivityKind::pp_recv_prev && forward) return {OpRole::forward_recv, activity.microbatch};
  if (activity.kind == ActivityKind::pp_send_prev && backward) return {OpRole::backward_send, activity.microbatch};
  if (activity.kind == ActivityKind::pp_recv_next && backward) return {OpRole::backward_recv, activity.microbatch};
  not_modelled(where, activity,
               "the replay sends activations to the next stage and gradients to the previous one; pipelines in "
               "both directions (DualPipe) are not modelled");
}

bool is_pipeline(ActivityKind kind) {
  return kind != ActivityKind::collective && events::is_pipeline_transfer(static_cast<events::StreamKind>(kind));
}

//! A task of the iteration end, by its label.
Placement iteration_end_task(const SimulatedActivity& activity, const std::string& where) {
  const std::string_view label = activity.label;
  if (activity.phase == events::Phase::optimizer && activity.kind == ActivityKind::compute) {
    return {OpRole::optimizer, 0};
  }
  if (label == program::kParameterGatherLabel) return {OpRole::params_all_gather, 0, false};
  if (label == program::kGradientAllReduceLabel || label == program::kGradientReduceScatterLabel) {
    return {OpRole::grads_reduce_scatter, 0, false};
  }
  if (label == program::kSequenceParallelReductionLabel) return {OpRole::layernorm_grads_all_reduce, 0, false};
  if (label == program::kEmbeddingReductionLabel) return {OpRole::embedding_grads_all_reduce, 0, false};
  not_modelled(where, activity,
               "the replay has no operation for it (expert data-parallel reductions and gathers, and gradients summed "
               "between the stages that hold a parameter's copies, are not modelled)");
}

Placement place(const SimulatedActivity& activity, const std::string& where) {
  if (activity.phase == events::Phase::weight_gradient) {
    not_modelled(where, activity,
                 "the replay takes a micro-batch's backward as one computation; weight-gradient passes split from it "
                 "(zero-bubble schedules) are not modelled");
  }
  if (activity.kind == ActivityKind::dp_reduce || activity.kind == ActivityKind::dp_replica) {
    not_modelled(where, activity,
                 "the replay's data-parallel groups are every rank of a stage; hierarchical groups (a shard group "
                 "smaller than data parallelism) are not modelled");
  }
  if (is_pipeline(activity.kind)) return pipeline_transfer(activity, where);
  if (activity.microbatch < 0) return iteration_end_task(activity, where);
  if (activity.kind == ActivityKind::dp_comm) {
    not_modelled(where, activity,
                 "the replay's data-parallel collectives come at the iteration's end; parameters gathered inside the "
                 "passes (ZeRO-3, FSDP) are not modelled");
  }
  const bool forward = activity.phase == events::Phase::forward;
  return {forward ? OpRole::forward_compute : OpRole::backward_compute, activity.microbatch};
}

void refuse_unmodelled_job(const SimulatedJob& job, const std::string& where) {
  if (job.virtual_stages > 1) {
    throw InputError(fmt::format("{}: the job has {} virtual pipeline stages; the replay models one model chunk per "
                                 "stage (interleaved schedules are not modelled)",
                                 where, job.virtual_stages));
  }
  if (job.context_parallel > 1) {
    throw InputError(fmt::format("{}: the job has context parallelism {}; the replay's groups are data-parallel ranks "
                                 "and pipeline stages (context-parallel ranks are not modelled)",
                                 where, job.context_parallel));
  }
}

using OpKey = std::tuple<int, int, OpRole, int>;  // dp, stage, role, seq

struct Span {
  SimTime start = 0;
  SimTime end = 0;
};

void widen(std::map<OpKey, Span>& spans, const OpKey& key, const SimulatedActivity& activity) {
  const auto [at, added] = spans.emplace(key, Span{activity.start, activity.end});
  if (added) return;
  at->second.start = std::min(at->second.start, activity.start);
  at->second.end = std::max(at->second.end, activity.end);
}

//! The operations of their own, numbered per rank and role in their measured order.
void number_in_order(std::map<OpKey, Span>& spans, std::vector<std::pair<OpKey, Span>> singles) {
  std::stable_sort(singles.begin(), singles.end(), [](const auto& a, const auto& b) {
    const auto& [dp_a, stage_a, role_a, seq_a] = a.first;
    const auto& [dp_b, stage_b, role_b, seq_b] = b.first;
    return std::tuple(dp_a, stage_a, role_a, a.second.start) < std::tuple(dp_b, stage_b, role_b, b.second.start);
  });
  std::map<std::tuple<int, int, OpRole>, int> next;
  for (const auto& [key, span] : singles) {
    const auto& [dp, stage, role, seq] = key;
    spans.emplace(OpKey{dp, stage, role, next[{dp, stage, role}]++}, span);
  }
}

}  // namespace

MeasuredTrace simulated_operations(const SimulatedJob& job, const std::vector<SimulatedActivity>& activities,
                                   const std::string& where) {
  refuse_unmodelled_job(job, where);
  if (activities.empty()) throw InputError(where + ": the trace holds no device activities");
  const int tp = std::min_element(activities.begin(), activities.end(), [](const auto& a, const auto& b) {
                   return a.tp < b.tp;
                 })->tp;
  std::map<OpKey, Span> spans;
  std::vector<std::pair<OpKey, Span>> singles;
  std::size_t other_tp = 0;
  int replicas = 0;
  for (const auto& activity : activities) {
    if (activity.tp != tp) {
      ++other_tp;
      continue;
    }
    replicas = std::max(replicas, activity.dp + 1);
    const Placement placement = place(activity, where);
    const OpKey key{activity.dp, activity.stage, placement.role, placement.seq};
    if (placement.whole_pass) {
      widen(spans, key, activity);
    } else {
      singles.emplace_back(key, Span{activity.start, activity.end});
    }
  }
  number_in_order(spans, std::move(singles));
  SimTime origin = spans.begin()->second.start;
  for (const auto& [key, span] : spans) origin = std::min(origin, span.start);
  MeasuredTrace trace;
  trace.notes.emplace_back(
      "the trace is distsim's simulation: 'measured' is its simulated timeline, and the launch slowdown what the "
      "replay's rules do not explain of it (the host's launches, Megatron's batched pipeline transfers)");
  for (const auto& [key, span] : spans) {
    const auto& [dp, stage, role, seq] = key;
    trace.ops.push_back({0, dp, stage, role, seq, static_cast<double>(span.start - origin) * 1e-9,
                         static_cast<double>(span.end - span.start) * 1e-9});
  }
  if (replicas < job.data_parallel) {
    trace.notes.push_back(fmt::format("the trace holds {} of the job's {} data-parallel replicas (distsim simulate "
                                      "--trace-ranks all writes every one)",
                                      replicas, job.data_parallel));
  }
  const bool all_reduces = std::any_of(activities.begin(), activities.end(), [](const SimulatedActivity& activity) {
    return activity.label == program::kGradientAllReduceLabel;
  });
  if (all_reduces) {
    trace.notes.emplace_back(
        "the gradient buckets' all-reduces (no distributed optimizer) are replayed as grads-reduce-scatter: both wait "
        "for every data-parallel rank of their stage");
  }
  if (other_tp > 0) {
    trace.notes.push_back(fmt::format("{} activities of tensor-parallel ranks other than {} are not read: the lowest "
                                      "tensor-parallel rank stands for its stage",
                                      other_tp, tp));
  }
  return trace;
}

}  // namespace distsim::whatif
