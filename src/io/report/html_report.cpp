#include "io/report/html_report.hpp"

#include "io/output/stage_layers_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <string>

#include "events/job_events.hpp"
#include "io/output/summary_writer.hpp"
#include "io/report/report_goodput.hpp"
#include "io/report/report_html.hpp"
#include "io/report/report_jitter.hpp"
#include "io/report/report_memory.hpp"
#include "io/report/report_search_charts.hpp"
#include "io/report/report_timeline.hpp"
#include "io/report/report_timeline_svg.hpp"
#include "io/spec/spec_writer.hpp"

namespace distsim::io {

using strategy::ParallelDim;

namespace {

std::string job_title(const strategy::JobSpec& job) {
  return fmt::format("{} · {} · {} on {}", job.model.name, job.strategy.notation(), job.strategy.schedule,
                     hosts_text(job.cluster, " × "));
}

//! Strategy options that differ from plain Megatron defaults, so the header names only what was set.
std::string strategy_extras(const strategy::Strategy& s) {
  std::string extras;
  if (s.low_precision_gemms()) {
    extras += fmt::format(", {} GEMMs", dtype_name(strategy::gemm_dtype(s.gemm_format, s.dtype)));
  }
  if (s.context_parallel > 1) extras += fmt::format(", context parallel {}", s.context_parallel);
  if (s.sequence_parallel) extras += ", sequence parallel";
  if (s.recompute != strategy::Recompute::none) extras += fmt::format(", {} recomputation", to_string(s.recompute));
  if (s.zero_stage() != strategy::Sharding::none) extras += fmt::format(", sharding {}", to_string(s.zero_stage()));
  if (s.overlap_grad_reduce) extras += ", gradient reduction overlapped";
  if (s.virtual_stages > 1) extras += fmt::format(", {} virtual stages", s.virtual_stages);
  return extras;
}

void append_header(std::string& html, const api::Simulation& simulation) {
  const auto& job = simulation.job;
  const auto& s = job.strategy;
  html += "<header><h1>";
  append_escaped(html, job_title(job));
  html += "</h1><p class=\"subtitle\">";
  append_escaped(html, fmt::format("{} ({}) · tensor {} × pipeline {} × data {} · micro-batch {}, global batch {} "
                                   "({} micro-batches) · {}{} · {}",
                                   job.cluster.name, job.model.name, s.tensor_parallel, s.pipeline_parallel,
                                   s.data_parallel, s.micro_batch_size, s.global_batch_size, s.num_microbatches(),
                                   dtype_name(s.dtype), strategy_extras(s), simulated_name(simulation.program)));
  html += "</p><p class=\"subtitle\">settings: ";
  append_escaped(html, job_settings_text(job));
  html += "</p></header>\n";
}

//! A headline number; `unit` is set smaller after it.
void append_card(std::string& html, std::string_view name, const std::string& value, std::string_view unit,
                 std::string_view extra_class = "") {
  fmt::format_to(std::back_inserter(html),
                 "<div class=\"card{}{}\"><div class=\"name\">{}</div><div class=\"value\">{}<span class=\"unit\">{}"
                 "</span></div></div>",
                 extra_class.empty() ? "" : " ", extra_class, name, value, unit);
}

//! Splits "421.940 ms" into the number and its unit.
void append_duration_card(std::string& html, std::string_view name, SimTime time) {
  const std::string text = format_duration(time);
  const auto space = text.find(' ');
  append_card(html, name, text.substr(0, space), text.substr(space + 1));
}

void append_summary(std::string& html, const api::Simulation& simulation) {
  const auto& summary = simulation.summary;
  html += "<section id=\"summary\"><h2>Summary</h2><div class=\"cards\">";
  append_duration_card(html, "iteration time", summary.iteration_time);
  append_card(html, "throughput", fmt::format("{:.2f}", summary.throughput_samples_per_s), "samples/s");
  append_card(html, "tokens / s", format_grouped(summary.tokens_per_s), "");
  append_card(html, "TFLOP/s per GPU", fmt::format("{:.1f}", summary.tflops_per_gpu), "");
  append_card(html, "MFU", fmt::format("{:.1f}", summary.mfu * 100), "%");
  append_card(html, "pipeline bubble", fmt::format("{:.1f}", summary.bubble_fraction * 100), "%");
  const auto& memory = simulation.memory;
  if (!memory.stages.empty()) {
    const auto gib = static_cast<double>(std::int64_t{1} << 30);
    append_card(html, memory.fits() ? "peak memory / GPU" : "peak memory (OOM)",
                fmt::format("{:.1f}", static_cast<double>(memory.peak().total()) / gib),
                fmt::format("of {:.0f} GiB", static_cast<double>(memory.peak().capacity) / gib),
                memory.fits() ? "" : "oom");
  }
  html += "</div><p class=\"note\">";
  append_escaped(html, events_line(summary.events));
  html += "</p></section>\n";
}

//! A 160-pixel bar split into compute, exposed communication and idle.
void append_share_bar(std::string& html, const analysis::DeviceStats& stats, double iteration_ns) {
  constexpr double kWidth = 160;
  const double compute = kWidth * static_cast<double>(stats.busy_compute) / iteration_ns;
  const double comm = kWidth * static_cast<double>(stats.busy_communication) / iteration_ns;
  fmt::format_to(std::back_inserter(html),
                 "<svg width=\"160\" height=\"12\"><rect class=\"idle\" width=\"160\" height=\"12\"/>"
                 "<rect class=\"busy\" width=\"{:.1f}\" height=\"12\"/>"
                 "<rect class=\"comm\" x=\"{:.1f}\" width=\"{:.1f}\" height=\"12\"/></svg>",
                 compute, compute, comm);
}

void append_time_cell(std::string& html, SimTime time, double iteration_ns) {
  fmt::format_to(std::back_inserter(html), "<td>{} <span class=\"muted\">({:.1f} %)</span></td>", format_duration(time),
                 100.0 * static_cast<double>(time) / iteration_ns);
}

void append_device_table(std::string& html, const api::Simulation& simulation, const std::vector<TimelineBand>& bands) {
  const double iteration_ns = static_cast<double>(std::max<SimTime>(simulation.summary.iteration_time, 1));
  const auto& job = simulation.job;
  html += "<section id=\"devices\"><h2>How each device spent the iteration</h2>"
          "<div class=\"legend\"><span><span class=\"swatch busy\"></span>compute</span>"
          "<span><span class=\"swatch comm\"></span>exposed communication (nothing computes)</span>"
          "<span><span class=\"swatch idle\"></span>idle</span></div>"
          "<div class=\"scroll\"><table><thead><tr><th class=\"text\">stage</th><th class=\"text\">ranks</th>"
          "<th>layers</th><th>compute</th><th>exposed comm</th><th>idle</th><th class=\"text\">share</th></tr></thead>"
          "<tbody>\n";
  for (const auto& band : bands) {
    const auto& stats = simulation.summary.devices.at(band.device);
    fmt::format_to(std::back_inserter(html), "<tr><td class=\"text\">{}</td><td class=\"text\">{}</td><td>{}</td>",
                   band.coord[ParallelDim::pp],
                   band.ranks.size() == 1 ? std::to_string(band.ranks.front())
                                          : fmt::format("{}–{}", band.ranks.front(), band.ranks.back()),
                   html_escaped(stage_layers_text(job, band.coord[ParallelDim::pp])));
    append_time_cell(html, stats.busy_compute, iteration_ns);
    append_time_cell(html, stats.busy_communication, iteration_ns);
    append_time_cell(html, stats.idle, iteration_ns);
    html += "<td class=\"text\">";
    append_share_bar(html, stats, iteration_ns);
    html += "</td></tr>\n";
  }
  html += "</tbody></table></div></section>\n";
}

//! Which ranks share a simulated device, when some do.
std::string_view shared_device_note(const program::JobProgram& program) {
  const bool shared = std::any_of(program.devices.begin(), program.devices.end(),
                                  [](const program::DeviceInfo& device) { return device.ranks > 1; });
  if (!shared) return "";
  return program.all_ranks ? " (the ranks at one place of data-parallel replicas placed alike share one)"
                           : " (the ranks of a stage share one)";
}

void append_timeline(std::string& html, const api::Simulation& simulation, const std::vector<TimelineBand>& bands,
                     double merge_gap_ns) {
  html += "<section id=\"timeline-section\"><h2>Timeline of data-parallel replica 0</h2>";
  append_timeline_legend(html);
  html += "<div class=\"scroll\">";
  append_timeline_svg(html, simulation, bands);
  html += "</div><p class=\"note\">";
  append_escaped(
      html,
      fmt::format("One band per simulated device{}, one row per stream it uses. Activities of one kind "
                  "less than a pixel ({}) apart are drawn as one block, lighter where its tasks leave gaps; hover a "
                  "block for its tasks, micro-batches, start and duration.",
                  shared_device_note(simulation.program), format_duration(static_cast<SimTime>(merge_gap_ns))));
  html += "</p></section>\n";
}

}  // namespace

void write_simulation_report(std::ostream& out, const api::Simulation& simulation) {
  const double merge_gap_ns =
      static_cast<double>(std::max<SimTime>(simulation.summary.iteration_time, 1)) / kTimelinePlotWidth;
  const auto bands = build_timeline(simulation, merge_gap_ns);
  std::string html;
  append_page_start(html, "distsim report: " + job_title(simulation.job));
  append_header(html, simulation);
  append_summary(html, simulation);
  append_device_table(html, simulation, bands);
  append_memory_section(html, simulation.memory);
  if (simulation.jitter) append_jitter_section(html, *simulation.jitter);
  if (simulation.goodput) append_goodput_section(html, *simulation.goodput);
  append_timeline(html, simulation, bands, merge_gap_ns);
  append_page_end(html);
  out.write(html.data(), static_cast<std::streamsize>(html.size()));
}

void write_search_report(std::ostream& out, const SearchReport& report) {
  std::string html;
  append_page_start(html, report.title.empty() ? "distsim search report" : report.title);
  append_search_header(html, report);
  append_search_bar_chart(html, report);
  append_search_table(html, report);
  append_pareto_chart(html, report);
  append_page_end(html);
  out.write(html.data(), static_cast<std::streamsize>(html.size()));
}

}  // namespace distsim::io
