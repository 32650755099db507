#include "io/report/search_report_builder.hpp"

#include "io/spec/spec_writer.hpp"

#include <fmt/format.h>

#include "core/byte_units.hpp"
#include "io/output/search_writer.hpp"
#include "search/objective.hpp"

namespace distsim::io {

namespace {

SearchReportRow row_of(const search::Candidate& c) {
  SearchReportRow row;
  row.label = c.label();
  row.status = search::to_string(c.status);
  row.reason = c.reason();
  row.iteration_time_s = c.iteration_time_s;
  row.samples_per_s = c.samples_per_s;
  row.mfu = c.mfu;
  row.bubble_fraction = c.bubble_fraction;
  row.peak_memory_bytes = c.peak_memory_bytes;
  row.pareto = c.pareto;
  row.gpus = c.cluster().total_gpus();
  row.expected_days = c.time_to_train_s / kSecondsPerDay;
  return row;
}

//! Whether two simulated candidates gave exactly the same results (settings that change nothing
//! for this job, such as sequence parallelism where nothing is sharded by it).
bool same_results(const SearchReportRow& a, const SearchReportRow& b) {
  return a.status == b.status && a.iteration_time_s > 0 && a.iteration_time_s == b.iteration_time_s &&
         a.peak_memory_bytes == b.peak_memory_bytes && a.mfu == b.mfu && a.bubble_fraction == b.bubble_fraction &&
         a.gpus == b.gpus;
}

//! The ranked rows with each run of identical results collapsed into its first row.
std::vector<SearchReportRow> collapsed(std::vector<SearchReportRow> ranked) {
  std::vector<SearchReportRow> rows;
  for (auto& row : ranked) {
    if (!rows.empty() && same_results(rows.back(), row)) {
      if (row.pareto) rows.back().pareto = true;
      rows.back().same_as.push_back(std::move(row.label));
    } else {
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

}  // namespace

SearchReport make_search_report(const search::SearchSpace& space, const search::SearchResult& result,
                                std::size_t table_rows) {
  const auto& job = space.base;
  SearchReport report;
  report.title =
      job.cluster.mixed()
          ? fmt::format("Strategy search: {} on {}", job.model.name, hosts_text(job.cluster, " × "))
          : fmt::format("Strategy search: {} on {} × {} {}", job.model.name,
                        fmt::join(space.cluster_node_counts(), ","), job.cluster.gpus_per_host, job.cluster.gpu.name);
  report.description = fmt::format("global batch {} · {} · {} candidates: {} valid, {} invalid, {} out of memory",
                                   job.strategy.global_batch_size, job.strategy.precision_name(),
                                   result.candidates.size(), result.valid, result.invalid, result.out_of_memory);
  if (result.best_worst_ratio() > 0) {
    report.description += fmt::format(" · best/worst throughput {:.2f}×", result.best_worst_ratio());
  }
  if (result.objectives.rank != search::Objective::time) {
    report.description += fmt::format(" · ranked by {}", search::to_string(result.objectives.rank));
  }
  report.show_gpus = !space.node_counts.empty();
  report.show_expected_days = result.goal.tokens.has_value();
  if (result.objectives.front_is_limited()) {
    report.front_reach = fmt::format("at most {:g}× the best {}", result.objectives.front_within,
                                     search::to_string(result.objectives.rank));
  }
  report.settings = search_settings_text(space);
  report.memory_capacity_bytes = job.cluster.least_gpu_memory_gb() * kGiB;
  report.table_rows = table_rows;
  std::vector<SearchReportRow> ranked;
  for (const std::size_t index : result.ranking) {
    ranked.push_back(row_of(result.candidates[index]));
  }
  report.rows = collapsed(std::move(ranked));
  for (const auto status : {search::CandidateStatus::out_of_memory, search::CandidateStatus::invalid}) {
    for (const auto& c : result.candidates) {
      if (c.status == status) report.rows.push_back(row_of(c));
    }
  }
  return report;
}

}  // namespace distsim::io
