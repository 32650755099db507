#include "whatif/simulated_operations.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/input_error.hpp"
#include "program/iteration_end.hpp"

namespace distsim::whatif {

namespace {

using compare::ActivityKind;
using events::Phase;

SimulatedActivity activity(int dp, int stage, ActivityKind kind, Phase phase, int microbatch, std::string label,
                           SimTime start, SimTime end, int tp = 0) {
  return {dp, stage, tp, kind, phase, microbatch, std::move(label), start, end};
}

const MeasuredOp& find_op(const MeasuredTrace& trace, int dp, int stage, OpRole role, int seq) {
  for (const auto& op : trace.ops) {
    if (op.dp == dp && op.stage == stage && op.role == role && op.seq == seq) return op;
  }
  throw std::runtime_error("no such operation");
}

std::string refusal(const SimulatedJob& job, const std::vector<SimulatedActivity>& activities) {
  try {
    simulated_operations(job, activities, "t.json");
  } catch (const InputError& error) {
    return error.what();
  }
  return "";
}

}  // namespace

// A forward cut by a tensor-parallel all-reduce is one computation from its first start to its last
// end (1000 to 4000 ns); the recomputation and the backward of the same micro-batch are one backward
// (5000 to 9000 ns); times count from the first device activity (1000 ns) in seconds.
TEST(SimulatedOperations, APassIsOneComputationOverItsStreams) {
  const std::vector<SimulatedActivity> activities = {
      activity(0, 0, ActivityKind::compute, Phase::forward, 0, "qkv", 1000, 2000),
      activity(0, 0, ActivityKind::tp_comm, Phase::forward, 0, "tp all_reduce", 2000, 3000),
      activity(0, 0, ActivityKind::compute, Phase::forward, 0, "fc1", 3000, 4000),
      activity(0, 0, ActivityKind::compute, Phase::recompute, 0, "qkv", 5000, 6000),
      activity(0, 0, ActivityKind::compute, Phase::backward, 0, "qkv (B)", 6000, 9000),
  };
  const MeasuredTrace trace = simulated_operations({}, activities, "t.json");
  ASSERT_EQ(trace.ops.size(), 2u);
  const MeasuredOp& forward = find_op(trace, 0, 0, OpRole::forward_compute, 0);
  EXPECT_DOUBLE_EQ(forward.start_s, 0.0);
  EXPECT_DOUBLE_EQ(forward.duration_s, 3e-6);
  const MeasuredOp& backward = find_op(trace, 0, 0, OpRole::backward_compute, 0);
  EXPECT_DOUBLE_EQ(backward.start_s, 4e-6);
  EXPECT_DOUBLE_EQ(backward.duration_s, 4e-6);
  // Only the note that says the timeline is simulated.
  ASSERT_EQ(trace.notes.size(), 1u);
  EXPECT_NE(trace.notes[0].find("the trace is distsim's simulation"), std::string::npos);
}

// Each pipeline stream and phase is one of the four transfers, of its micro-batch.
TEST(SimulatedOperations, PipelineStreamsAreTheFourTransfers) {
  const std::vector<SimulatedActivity> activities = {
      activity(0, 0, ActivityKind::pp_send_next, Phase::forward, 1, "send activation", 0, 10),
      activity(0, 1, ActivityKind::pp_recv_prev, Phase::forward, 1, "send activation", 0, 10),
      activity(0, 1, ActivityKind::pp_send_prev, Phase::backward, 0, "send gradient", 20, 30),
      activity(0, 0, ActivityKind::pp_recv_next, Phase::backward, 0, "send gradient", 20, 30),
  };
  const MeasuredTrace trace = simulated_operations({}, activities, "t.json");
  ASSERT_EQ(trace.ops.size(), 4u);
  EXPECT_DOUBLE_EQ(find_op(trace, 0, 0, OpRole::forward_send, 1).duration_s, 1e-8);
  EXPECT_DOUBLE_EQ(find_op(trace, 0, 1, OpRole::forward_recv, 1).duration_s, 1e-8);
  EXPECT_DOUBLE_EQ(find_op(trace, 0, 1, OpRole::backward_send, 0).start_s, 2e-8);
  EXPECT_DOUBLE_EQ(find_op(trace, 0, 0, OpRole::backward_recv, 0).start_s, 2e-8);
}

// The iteration end's tasks by their labels: the buckets numbered in their measured order (the one
// that starts at 100 ns is bucket 0 though listed second), the optimizer, the parameter all-gathers;
// after the note that the timeline is simulated, one says a second replica is missing, one that
// all-reduces stand in for reduce-scatters and one that tensor-parallel rank 1's activity was not
// read.
TEST(SimulatedOperations, IterationEndTasksByTheirLabels) {
  const std::string all_reduce(program::kGradientAllReduceLabel);
  const std::vector<SimulatedActivity> activities = {
      activity(0, 0, ActivityKind::dp_comm, Phase::backward, -1, all_reduce, 300, 400),
      activity(0, 0, ActivityKind::dp_comm, Phase::backward, -1, all_reduce, 100, 250),
      activity(0, 0, ActivityKind::tp_comm, Phase::backward, -1, std::string(program::kSequenceParallelReductionLabel),
               400, 450),
      activity(0, 0, ActivityKind::dp_comm, Phase::backward, -1, std::string(program::kEmbeddingReductionLabel), 450,
               500),
      activity(0, 0, ActivityKind::compute, Phase::optimizer, -1, std::string(program::kOptimizerStepLabel), 500, 700),
      activity(0, 0, ActivityKind::dp_comm, Phase::optimizer, -1, std::string(program::kParameterGatherLabel), 700,
               800),
      activity(0, 0, ActivityKind::compute, Phase::optimizer, -1, std::string(program::kOptimizerStepLabel), 0, 999, 1),
  };
  const MeasuredTrace trace = simulated_operations({.data_parallel = 2}, activities, "t.json");
  ASSERT_EQ(trace.ops.size(), 6u);
  EXPECT_DOUBLE_EQ(find_op(trace, 0, 0, OpRole::grads_reduce_scatter, 0).duration_s, 1.5e-7);
  EXPECT_DOUBLE_EQ(find_op(trace, 0, 0, OpRole::grads_reduce_scatter, 1).start_s, 2e-7);
  EXPECT_DOUBLE_EQ(find_op(trace, 0, 0, OpRole::layernorm_grads_all_reduce, 0).duration_s, 5e-8);
  EXPECT_DOUBLE_EQ(find_op(trace, 0, 0, OpRole::embedding_grads_all_reduce, 0).duration_s, 5e-8);
  EXPECT_DOUBLE_EQ(find_op(trace, 0, 0, OpRole::optimizer, 0).duration_s, 2e-7);
  EXPECT_DOUBLE_EQ(find_op(trace, 0, 0, OpRole::params_all_gather, 0).start_s, 6e-7);
  ASSERT_EQ(trace.notes.size(), 4u);
  EXPECT_NE(trace.notes[1].find("holds 1 of the job's 2 data-parallel replicas"), std::string::npos);
  EXPECT_NE(trace.notes[2].find("replayed as grads-reduce-scatter"), std::string::npos);
  EXPECT_NE(trace.notes[3].find("1 activities of tensor-parallel ranks other than 0 are not read"), std::string::npos);
}

TEST(SimulatedOperations, RefusesWhatTheReplayDoesNotModel) {
  const auto one = [](SimulatedActivity a) { return std::vector<SimulatedActivity>{std::move(a)}; };
  const auto forward = activity(0, 0, ActivityKind::compute, Phase::forward, 0, "qkv", 0, 10);
  EXPECT_EQ(refusal({.virtual_stages = 2}, one(forward)),
            "t.json: the job has 2 virtual pipeline stages; the replay models one model chunk per stage (interleaved "
            "schedules are not modelled)");
  EXPECT_EQ(refusal({.context_parallel = 2}, one(forward)),
            "t.json: the job has context parallelism 2; the replay's groups are data-parallel ranks and pipeline "
            "stages (context-parallel ranks are not modelled)");
  EXPECT_EQ(refusal({}, {}), "t.json: the trace holds no device activities");
  EXPECT_EQ(refusal({}, one(activity(0, 1, ActivityKind::compute, Phase::weight_gradient, 0, "fc2 (W)", 0, 10))),
            "t.json: 'fc2 (W)' (compute, wgrad, data-parallel rank 0, stage 1): the replay takes a micro-batch's "
            "backward as one computation; weight-gradient passes split from it (zero-bubble schedules) are not "
            "modelled");
  EXPECT_EQ(refusal({}, one(activity(0, 0, ActivityKind::pp_send_next, Phase::backward, 0, "send gradient", 0, 10))),
            "t.json: 'send gradient' (pp_send_next, bwd, data-parallel rank 0, stage 0): the replay sends activations "
            "to the next stage and gradients to the previous one; pipelines in both directions (DualPipe) are not "
            "modelled");
  EXPECT_EQ(refusal({}, one(activity(0, 0, ActivityKind::dp_reduce, Phase::backward, -1, "dp reduce", 0, 10))),
            "t.json: 'dp reduce' (dp_reduce, bwd, data-parallel rank 0, stage 0): the replay's data-parallel groups "
            "are every rank of a stage; hierarchical groups (a shard group smaller than data parallelism) are not "
            "modelled");
  EXPECT_EQ(
      refusal({}, one(activity(0, 0, ActivityKind::dp_comm, Phase::forward, 0, "fsdp parameter all_gather", 0, 10))),
      "t.json: 'fsdp parameter all_gather' (dp_comm, fwd, data-parallel rank 0, stage 0): the replay's "
      "data-parallel collectives come at the iteration's end; parameters gathered inside the passes (ZeRO-3, "
      "FSDP) are not modelled");
  EXPECT_EQ(refusal({}, one(activity(0, 0, ActivityKind::dp_comm, Phase::backward, -1,
                                     std::string(program::kExpertGradientAllReduceLabel), 0, 10))),
            "t.json: 'expert gradient all_reduce' (dp_comm, bwd, data-parallel rank 0, stage 0): the replay has no "
            "operation for it (expert data-parallel reductions and gathers, and gradients summed between the stages "
            "that hold a parameter's copies, are not modelled)");
}

}  // namespace distsim::whatif
