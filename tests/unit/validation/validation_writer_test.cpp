#include "io/output/validation_writer.hpp"

#include <gtest/gtest.h>

namespace distsim::io {

namespace {

using validation::CalibrationRun;
using validation::ValidationReport;

CalibrationRun run(const std::string& id, const std::string& source, const std::string& label, double measured_s) {
  CalibrationRun run;
  run.id = id;
  run.source = source;
  run.label = label;
  run.measured_iteration_s = measured_s;
  return run;
}

// Written by hand, no simulation: R1 predicted 2.5 s against 2.0 measured is +25 %, R2 0.9 s
// against 1.0 is −10 %; R3 could not be simulated. Overall MAPE (25 + 10) / 2 = 17.5, max 25.
// R2's recomputation was assumed, so the rows read without assumptions are R1 alone: 25, max 25.
ValidationReport two_sources() {
  ValidationReport report;
  report.runs = {run("R1", "S1", "GPT, 8 x A100", 2.0), run("R2", "S2", "GPT, 16 x A100", 1.0),
                 run("R3", "S1", "Llama, 8 x H100", 3.0)};
  report.runs[1].assumptions = {"recompute=full (not stated)"};
  report.runs[2].line = 4;
  report.runs[2].excluded_because = "context parallelism (cp 2) is not modelled yet";
  report.errors = {{0, 2.5, 25.0}, {1, 0.9, -10.0}};
  report.excluded = {2};
  report.by_source = {{"S1", 1, 25.0, 25.0}, {"S2", 1, 10.0, 10.0}};
  report.overall = {"", 2, 17.5, 25.0};
  report.without_assumptions = {"", 1, 25.0, 25.0};
  return report;
}

std::string last_line(const std::string& text) {
  const std::string body = text.substr(0, text.size() - 1);  // without the final newline
  return body.substr(body.rfind('\n') + 1);
}

}  // namespace

TEST(ValidationText, SummarisesEachSourceTheExcludedRowsAndEndsWithTheOverallLine) {
  EXPECT_EQ(validation_text(two_sources(), "runs.csv", false),
            "validation against 3 published runs in runs.csv\n"
            "\n"
            "S1\n"
            "  MAPE 25.0% over 1 rows (max 25.0%)\n"
            "\n"
            "S2\n"
            "  MAPE 10.0% over 1 rows (max 10.0%)\n"
            "\n"
            "not simulated (1 rows, not in the mean):\n"
            "  R3 (line 4) Llama, 8 x H100: context parallelism (cp 2) is not modelled yet\n"
            "\n"
            "rows read without assumptions: MAPE 25.0% over 1 rows (max 25.0%)\n"
            "MAPE 17.5% over 2 rows (max 25.0%)\n");
}

TEST(ValidationText, PerRowNamesWhatWasAssumedUnderTheRow) {
  const std::string text = validation_text(two_sources(), "runs.csv", true);
  const std::size_t r2 = text.find("  R2 ");
  const std::size_t next_line = text.find('\n', r2) + 1;
  EXPECT_EQ(text.substr(next_line, text.find('\n', next_line) - next_line),
            "         assumed: recompute=full (not stated)");
  EXPECT_EQ(text.find("assumed:", text.find("  R1 ")), next_line + 9);  // R1 has none of its own
}

// Columns: measured and predicted right-aligned in 11 characters with 3 decimals, the signed
// error in 8 with 1 decimal, then '%'.
TEST(ValidationText, PerRowListsMeasuredPredictedAndSignedErrorUnderTheirSource) {
  const std::string text = validation_text(two_sources(), "runs.csv", true);
  const std::string r1 = text.substr(text.find("  R1 "), text.find('\n', text.find("  R1 ")) - text.find("  R1 "));
  EXPECT_NE(r1.find("GPT, 8 x A100"), std::string::npos) << r1;
  EXPECT_EQ(r1.substr(r1.size() - 27), "2.000       2.500    +25.0%") << r1;
  const std::string r2 = text.substr(text.find("  R2 "), text.find('\n', text.find("  R2 ")) - text.find("  R2 "));
  EXPECT_EQ(r2.substr(r2.size() - 27), "1.000       0.900    -10.0%") << r2;
  EXPECT_LT(text.find("  R1 "), text.find("S2\n"));  // R1 is listed under S1
  EXPECT_EQ(last_line(text), "MAPE 17.5% over 2 rows (max 25.0%)");
}

TEST(ValidationJson, CarriesRowsExclusionsSourcesAndTheOverallFigure) {
  const auto json = validation_json(two_sources(), "runs.csv");
  EXPECT_EQ(json["file"], "runs.csv");
  ASSERT_EQ(json["rows"].size(), 2U);
  EXPECT_EQ(json["rows"][0]["id"], "R1");
  EXPECT_EQ(json["rows"][0]["source"], "S1");
  EXPECT_DOUBLE_EQ(json["rows"][0]["measured_iteration_s"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(json["rows"][0]["predicted_iteration_s"].get<double>(), 2.5);
  EXPECT_DOUBLE_EQ(json["rows"][1]["error_pct"].get<double>(), -10.0);
  ASSERT_EQ(json["excluded"].size(), 1U);
  EXPECT_EQ(json["excluded"][0]["id"], "R3");
  EXPECT_EQ(json["excluded"][0]["line"], 4);
  EXPECT_EQ(json["excluded"][0]["reason"], "context parallelism (cp 2) is not modelled yet");
  ASSERT_EQ(json["by_source"].size(), 2U);
  EXPECT_EQ(json["by_source"][1]["source"], "S2");
  EXPECT_EQ(json["overall"]["rows"], 2);
  EXPECT_DOUBLE_EQ(json["overall"]["mape_pct"].get<double>(), 17.5);
  EXPECT_DOUBLE_EQ(json["overall"]["max_abs_pct"].get<double>(), 25.0);
  EXPECT_FALSE(json["overall"].contains("source"));
  EXPECT_EQ(json["rows"][0]["assumed"], nlohmann::json::array());
  EXPECT_EQ(json["rows"][1]["assumed"], nlohmann::json::array({"recompute=full (not stated)"}));
  EXPECT_EQ(json["overall_without_assumptions"]["rows"], 1);
  EXPECT_DOUBLE_EQ(json["overall_without_assumptions"]["mape_pct"].get<double>(), 25.0);
}

}  // namespace distsim::io
