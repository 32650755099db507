// Sweeps the analytical model's memory-bandwidth fraction over the rows of the built-in calibration
// set it was fitted on, the A100 and V100 runs (docs/cost_models.md §8): for each scale of every GPU's achieved bandwidth, the MAPE overall
// and per source, and a leave-one-source-out check that picks the scale on the other sources and
// reports the error on the one left out. A scale of 1 is the model as built.
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "io/calibration/calibration_reader.hpp"
#include "validation/validation_report.hpp"

namespace {

using distsim::validation::CalibrationRun;
using distsim::validation::ValidationReport;

struct SweepPoint {
  double scale = 1;
  ValidationReport report;
};

std::vector<CalibrationRun> scaled(std::vector<CalibrationRun> runs, double scale) {
  for (auto& run : runs) {
    if (run.job) {
      run.job->cluster.gpu.memory_efficiency *= scale;
    }
  }
  return runs;
}

//! The A100 and V100 runs: the fraction is a property of the kernels those GPUs ran, fitted there.
std::vector<CalibrationRun> fitted_rows(const std::vector<CalibrationRun>& runs) {
  std::vector<CalibrationRun> fitted;
  for (const auto& run : runs) {
    const std::string gpu = run.job ? run.job->cluster.gpu.name : "";
    if (gpu.rfind("a100", 0) == 0 || gpu.rfind("v100", 0) == 0) fitted.push_back(run);
  }
  return fitted;
}

double mape_of(const ValidationReport& report, const std::string& source, bool exclude) {
  double sum = 0;
  int rows = 0;
  for (const auto& error : report.errors) {
    if ((report.runs[error.run].source == source) != exclude) {
      sum += std::fabs(error.error_pct);
      ++rows;
    }
  }
  return rows > 0 ? sum / rows : 0;
}

}  // namespace

int main() {
  const auto runs =
      fitted_rows(distsim::io::read_calibration_runs(distsim::io::builtin_calibration_csv(), "built-in"));
  std::vector<SweepPoint> sweep;
  for (int step = 0; step <= 12; ++step) {
    const double scale = 0.85 + 0.025 * step;
    sweep.push_back({scale, distsim::validation::validate(scaled(runs, scale), 2)});
  }
  std::printf("%-7s %8s %8s", "scale", "MAPE %", "max %");
  for (const auto& stats : sweep.front().report.by_source) {
    std::printf("  %.12s", stats.source.c_str());
  }
  std::printf("\n");
  for (const auto& point : sweep) {
    std::printf("%-7.3f %8.2f %8.2f", point.scale, point.report.overall.mape_pct, point.report.overall.max_abs_pct);
    for (const auto& stats : point.report.by_source) {
      std::printf("  %12.2f", stats.mape_pct);
    }
    std::printf("\n");
  }
  std::printf("\nleave one source out: the scale that fits the other sources best, and the held-out error\n");
  for (const auto& stats : sweep.front().report.by_source) {
    const SweepPoint* best = &sweep.front();
    for (const auto& point : sweep) {
      if (mape_of(point.report, stats.source, true) < mape_of(best->report, stats.source, true)) {
        best = &point;
      }
    }
    std::printf("  %-40.40s scale %.3f  held-out MAPE %.2f %%\n", stats.source.c_str(), best->scale,
                mape_of(best->report, stats.source, false));
  }
}
