#include "io/trace/trace_reader.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "io_test_support.hpp"

namespace distsim::io {

using strategy::ParallelDim;

namespace {

using compare::ActivityKind;
using events::Phase;

// The fixtures under tests/fixtures/traces/ are described in its README.md: a hand-made distsim
// trace of a 1M2P1D job (iteration 100 µs) and measured traces of the same job in the runner's
// and the PyTorch profiler's formats.
std::string trace(const std::string& name) { return fixture("traces/" + name); }

compare::Timeline predicted() { return read_predicted_trace(trace("predicted_1m2p1d.json")); }

compare::Timeline measured(const std::vector<std::string>& names) {
  std::vector<std::string> paths;
  for (const auto& name : names) {
    paths.push_back(trace(name));
  }
  return read_measured_traces(paths, predicted());
}

//! A trace file with `text` in the test's scratch directory.
std::string scratch_file(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / ("distsim_trace_reader_" + name);
  std::ofstream(path) << text;
  return path.string();
}

std::string measured_error(const std::string& text) {
  const auto path = scratch_file("bad.json", text);
  return error_of([&] { read_measured_traces({path}, predicted()); });
}

TEST(PredictedTrace, ReadsRanksStreamsAndLabels) {
  const auto timeline = predicted();
  EXPECT_EQ(timeline.format, "distsim trace");
  EXPECT_EQ(timeline.job.notation(), "1M2P1D");
  EXPECT_EQ(timeline.begin, 0);
  EXPECT_EQ(timeline.end, 100'000);  // otherData.iteration_time_ns
  ASSERT_EQ(timeline.ranks.size(), 2u);
  // Rank 0: 9 compute pieces, 2 sends, 2 receives (13 X events; the flow arrows are not
  // activities). Sorted by start: the first is qkv of fwd mb 0 at 0-4 µs.
  const auto& rank0 = timeline.ranks[0].activities;
  ASSERT_EQ(rank0.size(), 13u);
  EXPECT_EQ(rank0[0].kind, ActivityKind::compute);
  EXPECT_EQ(rank0[0].phase, Phase::forward);
  EXPECT_EQ(rank0[0].microbatch, 0);
  EXPECT_EQ(rank0[0].end, 4'000);
  EXPECT_EQ(rank0.back().phase, Phase::optimizer);
  EXPECT_EQ(rank0.back().microbatch, -1);
  // distsim writes "pp_send" / "pp_recv"; the thread (stream kind) says the direction.
  const auto kinds_of = [](const compare::RankTimeline& rank) {
    std::set<ActivityKind> kinds;
    for (const auto& activity : rank.activities) kinds.insert(activity.kind);
    return kinds;
  };
  EXPECT_EQ(kinds_of(timeline.ranks[0]),
            (std::set{ActivityKind::compute, ActivityKind::pp_send_next, ActivityKind::pp_recv_next}));
  EXPECT_EQ(kinds_of(timeline.ranks[1]),
            (std::set{ActivityKind::compute, ActivityKind::pp_recv_prev, ActivityKind::pp_send_prev}));
  EXPECT_EQ(timeline.ranks[1].coord[ParallelDim::pp], 1);
}

TEST(PredictedTrace, RefusesOtherFormats) {
  EXPECT_EQ(error_of([] { read_predicted_trace(trace("runner/rank0.json")); }),
            trace("runner/rank0.json") +
                ": not a distsim trace (no otherData.iteration_time_ns); --predicted takes the trace that distsim "
                "simulate --trace writes");
}

TEST(PredictedTrace, MissingFileIsNamed) {
  EXPECT_EQ(error_of([] { read_predicted_trace("no-such-trace.json"); }),
            "cannot open predicted trace 'no-such-trace.json': No such file or directory");
}

TEST(RunnerTrace, ReadsOneRankPerFile) {
  const auto timeline = measured({"runner/rank1.json", "runner/rank0.json"});
  EXPECT_EQ(timeline.format, "distsim runner");
  EXPECT_TRUE(timeline.pass_labels);
  EXPECT_EQ(timeline.begin, 0);
  EXPECT_EQ(timeline.end, 110'000);  // iteration_end_us 110
  ASSERT_EQ(timeline.ranks.size(), 2u);
  EXPECT_EQ(timeline.ranks[0].rank, 0);  // ordered by rank whatever the file order
  // Rank 1: the 9 predicted activities shifted by 10 µs plus the gradient copy (bwd, no mb).
  const auto& rank1 = timeline.ranks[1];
  EXPECT_EQ(rank1.coord[ParallelDim::pp], 1);  // distsim_runner.stage
  ASSERT_EQ(rank1.activities.size(), 10u);
  EXPECT_EQ(rank1.activities[0].kind, ActivityKind::pp_recv_prev);
  EXPECT_EQ(rank1.activities[0].start, 20'000);
}

TEST(KinetoTrace, AnnotationsAreThePasses) {
  // The GPU-side ranges (gpu_user_annotation) are used; the CPU-side ones (user_annotation, 1 µs
  // long) are not. Rank 0: 5 passes and 4 NCCL kernels, each labelled by the range it starts in.
  const auto timeline = measured({"kineto/annotated_rank0.json", "kineto/annotated_rank1.json"});
  EXPECT_EQ(timeline.format, "PyTorch profiler (Kineto)");
  EXPECT_TRUE(timeline.pass_labels);
  EXPECT_EQ(timeline.begin, 1'000'000'000);           // the first kernel, 1,000,000 µs
  EXPECT_EQ(timeline.end - timeline.begin, 100'000);  // rank 0's optimizer ends at +100 µs
  const auto& rank0 = timeline.ranks[0].activities;
  ASSERT_EQ(rank0.size(), 9u);
  EXPECT_EQ(rank0[0].kind, ActivityKind::compute);
  EXPECT_EQ(rank0[0].end - rank0[0].start, 10'000);  // distsim:fwd:mb=0 spans 0-10 µs
  // The send kernel at 9-12 µs starts inside distsim:fwd:mb=0 (0-10).
  EXPECT_EQ(rank0[1].kind, ActivityKind::collective);
  EXPECT_EQ(rank0[1].phase, Phase::forward);
  EXPECT_EQ(rank0[1].microbatch, 0);
  // Rank 1's kernel at 5-12 µs starts before any of its ranges: no label.
  const auto& rank1 = timeline.ranks[1].activities;
  EXPECT_EQ(rank1[0].kind, ActivityKind::collective);
  EXPECT_FALSE(rank1[0].phase.has_value());
}

TEST(KinetoTrace, WithoutAnnotationsKernelsAreUnlabelledAndFileOrderGivesTheRank) {
  const auto timeline = measured({"kineto/plain_rank0.json", "kineto/plain_rank1.json"});
  EXPECT_FALSE(timeline.pass_labels);
  ASSERT_EQ(timeline.ranks.size(), 2u);
  EXPECT_EQ(timeline.ranks[1].rank, 1);
  EXPECT_EQ(timeline.ranks[1].coord[ParallelDim::pp], 1);  // Megatron order of the predicted 1M2P1D job
  EXPECT_EQ(timeline.ranks[0].activities.size(), 13u);     // 9 compute kernels, 4 NCCL kernels
  EXPECT_FALSE(timeline.ranks[0].activities[0].phase.has_value());
}

TEST(KinetoTrace, CpuRangesServeWhenThereAreNoGpuRanges) {
  compare::Timeline one_rank;
  one_rank.files = {"one.json"};
  const auto timeline = read_measured_traces({trace("kineto/cpu_annotated.json")}, one_rank);
  ASSERT_EQ(timeline.ranks[0].activities.size(), 1u);
  EXPECT_EQ(timeline.ranks[0].activities[0].phase, Phase::forward);
  EXPECT_EQ(timeline.iteration(), 10'000);
}

namespace {

//! A one-rank Kineto trace with `events` in the scratch directory, read for a one-rank job.
compare::Timeline one_rank_trace(const std::string& events) {
  compare::Timeline one_rank;
  one_rank.files = {"one.json"};
  return read_measured_traces({scratch_file("one.json", R"({"traceEvents":[)" + events + "]}")}, one_rank);
}

//! Rank 0's trace of the 2M2P1D job of kineto_groups/ (tests/fixtures/traces/README.md) with one
//! NCCL kernel whose args are `args`, and `info` as distributedInfo's pg_config; the kinds of its
//! activities.
ActivityKind kind_of_kernel(const std::string& args, const std::string& pg_config = "[]") {
  std::vector<std::string> paths;
  for (int rank = 1; rank < 4; ++rank)
    paths.push_back(trace("kineto_groups/megatron_rank" + std::to_string(rank) + ".json"));
  paths.push_back(scratch_file(
      "rank0.json",
      R"({"traceEvents":[{"ph":"X","cat":"kernel","name":"ncclDevKernel_AllReduce","ts":5,"dur":1,"args":)" + args +
          R"(}],"distributedInfo":{"rank":0,"world_size":4,"pg_config":)" + pg_config + "}}"));
  const auto predicted = read_predicted_trace(trace("kineto_groups/predicted_2m2p1d.json"));
  return read_measured_traces(paths, predicted).ranks[0].activities.at(0).kind;
}

}  // namespace

TEST(KinetoTrace, PipeliningRangesNameTheirPassAndMicroBatch) {
  // PyTorch pipelining's PP:<stage><action><mb>: F forward, B and I backward, W weight gradient;
  // SEND_F and a range without a micro-batch are not passes.
  const auto timeline = one_rank_trace(R"({"ph":"X","cat":"user_annotation","name":"PP:1F3","ts":0,"dur":10},)"
                                       R"({"ph":"X","cat":"user_annotation","name":"PP:1I3","ts":10,"dur":5},)"
                                       R"({"ph":"X","cat":"user_annotation","name":"PP:1W3","ts":15,"dur":5},)"
                                       R"({"ph":"X","cat":"user_annotation","name":"PP:1SEND_F3","ts":20,"dur":1},)"
                                       R"({"ph":"X","cat":"user_annotation","name":"PP:1F","ts":21,"dur":1})");
  const auto& activities = timeline.ranks[0].activities;
  ASSERT_EQ(activities.size(), 3u);
  EXPECT_EQ(activities[0].phase, Phase::forward);
  EXPECT_EQ(activities[0].microbatch, 3);
  EXPECT_FALSE(activities[0].microbatch_by_order);
  EXPECT_EQ(activities[1].phase, Phase::backward);
  EXPECT_EQ(activities[2].phase, Phase::weight_gradient);
  EXPECT_FALSE(timeline.microbatches_by_order);
}

TEST(KinetoTrace, AProfilerWithoutKinetoWritesTheBareListWithoutCategories) {
  // Debian 12's PyTorch 1.13: a list of events, none with "cat". The range is the pass; the gloo
  // send that starts in it is its communication; the aten op is neither.
  compare::Timeline one_rank;
  one_rank.files = {"one.json"};
  const auto path = scratch_file(
      "list.json", R"([{"name":"PP:0F1","ph":"X","ts":0,"dur":10,"tid":1,"pid":"CPU functions","args":{}},)"
                   R"({"name":"aten::addmm","ph":"X","ts":1,"dur":3,"tid":1,"pid":"CPU functions"},)"
                   R"({"name":"gloo:send","ph":"X","ts":8,"dur":4,"tid":2,"pid":"CPU functions"}])");
  const auto timeline = read_measured_traces({path}, one_rank);
  const auto& activities = timeline.ranks[0].activities;
  ASSERT_EQ(activities.size(), 2u);
  EXPECT_EQ(activities[0].kind, ActivityKind::compute);
  EXPECT_EQ(activities[0].microbatch, 1);
  EXPECT_EQ(activities[1].kind, ActivityKind::collective);
  EXPECT_EQ(activities[1].phase, Phase::forward);
  EXPECT_EQ(timeline.iteration(), 12'000);
}

TEST(KinetoTrace, MegatronStepsAreNumberedByOrderAndNestedStepsAreOnePass) {
  // Two forward_step calls (the second holds the model script's own forward_step) and one
  // backward_step; no kernels, so the host ranges are the passes.
  const auto timeline = one_rank_trace(
      R"({"ph":"X","cat":"python_function","name":"megatron/core/pipeline_parallel/schedules.py(389): forward_step","ts":0,"dur":10},)"
      R"({"ph":"X","cat":"python_function","name":"megatron/core/pipeline_parallel/schedules.py(389): forward_step","ts":10,"dur":10},)"
      R"({"ph":"X","cat":"python_function","name":"pretrain_gpt.py(160): forward_step","ts":11,"dur":5},)"
      R"({"ph":"X","cat":"python_function","name":"megatron/core/pipeline_parallel/schedules.py(472): backward_step","ts":20,"dur":10},)"
      R"({"ph":"X","cat":"python_function","name":"torch/nn/modules/module.py(1527): _call_impl","ts":0,"dur":30})");
  EXPECT_TRUE(timeline.microbatches_by_order);
  const auto& activities = timeline.ranks[0].activities;
  ASSERT_EQ(activities.size(), 3u);
  EXPECT_EQ(activities[1].phase, Phase::forward);
  EXPECT_EQ(activities[1].microbatch, 1);
  EXPECT_EQ(activities[1].end - activities[1].start, 10'000);
  EXPECT_TRUE(activities[1].microbatch_by_order);
  EXPECT_EQ(activities[2].phase, Phase::backward);
  EXPECT_EQ(activities[2].microbatch, 0);
}

TEST(KinetoTrace, ACollectivesGroupComesFromItsRanksThenPgConfigThenItsStride) {
  // Rank 0 of 2M2P1D: tensor group {0, 1}, pipeline pair {0, 2}.
  EXPECT_EQ(kind_of_kernel(R"({"Collective name":"allreduce","Process Group Ranks":"[0, 1]"})"), ActivityKind::tp_comm);
  // A list PyTorch truncated (past 30 ranks it ends with "...") is looked up by the group's name.
  EXPECT_EQ(
      kind_of_kernel(R"({"Collective name":"allreduce","Process Group Name":"7","Process Group Ranks":"[0, ...]"})",
                     R"([{"pg_name":"7","ranks":[1,0]}])"),
      ActivityKind::tp_comm);
  // Newer PyTorch describes an evenly strided group by its first rank, stride and size.
  EXPECT_EQ(kind_of_kernel(R"({"Collective name":"send","Global rank start":0,"Global rank stride":2,"Group size":2})"),
            ActivityKind::pp_send_next);
  EXPECT_EQ(kind_of_kernel(R"({"Collective name":"recv","Src Rank":2})"), ActivityKind::pp_recv_next);
  // The whole world is none of the job's groups; a kernel without metadata keeps its unknown group.
  EXPECT_EQ(kind_of_kernel(R"({"Collective name":"allreduce","Process Group Ranks":"[0, 1, 2, 3]"})"),
            ActivityKind::collective);
  EXPECT_EQ(kind_of_kernel(R"({"device":0})"), ActivityKind::collective);
}

TEST(KinetoTrace, BadCollectiveMetadataIsNamed) {
  const auto kernel = [](const std::string& args) {
    return R"({"traceEvents":[{"ph":"X","cat":"kernel","name":"ncclDevKernel_AllReduce","ts":5,"dur":1,"args":)" +
           args + "}]";
  };
  const auto path = scratch_file("bad.json", "");
  EXPECT_EQ(measured_error(kernel(R"({"Collective name":"allreduce","Process Group Ranks":"[0, one]"})") + "}"),
            path +
                R"(: traceEvents[0] ('ncclDevKernel_AllReduce'): 'Process Group Ranks' is "[0, one]"; expected a list )"
                R"(of ranks such as "[0, 1]")");
  EXPECT_EQ(measured_error(kernel(R"({"Collective name":"send","Dst Rank":"1"})") + "}"),
            path + ": traceEvents[0] ('ncclDevKernel_AllReduce'): args: no integer 'Dst Rank'");
  EXPECT_EQ(measured_error(R"({"traceEvents":[{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","ts":5,"dur":1,)"
                           R"("args":{"correlation":"x"}}]})"),
            path + R"(: traceEvents[0] ('cudaLaunchKernel'): args.correlation is "x"; expected an integer)");
  EXPECT_EQ(measured_error(kernel("{}") + R"(,"distributedInfo":{"rank":0,"world_size":2,"pg_config":3}})"),
            path + ": distributedInfo.pg_config is not a list of process groups");
  EXPECT_EQ(
      measured_error(kernel("{}") +
                     R"(,"distributedInfo":{"rank":0,"world_size":2,"pg_config":[{"pg_name":"1","ranks":[0,-1]}]}})"),
      path + ": distributedInfo.pg_config[pg_name 1].ranks: -1 is not a rank");
}

TEST(MeasuredTraces, MissingRanksAreNamed) {
  // Four ranks expected (1M4P1D), files for ranks 0, 1 and 3.
  compare::Timeline four_ranks;
  four_ranks.files = {"four.json"};
  four_ranks.job.pipeline_parallel = 4;
  const auto message = error_of([&] {
    read_measured_traces(
        {trace("kineto/world4_rank0.json"), trace("kineto/world4_rank1.json"), trace("kineto/world4_rank3.json")},
        four_ranks);
  });
  EXPECT_EQ(message,
            "--measured: missing rank 2: the predicted job has 4 ranks and the traces given hold ranks 0, 1, 3");
}

TEST(MeasuredTraces, TheOnlyOtherRankMissing) {
  EXPECT_EQ(error_of([] { measured({"runner/rank1.json"}); }),
            "--measured: missing rank 0: the predicted job has 2 ranks and the traces given hold rank 1");
}

TEST(MeasuredTraces, DuplicateRanksNameBothFiles) {
  EXPECT_EQ(error_of([] {
              measured({"runner/rank0.json", "kineto/annotated_rank0.json"});
            }),
            "--measured: '" + trace("runner/rank0.json") + "' and '" + trace("kineto/annotated_rank0.json") +
                "' both hold rank 0");
}

TEST(MeasuredTraces, OtherWorldSizeOrJobIsRefused) {
  EXPECT_EQ(error_of([] { measured({"errors/kineto_world_4.json"}); }),
            trace("errors/kineto_world_4.json") + ": world size 4 but the predicted job (1M2P1D, '" +
                trace("predicted_1m2p1d.json") + "') has 2 ranks");
  EXPECT_EQ(error_of([] { measured({"errors/runner_other_job.json"}); }),
            trace("errors/runner_other_job.json") + ": the measured job is 2M2P1D but the predicted trace '" +
                trace("predicted_1m2p1d.json") + "' is 1M2P1D");
}

TEST(MeasuredTraces, BadFilesAreNamed) {
  EXPECT_EQ(error_of([] { measured({"errors/not_json.json"}); }),
            trace("errors/not_json.json") +
                ": invalid JSON: parse error at line 3, column 1: syntax error while parsing object key - unexpected "
                "end of input; expected string literal");
  EXPECT_EQ(error_of([] { measured({"errors/no_trace_events.json"}); }),
            trace("errors/no_trace_events.json") + ": no 'traceEvents' list; a trace is a JSON object whose "
                                                   "'traceEvents' lists Chrome trace events, or the list alone");
  EXPECT_EQ(error_of([] { measured({"errors/kineto_no_kernels.json"}); }),
            trace("errors/kineto_no_kernels.json") +
                ": no GPU kernels (cat 'kernel'), no gloo collectives and no ranges that mark passes, so nothing to "
                "compare; a measured trace is a PyTorch profiler trace or a distsim runner trace");
}

TEST(MeasuredTraces, BadEventsAreNamed) {
  EXPECT_EQ(error_of([] { measured({"errors/runner_no_dur.json"}); }),
            trace("errors/runner_no_dur.json") +
                ": traceEvents[3] ('send activation'): no numeric 'dur'; a complete (\"X\") event needs ts and dur in "
                "microseconds");
  // pp_send is the category of stream kinds 2 (pp_send_next) and 4 (pp_send_prev) in
  // events::kStreamKindTable, so thread 0 cannot say which direction it is.
  EXPECT_EQ(error_of([] { measured({"errors/runner_merged_category_wrong_thread.json"}); }),
            trace("errors/runner_merged_category_wrong_thread.json") +
                ": traceEvents[3] ('send activation'): category 'pp_send' on thread 0; distsim writes it on threads "
                "2 and 4 (stream kinds)");
  EXPECT_EQ(error_of([] { measured({"errors/runner_bad_category.json"}); }),
            trace("errors/runner_bad_category.json") +
                ": traceEvents[2] ('fc'): unknown category 'pp_sned_next'; did you mean 'pp_send_next'? (known: comp, "
                "compute, tp_comm, pp_send, pp_send_next, pp_recv, pp_recv_prev, pp_send_prev, pp_recv_next, "
                "dp_comm, cp_comm, ep_comm, dp_reduce, dp_replica, etp_comm, cuda_runtime, host)");
  EXPECT_EQ(error_of([] { measured({"errors/kineto_bad_phase.json"}); }),
            trace("errors/kineto_bad_phase.json") +
                ": traceEvents[0] ('distsim:fw:mb=0'): unknown phase 'fw'; did you mean 'fwd'? (known: fwd, bwd, "
                "recompute, optim, wgrad)");
  EXPECT_EQ(error_of([] { measured({"errors/kineto_bad_microbatch.json"}); }),
            trace("errors/kineto_bad_microbatch.json") +
                ": traceEvents[0] ('distsim:fwd:mb=x'): expected an annotation named distsim:<phase>:mb=<micro-batch>, "
                "as in distsim:fwd:mb=3");
}

TEST(MeasuredTraces, MalformedValuesAreNamed) {
  const auto path = scratch_file("bad.json", "");
  // A negative duration.
  EXPECT_EQ(measured_error(R"({"traceEvents":[{"ph":"X","cat":"kernel","name":"k","ts":1,"dur":-2}]})"),
            path + ": traceEvents[0] ('k'): negative dur -2");
  // An entry that is not an object.
  EXPECT_EQ(measured_error(R"({"traceEvents":[3]})"), path + ": traceEvents[0] is not an object");
  // A string where the rank belongs.
  EXPECT_EQ(measured_error(R"({"traceEvents":[],"distributedInfo":{"rank":"0","world_size":2}})"),
            path + ": distributedInfo: no integer 'rank'");
  // A runner trace without its iteration bounds.
  EXPECT_EQ(measured_error(R"({"traceEvents":[],"distsim_runner":{"rank":0,"tp":1,"pp":2,"dp":1,"world_size":2}})"),
            path + ": distsim_runner: no number 'iteration_start_us' (microseconds)");
  // A runner activity without its phase.
  EXPECT_EQ(measured_error(R"({"traceEvents":[{"ph":"X","cat":"compute","name":"c","ts":0,"dur":1,"tid":0}],)"
                           R"("distsim_runner":{"rank":0,"tp":1,"pp":2,"dp":1,"world_size":2,)"
                           R"("iteration_start_us":0,"iteration_end_us":5}})"),
            path + ": traceEvents[0] ('c'): no args.phase (one of fwd, bwd, recompute, optim, wgrad)");
  // A number where a string belongs, named with its event and key.
  EXPECT_EQ(measured_error(R"({"traceEvents":[{"ph":7}]})"), path + ": traceEvents[0]: 'ph' is 7; expected a string");
}

}  // namespace

namespace {

// The fixtures are hand-built Nsight Systems exports (tests/fixtures/traces/nsys/*.sql, each
// describing what it holds); the predicted side is the 1M2P1D trace of the other trace tests,
// two ranks.
std::string nsys(const std::string& name) { return fixture("traces/nsys/" + name + ".sqlite"); }

compare::Timeline exports(const std::vector<std::string>& names) {
  std::vector<std::string> paths;
  for (const auto& name : names) paths.push_back(nsys(name));
  return read_measured_traces(paths, predicted());
}

constexpr SimTime kEpoch = 1'000'000'000;  // two_gpus' and rank_a's session start

}  // namespace

// two_gpus.sql: one export, two GPUs, so ranks 0 and 1 by device id. Each pass is the span of the
// computation kernels its range launched: fwd mb0 launched gemms at [5000, 9000) and
// [9000, 15000), so it spans [5000, 15000); the NCCL kernel it launched [14000, 17000) is a
// collective labelled fwd mb0; fwd mb1 [15000, 25000) and bwd mb0 [30000, 40000) one gemm each.
// The gemm launched outside every range is left out, the NCCL kernel launched there is unlabelled.
// Device 1's correlation id 1 is its own process's launch inside its fwd mb0 (named by textId).
TEST(NsysTrace, RangesArePassesPlacedOnTheGpuThroughTheirLaunches) {
  const auto timeline = exports({"two_gpus"});
  EXPECT_EQ(timeline.format, "Nsight Systems export");
  EXPECT_TRUE(timeline.pass_labels);
  ASSERT_EQ(timeline.ranks.size(), 2U);
  EXPECT_EQ(timeline.begin, kEpoch + 5000);
  EXPECT_EQ(timeline.end, kEpoch + 43000);
  const auto& rank0 = timeline.ranks[0].activities;
  ASSERT_EQ(rank0.size(), 5U);
  const auto expect = [](const compare::Activity& a, ActivityKind kind, std::optional<Phase> phase, int microbatch,
                         SimTime start, SimTime end) {
    EXPECT_EQ(a.kind, kind);
    EXPECT_EQ(a.phase, phase);
    EXPECT_EQ(a.microbatch, microbatch);
    EXPECT_EQ(a.start, kEpoch + start);
    EXPECT_EQ(a.end, kEpoch + end);
  };
  expect(rank0[0], ActivityKind::compute, Phase::forward, 0, 5000, 15000);
  expect(rank0[1], ActivityKind::collective, Phase::forward, 0, 14000, 17000);
  expect(rank0[2], ActivityKind::compute, Phase::forward, 1, 15000, 25000);
  expect(rank0[3], ActivityKind::compute, Phase::backward, 0, 30000, 40000);
  expect(rank0[4], ActivityKind::collective, std::nullopt, -1, 42000, 43000);
  ASSERT_EQ(timeline.ranks[1].activities.size(), 1U);
  expect(timeline.ranks[1].activities[0], ActivityKind::compute, Phase::forward, 0, 20000, 26000);
}

// rank_a.sql and rank_b.sql: one GPU each (both device 0 of their node), ranks by file order; the
// second session started 500 ns later, so its gemm at [2000, 3000) of its clock is at
// [2500, 3500) of the first's.
TEST(NsysTrace, FilesOfOneGpuEachAreRanksInFileOrderOnOneClock) {
  const auto timeline = exports({"rank_a", "rank_b"});
  ASSERT_EQ(timeline.ranks.size(), 2U);
  EXPECT_EQ(timeline.ranks[0].file, nsys("rank_a"));
  EXPECT_EQ(timeline.ranks[1].activities.at(0).phase, Phase::backward);
  EXPECT_EQ(timeline.ranks[1].activities.at(0).start, kEpoch + 2500);
  EXPECT_EQ(timeline.iteration(), 1500);  // [2000, 3500) after the first start
}

// no_runtime.sql: without the launches the ranges cannot be placed on the GPU; every kernel is an
// unlabelled activity, and the comparison says it has no passes.
TEST(NsysTrace, WithoutTheRuntimeTableKernelsAreUnlabelled) {
  const auto timeline = exports({"no_runtime"});
  EXPECT_FALSE(timeline.pass_labels);
  ASSERT_EQ(timeline.ranks[0].activities.size(), 2U);
  EXPECT_EQ(timeline.ranks[0].activities[1].kind, ActivityKind::collective);
  EXPECT_FALSE(timeline.ranks[0].activities[0].phase.has_value());
  EXPECT_EQ(timeline.begin, 5000);  // no session start: the export's own clock
}

TEST(NsysTrace, BadExportsAreNamed) {
  EXPECT_EQ(error_of([] { exports({"no_kernel_table"}); }),
            nsys("no_kernel_table") +
                ": an Nsight Systems export without the CUPTI_ACTIVITY_KIND_KERNEL table; export a profile that "
                "traced CUDA (nsys profile --trace cuda) with nsys export --type sqlite");
  EXPECT_EQ(error_of([] { exports({"kernel_ends_first"}); }),
            nsys("kernel_ends_first") + ": CUPTI_ACTIVITY_KIND_KERNEL: kernel 'sm90_xmma_gemm_bf16bf16_bf16f32' ends "
                                        "(4000 ns) before it starts (5000 ns)");
  EXPECT_EQ(error_of([] { exports({"bad_label"}); }),
            nsys("bad_label") +
                ": NVTX range 'distsim:fwdd:mb=0': unknown phase 'fwdd'; did you mean 'fwd'? (known: fwd, bwd, "
                "recompute, optim, wgrad)");
}

// A file with SQLite's header string and nothing after it is an export SQLite cannot read.
TEST(NsysTrace, ATruncatedExportIsNamed) {
  const auto path = std::filesystem::temp_directory_path() / "distsim_truncated_export.sqlite";
  std::ofstream(path, std::ios::binary) << std::string("SQLite format 3\0", 16) << "not the rest of a database";
  const std::string error = error_of([&] { read_measured_traces({path.string()}, predicted()); });
  EXPECT_EQ(error.rfind("Nsight Systems export '" + path.string() + "' is ", 0), 0U) << error;
}

}  // namespace distsim::io
