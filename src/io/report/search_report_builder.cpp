#include "io/report/search_report_builder.hpp"

#include <fmt/format.h>

#include "io/output/search_writer.hpp"

namespace distsim::io {

namespace {

SearchReportRow row_of(const search::Candidate& c) {
  return {c.label(),         search::to_string(c.status), c.reason, c.iteration_time_s, c.samples_per_s, c.mfu,
          c.bubble_fraction, c.peak_memory_bytes,         c.pareto};
}

}  // namespace

SearchReport make_search_report(const search::SearchSpace& space, const search::SearchResult& result,
                                std::size_t table_rows) {
  const auto& job = space.base;
  SearchReport report;
  report.title = fmt::format("Strategy search: {} on {} × {} {}", job.model.name, job.cluster.num_hosts,
                             job.cluster.gpus_per_host, job.cluster.gpu.name);
  report.description = fmt::format(
      "global batch {} · {} · {} candidates: {} valid, {} invalid, {} out of memory · best/worst throughput {:.2f}×",
      job.strategy.global_batch_size, job.strategy.precision_name(), result.candidates.size(), result.valid,
      result.invalid, result.out_of_memory, result.best_worst_ratio());
  report.settings = search_settings_text(space);
  report.memory_capacity_bytes = job.cluster.gpu.memory_gb * 1024.0 * 1024.0 * 1024.0;
  report.table_rows = table_rows;
  for (const std::size_t index : result.ranking) {
    report.rows.push_back(row_of(result.candidates[index]));
  }
  for (const auto status : {search::CandidateStatus::out_of_memory, search::CandidateStatus::invalid}) {
    for (const auto& c : result.candidates) {
      if (c.status == status) report.rows.push_back(row_of(c));
    }
  }
  return report;
}

}  // namespace distsim::io
