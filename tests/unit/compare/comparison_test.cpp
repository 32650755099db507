#include "compare/comparison.hpp"

#include <gtest/gtest.h>

#include "core/input_error.hpp"
#include "io/output/comparison_json.hpp"
#include "io/output/comparison_text.hpp"
#include "timeline_builders.hpp"

namespace distsim::compare {

namespace {

using events::Phase;

// One rank; predicted iteration 0-100 µs with fwd mb 0 at 0-10; measured 0-125 µs with fwd mb 0
// at 1-12. Batch-time error (100 − 125) / 125 = −20 %. Activity: |1 − 0| and |12 − 10| over 125
// µs: start 0.8 %, end 1.6 %, mean 1.2 %. Stage row: errors −1 µs (−0.8 %) and −2 µs (−1.6 %).
Timeline predicted_side() {
  return timeline(1, 1, 1, 0, 100, {rank_timeline(0, {}, {compute(Phase::forward, 0, 0, 10)})});
}

Timeline measured_side() {
  return timeline(1, 1, 1, 0, 125, {rank_timeline(0, {}, {compute(Phase::forward, 0, 1, 12)})});
}

TEST(Comparison, BatchTimeError) {
  const auto comparison = compare_timelines(predicted_side(), measured_side());
  EXPECT_EQ(comparison.batch.predicted, us(100));
  EXPECT_EQ(comparison.batch.measured, us(125));
  EXPECT_DOUBLE_EQ(comparison.batch.error, -0.2);
  EXPECT_DOUBLE_EQ(comparison.activity.mean_error, 0.012);
}

TEST(Comparison, MeasuredIterationWithoutLengthIsRefused) {
  auto measured = measured_side();
  measured.end = measured.begin;
  EXPECT_THROW(compare_timelines(predicted_side(), measured), InputError);
}

TEST(Comparison, TextNamesEveryMetric) {
  const auto predicted = predicted_side();
  const auto measured = measured_side();
  const auto text = comparison_text(predicted, measured, compare_timelines(predicted, measured));
  EXPECT_NE(text.find("rank mapping: by rank number"), std::string::npos) << text;
  EXPECT_NE(text.find("batch time: predicted 100.000 us, measured 125.000 us, error -20.00 %"), std::string::npos);
  EXPECT_NE(text.find("     0          0        1          0          0     0.80     1.60     1.20\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("0.000        10.000         1.000        12.000      -1.000      -2.000    -0.80    -1.60"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("activity error: 1.20 % (start 0.80 %, end 1.60 %; mean over 1 rank, passes)"),
            std::string::npos);
  EXPECT_NE(text.find("stage forward/backward error: start 0.80 %, end 1.60 % (mean |error| over 1 pass; max 1.60 %)"),
            std::string::npos);
}

TEST(Comparison, JsonHoldsEveryNumber) {
  const auto predicted = predicted_side();
  const auto measured = measured_side();
  const auto json = comparison_json(predicted, measured, compare_timelines(predicted, measured));
  EXPECT_EQ(json["batch_time"]["measured_ns"], 125000);
  EXPECT_DOUBLE_EQ(json["batch_time"]["error"].get<double>(), -0.2);
  EXPECT_EQ(json["rank_mapping"]["kind"], "by_rank");
  EXPECT_EQ(json["activity"]["granularity"], "passes");
  EXPECT_DOUBLE_EQ(json["activity"]["ranks"][0]["start_error"].get<double>(), 0.008);
  EXPECT_EQ(json["stages"]["rows"][0]["start_error_ns"], -1000);
  EXPECT_EQ(json["stages"]["rows"][0]["phase"], "fwd");
}

TEST(Comparison, JsonSaysWhyStagesAreUnavailable) {
  const auto predicted = predicted_side();
  auto measured = measured_side();
  measured.pass_labels = false;
  const auto json = comparison_json(predicted, measured, compare_timelines(predicted, measured));
  EXPECT_EQ(json["stages"]["available"], false);
  EXPECT_EQ(json["activity"]["granularity"], "busy spans");
}

}  // namespace

}  // namespace distsim::compare
