#include "validation/validation_report.hpp"

#include <algorithm>
#include <cmath>
#include <mutex>

#include "api/simulation.hpp"
#include "core/input_error.hpp"
#include "core/parallel_for.hpp"

namespace distsim::validation {

namespace {

ErrorStats stats_of(const std::vector<RunError>& errors, const std::string& source,
                    const std::vector<CalibrationRun>& runs, bool only_without_assumptions = false) {
  ErrorStats stats;
  stats.source = source;
  double sum = 0;
  for (const auto& error : errors) {
    if (!source.empty() && runs[error.run].source != source) continue;
    if (only_without_assumptions && !runs[error.run].assumptions.empty()) continue;
    ++stats.rows;
    sum += std::abs(error.error_pct);
    stats.max_abs_pct = std::max(stats.max_abs_pct, std::abs(error.error_pct));
  }
  stats.mape_pct = stats.rows > 0 ? sum / static_cast<double>(stats.rows) : 0.0;
  return stats;
}

//! Simulates run `index`; returns false (and records why) when the job is rejected.
bool simulate_run(CalibrationRun& run, RunError& error) {
  try {
    const api::Simulation simulation = api::simulate(*run.job);
    error.predicted_iteration_s = time_to_seconds(simulation.summary.iteration_time);
    error.error_pct = (error.predicted_iteration_s - run.measured_iteration_s) / run.measured_iteration_s * 100.0;
    return true;
  } catch (const InputError& rejected) {
    run.excluded_because = rejected.what();
    return false;
  }
}

}  // namespace

ValidationReport validate(std::vector<CalibrationRun> runs, int threads,
                          const std::function<void(std::size_t, std::size_t)>& progress) {
  ValidationReport report;
  report.runs = std::move(runs);
  const std::size_t count = report.runs.size();
  std::vector<RunError> results(count);
  std::vector<char> simulated(count, 0);
  std::mutex progress_mutex;
  std::size_t done = 0;
  parallel_for(count, threads, [&](std::size_t i) {
    results[i].run = i;
    if (report.runs[i].job) {
      simulated[i] = simulate_run(report.runs[i], results[i]) ? 1 : 0;
    }
    if (progress) {
      const std::lock_guard lock(progress_mutex);
      progress(++done, count);
    }
  });
  for (std::size_t i = 0; i < count; ++i) {
    if (simulated[i]) {
      report.errors.push_back(results[i]);
    } else {
      report.excluded.push_back(i);
    }
  }
  for (const auto& error : report.errors) {
    const std::string& source = report.runs[error.run].source;
    const bool seen = std::any_of(report.by_source.begin(), report.by_source.end(),
                                  [&](const ErrorStats& s) { return s.source == source; });
    if (!seen) report.by_source.push_back(stats_of(report.errors, source, report.runs));
  }
  report.overall = stats_of(report.errors, "", report.runs);
  report.without_assumptions = stats_of(report.errors, "", report.runs, true);
  return report;
}

}  // namespace distsim::validation
