#include "io/report/html_report.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <sstream>
#include <string>

#include "io/report/report_html.hpp"
#include "io/report/report_timeline.hpp"
#include "tiny_simulation.hpp"

namespace distsim::io {

namespace {

using testing::fixed_costs;
using testing::two_stage_job;

std::string simulation_report(const api::Simulation& simulation) {
  std::ostringstream out;
  write_simulation_report(out, simulation);
  return out.str();
}

std::string search_report(const SearchReport& report) {
  std::ostringstream out;
  write_search_report(out, report);
  return out.str();
}

size_t count(const std::string& text, const std::string& needle) {
  size_t found = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size())) {
    ++found;
  }
  return found;
}

void expect_self_contained(const std::string& html) {
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0U);
  EXPECT_EQ(count(html, "http://"), 0U);
  EXPECT_EQ(count(html, "https://"), 0U);
  EXPECT_EQ(count(html, "<link"), 0U);
  EXPECT_EQ(count(html, "src="), 0U);
  EXPECT_EQ(count(html, "@import"), 0U);
  EXPECT_EQ(count(html, "url("), count(html, "url(#"));  // only references to patterns in the page
  EXPECT_EQ(count(html, "<script"), 1U);
}

TEST(SimulationReport, IsOneSelfContainedPage) {
  const std::string html = simulation_report(api::simulate(two_stage_job(), fixed_costs()));
  expect_self_contained(html);
  EXPECT_EQ(count(html, "<svg id=\"timeline\""), 1U);
  EXPECT_NE(html.find("<title>distsim report: tiny · 1M2P1D · gpipe on 1 × 2 test-gpu</title>"), std::string::npos);
  for (const char* section : {"id=\"summary\"", "id=\"devices\"", "id=\"memory\"", "id=\"timeline-section\""}) {
    EXPECT_NE(html.find(section), std::string::npos) << section;
  }
}

// Without a goodput setting there is no goodput section; with one, the wall time's shares stack on
// a 480-pixel bar: 0.8, 0.1, 0.06 and 0.04 are 384, 48, 28.8 and 19.2 pixels, each starting where
// the one before ends, and each assumption is listed.
TEST(SimulationReport, GoodputSectionStacksTheWallTimesShares) {
  api::Simulation simulation = api::simulate(two_stage_job(), fixed_costs());
  EXPECT_EQ(simulation_report(simulation).find("id=\"goodput\""), std::string::npos);
  goodput::GoodputEstimate estimate;
  estimate.shares = {0.8, 0.1, 0.06, 0.04};
  estimate.mtbf_s = 7'200;
  estimate.interval_iterations = 1'500;
  estimate.assumptions = {"a restart takes 10 min"};
  simulation.goodput = estimate;
  const std::string html = simulation_report(simulation);
  EXPECT_NE(html.find("<section id=\"goodput\">"), std::string::npos);
  EXPECT_NE(html.find("<rect class=\"g-t\" x=\"0.00\" width=\"384.00\""), std::string::npos);
  EXPECT_NE(html.find("<rect class=\"g-c\" x=\"384.00\" width=\"48.00\""), std::string::npos);
  EXPECT_NE(html.find("<rect class=\"g-r\" x=\"432.00\" width=\"28.80\""), std::string::npos);
  EXPECT_NE(html.find("<rect class=\"g-s\" x=\"460.80\" width=\"19.20\""), std::string::npos);
  EXPECT_NE(html.find("<div class=\"value\">80.0<span class=\"unit\">%</span>"), std::string::npos);
  EXPECT_NE(html.find("<div class=\"value\">2<span class=\"unit\">h</span>"), std::string::npos);
  EXPECT_NE(html.find("<li>assumed: a restart takes 10 min</li>"), std::string::npos);
}

// Without failures the cards say none are expected and that nothing is saved, instead of an
// unbounded time between failures and a checkpoint every 0 iterations.
TEST(SimulationReport, GoodputCardsWithoutFailures) {
  api::Simulation simulation = api::simulate(two_stage_job(), fixed_costs());
  goodput::GoodputEstimate estimate;
  estimate.shares = {1.0, 0.0, 0.0, 0.0};
  estimate.mtbf_s = std::numeric_limits<double>::infinity();
  simulation.goodput = estimate;
  const std::string html = simulation_report(simulation);
  EXPECT_NE(html.find("<div class=\"name\">failures</div><div class=\"value\">none expected"), std::string::npos);
  EXPECT_NE(html.find("<div class=\"name\">checkpoint</div><div class=\"value\">none"), std::string::npos);
  EXPECT_EQ(html.find(">inf<"), std::string::npos);
}

