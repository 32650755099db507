#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "io/trace/trace_reader.hpp"
#include "io_test_support.hpp"

namespace distsim::io {

namespace {

using compare::ActivityKind;
using events::Phase;

// The fixtures are hand-built Nsight Systems exports (tests/fixtures/traces/nsys/*.sql, each
// describing what it holds); the predicted side is the 1M2P1D trace of the other trace tests,
// two ranks.
std::string nsys(const std::string& name) { return fixture("traces/nsys/" + name + ".sqlite"); }

compare::Timeline predicted() { return read_predicted_trace(fixture("traces/predicted_1m2p1d.json")); }

compare::Timeline measured(const std::vector<std::string>& names) {
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
  const auto timeline = measured({"two_gpus"});
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
  const auto timeline = measured({"rank_a", "rank_b"});
  ASSERT_EQ(timeline.ranks.size(), 2U);
  EXPECT_EQ(timeline.ranks[0].file, nsys("rank_a"));
  EXPECT_EQ(timeline.ranks[1].activities.at(0).phase, Phase::backward);
  EXPECT_EQ(timeline.ranks[1].activities.at(0).start, kEpoch + 2500);
  EXPECT_EQ(timeline.iteration(), 1500);  // [2000, 3500) after the first start
}

// no_runtime.sql: without the launches the ranges cannot be placed on the GPU; every kernel is an
// unlabelled activity, and the comparison says it has no passes.
TEST(NsysTrace, WithoutTheRuntimeTableKernelsAreUnlabelled) {
  const auto timeline = measured({"no_runtime"});
  EXPECT_FALSE(timeline.pass_labels);
  ASSERT_EQ(timeline.ranks[0].activities.size(), 2U);
  EXPECT_EQ(timeline.ranks[0].activities[1].kind, ActivityKind::collective);
  EXPECT_FALSE(timeline.ranks[0].activities[0].phase.has_value());
  EXPECT_EQ(timeline.begin, 5000);  // no session start: the export's own clock
}

TEST(NsysTrace, BadExportsAreNamed) {
  EXPECT_EQ(error_of([] { measured({"no_kernel_table"}); }),
            nsys("no_kernel_table") +
                ": an Nsight Systems export without the CUPTI_ACTIVITY_KIND_KERNEL table; export a profile that "
                "traced CUDA (nsys profile --trace cuda) with nsys export --type sqlite");
  EXPECT_EQ(error_of([] { measured({"kernel_ends_first"}); }),
            nsys("kernel_ends_first") + ": CUPTI_ACTIVITY_KIND_KERNEL: kernel 'sm90_xmma_gemm_bf16bf16_bf16f32' ends "
                                        "(4000 ns) before it starts (5000 ns)");
  EXPECT_EQ(error_of([] { measured({"bad_label"}); }),
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
