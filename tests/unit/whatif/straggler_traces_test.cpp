#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "io/trace/step_timeline_reader.hpp"
#include "whatif/straggler_analysis.hpp"

namespace distsim::whatif {

namespace {

// The measured traces of the OSDI'25 straggler study and the paper's own analysis of them
// (../shared/reference/stragglers/README.md), beside the checkout as CI has them. They are read in
// place, never copied into the repository.
const std::filesystem::path kStragglers =
    std::filesystem::path(DISTSIM_SOURCE_DIR) / ".." / "shared" / "reference" / "stragglers";

nlohmann::json paper_result(const std::string& trace) {
  std::ifstream in(kStragglers / ("result-" + trace + ".json"));
  return nlohmann::json::parse(in);
}

double attribution_of(const std::vector<Attribution>& attributions, const std::string& group) {
  for (const auto& attribution : attributions) {
    if (attribution.group == group) return attribution.slowdown;
  }
  ADD_FAILURE() << "no group " << group;
  return 0;
}

// distsim's replay reproduces the paper's straggler slowdown (Eq. 1) and its attribution to the
// slow stage (Eq. 2) within 2 %: ST's last stage (stage partitioning), SE's second stage
// (sequence-length imbalance).
void check_against_the_paper(const std::string& trace, const std::string& slow_stage) {
  if (!std::filesystem::exists(kStragglers / ("timeline-" + trace + ".json.gz"))) {
    GTEST_SKIP() << kStragglers << " is absent: this test replays timeline-" << trace
                 << ".json.gz and checks its straggler slowdown and the slowdown of stage " << slow_stage
                 << " against result-" << trace << ".json within 2 %";
  }
  const StragglerAnalysis analysis =
      analyze_stragglers(io::read_step_timeline((kStragglers / ("timeline-" + trace + ".json.gz")).string()));
  const nlohmann::json paper = paper_result(trace);
  const double slowdown = paper["blocking_slowdown"].get<double>();
  const double stage = paper["blocking_decompose_by_stage"][slow_stage].get<double>();
  EXPECT_NEAR(analysis.straggler_slowdown / slowdown, 1.0, 0.02) << analysis.straggler_slowdown << " vs " << slowdown;
  EXPECT_NEAR(attribution_of(analysis.by_stage, slow_stage) / stage, 1.0, 0.02);
  EXPECT_EQ(analysis.by_stage.front().group, slow_stage);
}

}  // namespace

TEST(StragglerTraces, StagePartitioningImbalanceAsThePaperFindsIt) { check_against_the_paper("ST", "3"); }

TEST(StragglerTraces, SequenceLengthImbalanceAsThePaperFindsIt) { check_against_the_paper("SE", "1"); }

}  // namespace distsim::whatif