// Four samples of 10.5, 11.5, 12.5 and 20 ms over ten 1-ms bins from the noiseless 10 ms to the
// longest sample: bins 0, 1 and 2 hold one each and the last (19 to 20 ms) the longest; the tallest
// bin is 120 pixels, each of these as tall, 48 pixels apart; the noiseless line at x = 0.
TEST(SimulationReport, JitterHistogramBinsTheSamples) {
  api::Simulation simulation = api::simulate(two_stage_job(), fixed_costs());
  EXPECT_EQ(simulation_report(simulation).find("id=\"jitter\""), std::string::npos);
  api::StepTimeDistribution d;
  d.jitter = {strategy::JitterDistribution::uniform, 0.5};
  d.samples = 4;
  d.noiseless_s = 0.010;
  d.times_s = {0.0105, 0.0115, 0.0125, 0.020};
  d.mean_s = 0.013625;
  d.max_s = 0.020;
  simulation.jitter = d;
  const std::string html = simulation_report(simulation);
  EXPECT_NE(html.find("<section id=\"jitter\">"), std::string::npos);
  EXPECT_EQ(count(html, "<rect class=\"bar\" x=\""), 10U);
  EXPECT_NE(html.find("<rect class=\"bar\" x=\"1.00\" y=\"0.00\" width=\"46.00\" height=\"120.00\"><title>10.000 to "
                      "11.000 ms: 1 of 4</title>"),
            std::string::npos);
  EXPECT_NE(html.find("<rect class=\"bar\" x=\"433.00\" y=\"0.00\" width=\"46.00\" height=\"120.00\"><title>19.000 to "
                      "20.000 ms: 1 of 4</title>"),
            std::string::npos);
  EXPECT_NE(html.find("<rect class=\"bar\" x=\"145.00\" y=\"120.00\" width=\"46.00\" height=\"0.00\">"),
            std::string::npos);
  EXPECT_NE(html.find("<line class=\"limit\" x1=\"0.00\""), std::string::npos);
}

// The timeline of tiny_simulation.hpp (ns), on a 1040-pixel axis over 19000 ns, so activities
// merge when less than 19000 / 1040 ≈ 18.3 ns apart; zero-length tasks are not drawn:
//   stage 0 compute: F0 [0,3500) and F1 [3500,7000) touch → 1 forward block; B0 [12500,15500) and
//                    B1 [16000,19000) are 500 ns apart → 2 backward blocks.
//   stage 1 compute: F0 [4000,5500), F1 [7500,9000) → 2 forward; B0 [9000,12000) and B1 [12000,15000)
//                    touch → 1 backward.
//   transfers: 4, each drawn on the sender's send row and the receiver's recv row, ≥ 3000 ns apart
//              on any one row → 8 pipeline p2p blocks.
//   the tied-embedding all-reduce (DP) and the optimizer cost 0 → nothing.
TEST(SimulationReport, DrawsOneRectanglePerMergedActivity) {
  const std::string html = simulation_report(api::simulate(two_stage_job(), fixed_costs()));
  EXPECT_EQ(count(html, "<rect class=\"fwd\""), 3U);
  EXPECT_EQ(count(html, "<rect class=\"bwd\""), 3U);
  EXPECT_EQ(count(html, "<rect class=\"pp\""), 8U);
  EXPECT_EQ(count(html, "<rect class=\"tp\""), 0U);
  EXPECT_EQ(count(html, "<rect class=\"dp\""), 0U);
  EXPECT_EQ(count(html, "<rect class=\"opt\""), 0U);
  EXPECT_EQ(count(html, "<rect class=\"rec\""), 0U);
  // One idle background per row: stage 0 uses compute, send-next, recv-next and DP; stage 1
  // compute, recv-prev, send-prev and DP (the same streams the Chrome trace names).
  EXPECT_EQ(count(html, "<rect class=\"idle\" x=\"246\""), 8U);
}

TEST(SimulationReport, TitlesAMergedBlockWithItsTasksMicroBatchesStartAndDuration) {
  const std::string html = simulation_report(api::simulate(two_stage_job(), fixed_costs()));
  // Stage 0's forward block: embedding [0,2000) and attention [2000,3500) of micro-batch 0, then
  // the same for micro-batch 1: four activities from 0 to 7000 ns.
  EXPECT_NE(html.find("<title>forward: embedding … attention (4 activities) · micro-batches 0–1 · start 0 ns · "
                      "duration 7.000 µs</title>"),
            std::string::npos);
  // Its rectangle starts at the plot's left edge (246 px) and spans 7000 / 19000 of 1040 px.
  EXPECT_NE(html.find("<rect class=\"fwd\" x=\"246.00\" width=\"383.16\""), std::string::npos);
}

