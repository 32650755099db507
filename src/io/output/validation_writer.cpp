#include "io/output/validation_writer.hpp"

#include <iterator>

#include <fmt/format.h>

namespace distsim::io {

namespace {

std::string stats_line(const validation::ErrorStats& stats) {
  return fmt::format("MAPE {:.1f}% over {} rows (max {:.1f}%)", stats.mape_pct, stats.rows, stats.max_abs_pct);
}

void append_rows_of(std::string& text, const validation::ValidationReport& report, const std::string& source) {
  auto out = std::back_inserter(text);
  for (const auto& error : report.errors) {
    const auto& run = report.runs[error.run];
    if (run.source != source) continue;
    fmt::format_to(out, "  {:<6} {:<44} {:>11.3f} {:>11.3f} {:>+8.1f}%\n", run.id, run.label, run.measured_iteration_s,
                   error.predicted_iteration_s, error.error_pct);
    for (const auto& assumption : run.assumptions) {
      fmt::format_to(out, "         assumed: {}\n", assumption);
    }
  }
}

}  // namespace

std::string validation_text(const validation::ValidationReport& report, const std::string& file_name, bool per_row) {
  std::string text;
  auto out = std::back_inserter(text);
  fmt::format_to(out, "validation against {} published runs in {}\n\n", report.runs.size(), file_name);
  for (const auto& stats : report.by_source) {
    fmt::format_to(out, "{}\n  {}\n", stats.source, stats_line(stats));
    if (per_row) {
      fmt::format_to(out, "  {:<6} {:<44} {:>11} {:>11} {:>9}\n", "id", "run", "measured s", "predicted s", "error");
      append_rows_of(text, report, stats.source);
    }
    text += "\n";
  }
  if (!report.excluded.empty()) {
    fmt::format_to(out, "not simulated ({} rows, not in the mean):\n", report.excluded.size());
    for (const std::size_t index : report.excluded) {
      const auto& run = report.runs[index];
      fmt::format_to(out, "  {} (line {}) {}: {}\n", run.id, run.line, run.label, run.excluded_because);
    }
    text += "\n";
  }
  fmt::format_to(out, "rows read without assumptions: {}\n", stats_line(report.without_assumptions));
  text += stats_line(report.overall);
  text += "\n";
  return text;
}

nlohmann::json validation_json(const validation::ValidationReport& report, const std::string& file_name) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& error : report.errors) {
    const auto& run = report.runs[error.run];
    rows.push_back({{"id", run.id},
                    {"source", run.source},
                    {"run", run.label},
                    {"measured_iteration_s", run.measured_iteration_s},
                    {"predicted_iteration_s", error.predicted_iteration_s},
                    {"error_pct", error.error_pct},
                    {"assumed", run.assumptions}});
  }
  nlohmann::json excluded = nlohmann::json::array();
  for (const std::size_t index : report.excluded) {
    const auto& run = report.runs[index];
    excluded.push_back({{"id", run.id}, {"line", run.line}, {"run", run.label}, {"reason", run.excluded_because}});
  }
  auto stats_json = [](const validation::ErrorStats& stats) {
    return nlohmann::json{{"source", stats.source},
                          {"rows", stats.rows},
                          {"mape_pct", stats.mape_pct},
                          {"max_abs_pct", stats.max_abs_pct}};
  };
  nlohmann::json by_source = nlohmann::json::array();
  for (const auto& stats : report.by_source) by_source.push_back(stats_json(stats));
  nlohmann::json overall = stats_json(report.overall);
  overall.erase("source");
  nlohmann::json without_assumptions = stats_json(report.without_assumptions);
  without_assumptions.erase("source");
  return {{"file", file_name},      {"rows", rows},       {"excluded", excluded},
          {"by_source", by_source}, {"overall", overall}, {"overall_without_assumptions", without_assumptions}};
}

}  // namespace distsim::io