TEST(SimulationReport, HasATimeAxisWithTicks) {
  const std::string html = simulation_report(api::simulate(two_stage_job(), fixed_costs()));
  // 19 µs: about ten ticks gives a step of 2 µs, so 0, 2, ..., 18.
  EXPECT_NE(html.find(">time (µs)</text>"), std::string::npos);
  EXPECT_NE(html.find("text-anchor=\"middle\">18</text>"), std::string::npos);
  EXPECT_EQ(html.find("text-anchor=\"middle\">20</text>"), std::string::npos);
}

TEST(SimulationReport, EscapesNames) {
  auto job = two_stage_job();
  job.model.name = "a<b & \"c\" 'd'";
  const std::string html = simulation_report(api::simulate(job, fixed_costs()));
  EXPECT_EQ(html.find("a<b"), std::string::npos);
  EXPECT_NE(html.find("a&lt;b &amp; &quot;c&quot; &#39;d&#39;"), std::string::npos);
}

TEST(SimulationReport, HighlightsStagesThatDoNotFit) {
  auto job = two_stage_job();
  // The framework allowance alone is 1 GiB, so a 1 GiB GPU cannot hold either stage.
  job.cluster.gpu.memory_gb = 1;
  const std::string html = simulation_report(api::simulate(job, fixed_costs()));
  EXPECT_NE(html.find("<section id=\"memory\" class=\"oom\">"), std::string::npos);
  EXPECT_NE(html.find("Out of memory:</strong> stage"), std::string::npos);
  EXPECT_EQ(count(html, "<tr class=\"oom\">"), 2U);
  const std::string fits = simulation_report(api::simulate(two_stage_job(), fixed_costs()));
  EXPECT_EQ(count(fits, "<tr class=\"fits\">"), 2U);
  EXPECT_NE(fits.find("Fits: the peak is"), std::string::npos);
}

TEST(SimulationReport, IsTheSameBytesEveryTime) {
  const auto simulation = api::simulate(two_stage_job(), fixed_costs());
  EXPECT_EQ(simulation_report(simulation), simulation_report(simulation));
}

TEST(TimelineBlocks, MergeNeighboursOfOneCategoryCloserThanTheGap) {
  std::vector<TimelineBlock> blocks;
  const double gap = 20;
  add_block(blocks, {0, 100, ActivityCategory::forward, 1, 1, 1, 100, 0, 0}, gap);
  add_block(blocks, {110, 200, ActivityCategory::forward, 2, 2, 1, 90, 1, 1}, gap);     // 10 apart: merges
  add_block(blocks, {205, 300, ActivityCategory::backward, 3, 3, 1, 95, 0, 0}, gap);    // other category
  add_block(blocks, {320, 400, ActivityCategory::backward, 4, 4, 1, 80, -1, -1}, gap);  // 20 apart: not closer
  ASSERT_EQ(blocks.size(), 3U);
  EXPECT_EQ(blocks[0].start, 0);
  EXPECT_EQ(blocks[0].end, 200);
  EXPECT_EQ(blocks[0].tasks, 2);
  EXPECT_EQ(blocks[0].busy, 190);  // 100 + 90: the gap between them is not busy
  EXPECT_EQ(blocks[0].last_task, 2U);
  EXPECT_EQ(blocks[0].first_microbatch, 0);
  EXPECT_EQ(blocks[0].last_microbatch, 1);
  EXPECT_EQ(blocks[1].start, 205);
  EXPECT_EQ(blocks[2].start, 320);
}

TEST(TimelineBlocks, CategorizeByStreamThenPhase) {
  using events::Phase;
  using events::StreamKind;
  EXPECT_EQ(categorize(Phase::backward, StreamKind::tp_comm), ActivityCategory::tp_comm);
  EXPECT_EQ(categorize(Phase::forward, StreamKind::pp_recv_next), ActivityCategory::pipeline_p2p);
  EXPECT_EQ(categorize(Phase::backward, StreamKind::dp_comm), ActivityCategory::dp_comm);
  EXPECT_EQ(categorize(Phase::recompute, StreamKind::compute), ActivityCategory::recompute);
  EXPECT_EQ(categorize(Phase::optimizer, StreamKind::compute), ActivityCategory::optimizer);
}

TEST(ReportHtml, FormatsDurationsAndTicks) {
  EXPECT_EQ(format_duration(999), "999 ns");
  EXPECT_EQ(format_duration(1500), "1.500 µs");
  EXPECT_EQ(format_duration(12'345'678), "12.346 ms");
  EXPECT_EQ(format_duration(2'000'000'000), "2.000 s");
  // 19 over 10 ticks: raw step 1.9 rounds to 2.
  EXPECT_EQ(nice_ticks(19, 10), (std::vector<double>{0, 2, 4, 6, 8, 10, 12, 14, 16, 18}));
  // 0.7 over 5: raw 0.14 rounds to 0.1.
  EXPECT_EQ(nice_ticks(0.7, 5).size(), 8U);
  EXPECT_EQ(format_tick(0.30000000000000004, 0.1), "0.3");
  EXPECT_EQ(format_tick(250, 50), "250");
}

SearchReport sample_search() {
  SearchReport report;
  report.title = "search <test>";
  report.description = "tiny & fast";
  report.memory_capacity_bytes = 24.0 * (1 << 30);
  report.table_rows = 3;
  report.rows = {
      {"2M8P1D mbs 1 1f1b", "ok", "", 0.34, 47.0, 0.41, 0.2, 10.0 * (1 << 30), true},
      {"1M8P2D mbs 1 1f1b", "ok", "", 0.35, 46.0, 0.40, 0.2, 12.0 * (1 << 30), false},
      {"1M4P4D mbs 1 gpipe", "ok", "", 0.5, 32.0, 0.30, 0.3, 20.0 * (1 << 30), false},
      {"1M1P16D mbs 1 1f1b", "out of memory", "needs 30 GiB", 0, 0, 0, 0, 30.0 * (1 << 30), false},
      {"3M1P1D mbs 1 1f1b", "invalid", "heads 16 not divisible by \"3\"", 0, 0, 0, 0, 0, false},
  };
  report.rows[2].pareto = false;
  return report;
}

TEST(SearchReport, DrawsEveryCandidateAsABarOrAMarkedStub) {
  const std::string html = search_report(sample_search());
  expect_self_contained(html);
  EXPECT_EQ(count(html, "<svg id=\"throughput-chart\""), 1U);
  EXPECT_EQ(count(html, "<rect class=\"bar\""), 3U);
  EXPECT_EQ(count(html, "<rect class=\"bar-oom\""), 1U);
  EXPECT_EQ(count(html, "<rect class=\"bar-invalid\""), 1U);
  EXPECT_NE(html.find(">OOM</text>"), std::string::npos);
  EXPECT_NE(html.find(">invalid</text>"), std::string::npos);
}

TEST(SearchReport, ListsTheFirstRowsInATable) {
  const std::string html = search_report(sample_search());
  EXPECT_NE(html.find("First 3 of 5 rows"), std::string::npos);
  EXPECT_EQ(count(html, "<tr class=\"ok\">"), 3U);
  EXPECT_EQ(count(html, "<tr class=\"oom\">"), 0U);
}

TEST(SearchReport, PlotsTheParetoFront) {
  auto report = sample_search();
  report.rows[2].pareto = true;  // 20 GiB, 0.5 s: a second point on the front
  const std::string html = search_report(report);
  EXPECT_EQ(count(html, "<svg id=\"pareto-chart\""), 1U);
  EXPECT_EQ(count(html, "<circle class=\"dot front\""), 2U);
  EXPECT_EQ(count(html, "<circle class=\"dot\""), 1U);
  EXPECT_EQ(count(html, "<polyline class=\"front-line\""), 1U);
  EXPECT_NE(html.find("GPU memory 24.00 GiB"), std::string::npos);
  // Best 47 samples/s over worst 32.
  EXPECT_NE(html.find("1.47×"), std::string::npos);
  EXPECT_NE(html.find("(no other candidate is both faster and smaller)</span>"), std::string::npos);
}

TEST(SearchReport, SaysHowFarTheFrontReaches) {
  auto report = sample_search();
  report.front_reach = "at most 2× the best time";
  const std::string html = search_report(report);
  EXPECT_NE(html.find("(no other candidate is both faster and smaller; at most 2× the best time)</span>"),
            std::string::npos);
}

// With tokens to train, the table gives each simulated row its expected days: 1.25 days printed
// with two decimals, and a dash for the rows that were not simulated.
TEST(SearchReport, ListsTheExpectedDaysWhenTokensAreGiven) {
  auto report = sample_search();
  EXPECT_EQ(count(search_report(report), "expected days"), 0U);
  report.show_expected_days = true;
  report.rows[0].expected_days = 1.25;
  const std::string html = search_report(report);
  EXPECT_EQ(count(html, "<th>expected days</th>"), 1U);
  EXPECT_NE(html.find("<td>1.25</td>"), std::string::npos);
}

TEST(SearchReport, EscapesNames) {
  const std::string html = search_report(sample_search());
  EXPECT_EQ(html.find("<test>"), std::string::npos);
  EXPECT_NE(html.find("search &lt;test&gt;"), std::string::npos);
  EXPECT_NE(html.find("tiny &amp; fast"), std::string::npos);
  EXPECT_NE(html.find("by &quot;3&quot;"), std::string::npos);
}

}  // namespace

}  // namespace distsim::io
