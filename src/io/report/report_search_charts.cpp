#include "io/report/report_search_charts.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <numeric>
#include <vector>

#include "core/byte_units.hpp"
#include "io/report/report_html.hpp"

namespace distsim::io {

namespace {

bool is_ok(const SearchReportRow& row) { return row.status == kSearchStatusOk; }
bool is_out_of_memory(const SearchReportRow& row) { return row.status == kSearchStatusOutOfMemory; }

//! The class that styles a status badge and a table row.
std::string_view status_class(const SearchReportRow& row) {
  if (is_ok(row)) return "ok";
  if (is_out_of_memory(row)) return "oom";
  return "invalid";
}

bool simulated(const SearchReportRow& row) { return row.iteration_time_s > 0; }

std::string format_iteration_time(double seconds) {
  return seconds > 0 ? format_duration(seconds_to_time(seconds)) : "–";
}

std::string format_memory(double bytes) { return bytes > 0 ? format_gib(bytes) : "–"; }

void append_card(std::string& html, std::string_view name, const std::string& value, bool wide = false) {
  fmt::format_to(std::back_inserter(html), "<div class=\"card{}\"><div class=\"name\">{}</div><div class=\"value\">",
                 wide ? " wide" : "", name);
  append_escaped(html, value);
  html += "</div></div>";
}

//! Hover text of a candidate: everything the report knows about it.
void append_row_title(std::string& html, const SearchReportRow& row) {
  html += "<title>";
  append_escaped(html, row.label);
  html += " · ";
  append_escaped(html, row.status);
  if (simulated(row)) {
    fmt::format_to(std::back_inserter(html), " · {:.3f} samples/s · iteration {} · MFU {}", row.samples_per_s,
                   format_iteration_time(row.iteration_time_s), format_percent(row.mfu));
  }
  if (row.peak_memory_bytes > 0) {
    html += " · peak memory " + format_gib(row.peak_memory_bytes);
  }
  if (!row.reason.empty()) {
    html += " · ";
    append_escaped(html, row.reason);
  }
  html += "</title>";
}

//! A simple linear scale from data to pixels.
struct Scale {
  double data_max = 1;
  double pixel_from = 0;
  double pixel_to = 1;
  double operator()(double value) const { return pixel_from + (pixel_to - pixel_from) * value / data_max; }
};

//! Nice ticks for [0, max] and the scale that ends at the last tick at or above max.
std::vector<double> axis_ticks(double max, int target, Scale& scale) {
  auto ticks = nice_ticks(max > 0 ? max : 1, target);
  const double step = ticks.size() > 1 ? ticks[1] : ticks.front();
  while (ticks.back() < max) {
    ticks.push_back(ticks.back() + step);
  }
  scale.data_max = ticks.back() > 0 ? ticks.back() : 1;
  return ticks;
}

double tick_step(const std::vector<double>& ticks) { return ticks.size() > 1 ? ticks[1] - ticks[0] : 1; }

void append_hatch_patterns(std::string& html) {
  html += "<defs>"
          "<pattern id=\"hatch-oom\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
          "patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#fdecea\"/>"
          "<rect width=\"2.5\" height=\"6\" fill=\"#c0392b\"/></pattern>"
          "<pattern id=\"hatch-invalid\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
          "patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#f1f3f5\"/>"
          "<rect width=\"2\" height=\"6\" fill=\"#9aa5b1\"/></pattern>"
          "</defs>\n";
}

//! How many of the report's first rows the bar chart draws.
std::size_t charted(const SearchReport& report) { return std::min(report.chart_rows, report.rows.size()); }

//! The throughput of every simulated candidate as a histogram: readable at any number of them.
class Histogram {
 public:
  Histogram(std::string& html, const SearchReport& report) : html_(html) {
    for (const auto& row : report.rows) {
      if (simulated(row)) values_.push_back(row.samples_per_s);
    }
  }

  void append() {
    if (values_.empty()) return;
    const double max = *std::max_element(values_.begin(), values_.end());
    Scale x{1, kLeft, kLeft + kPlotWidth};
    const auto x_ticks = axis_ticks(max, 6, x);
    const double width = x.data_max / kBins;
    std::vector<int> counts(kBins, 0);
    for (const double value : values_) {
      ++counts[std::min(kBins - 1, static_cast<std::size_t>(value / width))];
    }
    const int most = *std::max_element(counts.begin(), counts.end());
    Scale y{1, kTop + kPlotHeight, kTop};
    const auto y_ticks = axis_ticks(most, 4, y);
    fmt::format_to(out(),
                   "<svg id=\"throughput-histogram\" width=\"{0:.0f}\" height=\"{1:.0f}\" viewBox=\"0 0 {0:.0f} "
                   "{1:.0f}\" font-size=\"11\" role=\"img\" aria-label=\"throughput of all simulated candidates\">\n",
                   kLeft + kPlotWidth + 20, kTop + kPlotHeight + 46);
    for (const double tick : y_ticks) {
      fmt::format_to(out(),
                     "<line class=\"grid\" x1=\"{0:.0f}\" x2=\"{1:.0f}\" y1=\"{2:.1f}\" y2=\"{2:.1f}\"/>"
                     "<text x=\"{3:.0f}\" y=\"{4:.1f}\" text-anchor=\"end\">{5}</text>\n",
                     kLeft, kLeft + kPlotWidth, y(tick), kLeft - 6, y(tick) + 4, format_tick(tick, tick_step(y_ticks)));
    }
    for (std::size_t bin = 0; bin < kBins; ++bin) {
      if (counts[bin] == 0) continue;
      const double left = x(width * static_cast<double>(bin));
      const double top = y(counts[bin]);
      fmt::format_to(out(),
                     "<rect class=\"bar\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\"><title>{} "
                     "candidates at {:.3g} to {:.3g} samples/s</title></rect>\n",
                     left + 1, top, x(width) - x(0) - 2, kTop + kPlotHeight - top, counts[bin],
                     width * static_cast<double>(bin), width * static_cast<double>(bin + 1));
    }
    for (const double tick : x_ticks) {
      fmt::format_to(out(), "<text x=\"{:.1f}\" y=\"{:.0f}\" text-anchor=\"middle\">{}</text>", x(tick),
                     kTop + kPlotHeight + 15, format_tick(tick, tick_step(x_ticks)));
    }
    fmt::format_to(out(),
                   "<text x=\"{:.0f}\" y=\"{:.0f}\" text-anchor=\"middle\" font-weight=\"600\">samples / s</text>"
                   "<text transform=\"translate(14,{:.0f}) rotate(-90)\" text-anchor=\"middle\" "
                   "font-weight=\"600\">candidates</text>\n</svg>\n",
                   kLeft + kPlotWidth / 2, kTop + kPlotHeight + 36, kTop + kPlotHeight / 2);
  }

 private:
  static constexpr std::size_t kBins = 24;
  static constexpr double kLeft = 62;
  static constexpr double kTop = 14;
  static constexpr double kPlotWidth = 700;
  static constexpr double kPlotHeight = 160;

  std::back_insert_iterator<std::string> out() { return std::back_inserter(html_); }

  std::string& html_;
  std::vector<double> values_;
};

class BarChart {
 public:
  BarChart(std::string& html, const SearchReport& report)
      : html_(html), rows_(report.rows.begin(), report.rows.begin() + static_cast<std::ptrdiff_t>(charted(report))) {
    slot_ = std::clamp(kTargetWidth / static_cast<double>(std::max<std::size_t>(rows_.size(), 1)), 16.0, 72.0);
    std::size_t longest = 0;
    for (const auto& row : rows_) {
      longest = std::max(longest, row.label.size());
    }
    // Labels are rotated 45°: a character advances about 6 px at 11 px, 0.71 of it downwards.
    label_height_ = 18 + 6.0 * 0.71 * static_cast<double>(longest);
  }

  void append() {
    double max = 0;
    for (const auto& row : rows_) {
      max = std::max(max, row.samples_per_s);
    }
    scale_ = {1, kTop + kPlotHeight, kTop};
    const auto ticks = axis_ticks(max, 5, scale_);
    const double width = kLeft + slot_ * static_cast<double>(rows_.size()) + 24;
    const double height = kTop + kPlotHeight + label_height_;
    fmt::format_to(out(),
                   "<svg id=\"throughput-chart\" width=\"{0:.0f}\" height=\"{1:.0f}\" viewBox=\"0 0 {0:.0f} {1:.0f}\" "
                   "font-size=\"11\" role=\"img\" aria-label=\"throughput of every candidate\">\n",
                   width, height);
    append_hatch_patterns(html_);
    append_y_axis(ticks, width);
    for (std::size_t i = 0; i < rows_.size(); ++i) {
      append_candidate(rows_[i], kLeft + slot_ * static_cast<double>(i));
    }
    fmt::format_to(out(), "<line class=\"axis\" x1=\"{0:.0f}\" x2=\"{1:.0f}\" y1=\"{2:.0f}\" y2=\"{2:.0f}\"/>\n", kLeft,
                   width - 24, kTop + kPlotHeight);
    html_ += "</svg>\n";
  }

 private:
  static constexpr double kTargetWidth = 1180;
  static constexpr double kLeft = 64;
  static constexpr double kTop = 16;
  static constexpr double kPlotHeight = 250;
  static constexpr double kStubHeight = 18;

  std::back_insert_iterator<std::string> out() { return std::back_inserter(html_); }

  void append_y_axis(const std::vector<double>& ticks, double width) {
    for (const double tick : ticks) {
      const double y = scale_(tick);
      fmt::format_to(out(), "<line class=\"grid\" x1=\"{:.0f}\" x2=\"{:.0f}\" y1=\"{:.1f}\" y2=\"{:.1f}\"/>", kLeft,
                     width - 24, y, y);
      fmt::format_to(out(), "<text x=\"{:.0f}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n", kLeft - 6, y + 4,
                     format_tick(tick, tick_step(ticks)));
    }
    fmt::format_to(out(),
                   "<text transform=\"translate(14,{:.0f}) rotate(-90)\" text-anchor=\"middle\" "
                   "font-weight=\"600\">samples / s</text>\n",
                   kTop + kPlotHeight / 2);
  }

  void append_candidate(const SearchReportRow& row, double slot_left) {
    const double bar_width = slot_ * 0.7;
    const double x = slot_left + (slot_ - bar_width) / 2;
    const double center = slot_left + slot_ / 2;
    const double base = kTop + kPlotHeight;
    html_ += "<g>";
    append_row_title(html_, row);
    if (simulated(row)) {
      // A candidate simulated although it does not fit (--simulate-oom) keeps its hatching.
      const double top = scale_(row.samples_per_s);
      fmt::format_to(out(), "<rect class=\"{}\" x=\"{:.2f}\" y=\"{:.2f}\" width=\"{:.2f}\" height=\"{:.2f}\"/>",
                     is_ok(row) ? "bar" : "bar-oom", x, top, bar_width, base - top);
      if (slot_ >= 34) {
        fmt::format_to(out(), "<text x=\"{:.2f}\" y=\"{:.2f}\" text-anchor=\"middle\" font-size=\"10\">{:.2f}</text>",
                       center, top - 4, row.samples_per_s);
      }
    } else {
      const bool oom = is_out_of_memory(row);
      fmt::format_to(out(), "<rect class=\"{}\" x=\"{:.2f}\" y=\"{:.2f}\" width=\"{:.2f}\" height=\"{:.0f}\"/>",
                     oom ? "bar-oom" : "bar-invalid", x, base - kStubHeight, bar_width, kStubHeight);
      fmt::format_to(out(),
                     "<text transform=\"translate({:.2f},{:.2f}) rotate(-90)\" font-size=\"10\" "
                     "font-weight=\"600\" fill=\"{}\">{}</text>",
                     center + 3.5, base - kStubHeight - 4, oom ? "#b42318" : "#616e7c", oom ? "OOM" : "invalid");
    }
    fmt::format_to(out(), "<text transform=\"translate({:.2f},{:.2f}) rotate(-45)\" text-anchor=\"end\">", center + 3,
                   base + 12);
    append_escaped(html_, row.label);
    html_ += "</text></g>\n";
  }

  std::string& html_;
  const std::vector<SearchReportRow> rows_;
  double slot_ = 16;
  double label_height_ = 0;
  Scale scale_;
};

//! The plotted Pareto rows by increasing peak memory (then as given): the order they are
//! numbered in on the chart and listed beside it.
std::vector<const SearchReportRow*> front_rows(const SearchReport& report) {
  std::vector<const SearchReportRow*> front;
  for (const auto& row : report.rows) {
    if (row.pareto && is_ok(row) && simulated(row) && row.peak_memory_bytes > 0) {
      front.push_back(&row);
    }
  }
  std::stable_sort(front.begin(), front.end(),
                   [](const auto* a, const auto* b) { return a->peak_memory_bytes < b->peak_memory_bytes; });
  return front;
}

class ParetoChart {
 public:
  ParetoChart(std::string& html, const SearchReport& report) : html_(html), report_(report) {}

  void append() {
    double max_memory = report_.memory_capacity_bytes / kGiB;
    double max_time = 0;
    for (const auto& row : report_.rows) {
      if (plotted(row)) {
        max_memory = std::max(max_memory, row.peak_memory_bytes / kGiB);
        max_time = std::max(max_time, row.iteration_time_s);
      }
    }
    x_ = {1, kLeft, kLeft + kPlotWidth};
    y_ = {1, kTop + kPlotHeight, kTop};
    const auto x_ticks = axis_ticks(max_memory * 1.02, 6, x_);
    const auto y_ticks = axis_ticks(max_time * 1.02, 6, y_);
    fmt::format_to(out(),
                   "<svg id=\"pareto-chart\" width=\"{0:.0f}\" height=\"{1:.0f}\" viewBox=\"0 0 {0:.0f} {1:.0f}\" "
                   "font-size=\"11\" role=\"img\" aria-label=\"iteration time versus peak memory\">\n",
                   kLeft + kPlotWidth + 20, kTop + kPlotHeight + 46);
    append_axes(x_ticks, y_ticks);
    append_limit();
    const auto front = front_rows(report_);
    append_front_line(front);
    // Front points last, so they sit on top of the others.
    for (const auto& row : report_.rows) {
      if (plotted(row) && !(row.pareto && is_ok(row))) {
        append_point(row, 0);
      }
    }
    for (std::size_t i = 0; i < front.size(); ++i) {
      append_point(*front[i], static_cast<int>(i + 1));
    }
    html_ += "</svg>\n";
  }

 private:
  static constexpr double kLeft = 62;
  static constexpr double kTop = 14;
  static constexpr double kPlotWidth = 700;
  static constexpr double kPlotHeight = 360;

  static bool plotted(const SearchReportRow& row) { return simulated(row) && row.peak_memory_bytes > 0; }
  std::back_insert_iterator<std::string> out() { return std::back_inserter(html_); }
  double px(const SearchReportRow& row) const { return x_(row.peak_memory_bytes / kGiB); }
  double py(const SearchReportRow& row) const { return y_(row.iteration_time_s); }

  void append_axes(const std::vector<double>& x_ticks, const std::vector<double>& y_ticks) {
    const double bottom = kTop + kPlotHeight;
    for (const double tick : x_ticks) {
      fmt::format_to(out(),
                     "<line class=\"grid\" x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1:.0f}\" y2=\"{2:.0f}\"/>"
                     "<text x=\"{0:.1f}\" y=\"{3:.0f}\" text-anchor=\"middle\">{4}</text>\n",
                     x_(tick), kTop, bottom, bottom + 15, format_tick(tick, tick_step(x_ticks)));
    }
    for (const double tick : y_ticks) {
      fmt::format_to(out(),
                     "<line class=\"grid\" x1=\"{0:.0f}\" x2=\"{1:.0f}\" y1=\"{2:.1f}\" y2=\"{2:.1f}\"/>"
                     "<text x=\"{3:.0f}\" y=\"{4:.1f}\" text-anchor=\"end\">{5}</text>\n",
                     kLeft, kLeft + kPlotWidth, y_(tick), kLeft - 6, y_(tick) + 4,
                     format_tick(tick, tick_step(y_ticks)));
    }
    fmt::format_to(out(),
                   "<line class=\"axis\" x1=\"{0:.0f}\" x2=\"{1:.0f}\" y1=\"{2:.0f}\" y2=\"{2:.0f}\"/>"
                   "<line class=\"axis\" x1=\"{0:.0f}\" x2=\"{0:.0f}\" y1=\"{3:.0f}\" y2=\"{2:.0f}\"/>\n",
                   kLeft, kLeft + kPlotWidth, bottom, kTop);
    fmt::format_to(out(),
                   "<text x=\"{:.0f}\" y=\"{:.0f}\" text-anchor=\"middle\" font-weight=\"600\">"
                   "peak memory per GPU (GiB)</text>",
                   kLeft + kPlotWidth / 2, bottom + 36);
    fmt::format_to(out(),
                   "<text transform=\"translate(14,{:.0f}) rotate(-90)\" text-anchor=\"middle\" "
                   "font-weight=\"600\">iteration time (s)</text>\n",
                   kTop + kPlotHeight / 2);
  }

  void append_limit() {
    if (report_.memory_capacity_bytes <= 0) {
      return;
    }
    const double x = x_(report_.memory_capacity_bytes / kGiB);
    // The label goes on the side of the line with room for it.
    const bool label_left = x > kLeft + kPlotWidth * 0.7;
    fmt::format_to(out(),
                   "<line class=\"limit\" x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1:.0f}\" y2=\"{2:.0f}\"/>"
                   "<text x=\"{3:.1f}\" y=\"{4:.0f}\" text-anchor=\"{5}\" fill=\"#b42318\">GPU memory {6}</text>\n",
                   x, kTop, kTop + kPlotHeight, label_left ? x - 5 : x + 5, kTop + 10, label_left ? "end" : "start",
                   format_gib(report_.memory_capacity_bytes));
  }

  //! The front as a staircase: moving to more memory only ever buys a shorter iteration.
  void append_front_line(const std::vector<const SearchReportRow*>& front) {
    if (front.size() < 2) {
      return;
    }
    html_ += "<polyline class=\"front-line\" points=\"";
    for (std::size_t i = 0; i < front.size(); ++i) {
      if (i > 0) {
        fmt::format_to(out(), "{:.1f},{:.1f} ", px(*front[i]), py(*front[i - 1]));
      }
      fmt::format_to(out(), "{:.1f},{:.1f} ", px(*front[i]), py(*front[i]));
    }
    html_ += "\"/>\n";
  }

  void append_point(const SearchReportRow& row, int front_number) {
    html_ += "<g>";
    append_row_title(html_, row);
    const double x = px(row);
    const double y = py(row);
    if (!is_ok(row)) {
      fmt::format_to(out(), "<path class=\"oom-mark\" d=\"M{0:.1f},{1:.1f}l8,8m0,-8l-8,8\"/>", x - 4, y - 4);
    } else if (front_number > 0) {
      fmt::format_to(out(),
                     "<circle class=\"dot front\" cx=\"{0:.1f}\" cy=\"{1:.1f}\" r=\"8\"/><text class=\"front-number\" "
                     "x=\"{0:.1f}\" y=\"{2:.1f}\" text-anchor=\"middle\">{3}</text>",
                     x, y, y + 3.5, front_number);
    } else {
      fmt::format_to(out(), "<circle class=\"dot\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4\"/>", x, y);
    }
    html_ += "</g>\n";
  }

  std::string& html_;
  const SearchReport& report_;
  Scale x_;
  Scale y_;
};

void append_table_row(std::string& html, std::size_t index, const SearchReportRow& row, const SearchReport& report) {
  auto out = std::back_inserter(html);
  fmt::format_to(out, "<tr class=\"{}\"><td>{}</td><td class=\"text\">", status_class(row), index + 1);
  append_escaped(html, row.label);
  if (report.show_gpus) fmt::format_to(out, "</td><td>{}", row.gpus);
  fmt::format_to(out, "</td><td class=\"text\"><span class=\"badge {}\">", status_class(row));
  append_escaped(html, row.status);
  html += "</span></td>";
  if (simulated(row)) {
    fmt::format_to(out, "<td>{}</td><td>{:.3f}</td><td>{}</td><td>{}</td>", format_iteration_time(row.iteration_time_s),
                   row.samples_per_s, format_percent(row.mfu), format_percent(row.bubble_fraction));
  } else {
    html += "<td>–</td><td>–</td><td>–</td><td>–</td>";
  }
  if (report.show_expected_days) {
    html += simulated(row) ? fmt::format("<td>{:.2f}</td>", row.expected_days) : std::string("<td>–</td>");
  }
  fmt::format_to(out, "<td class=\"peak\">{}</td><td class=\"text\">{}</td><td class=\"text reason\">",
                 format_memory(row.peak_memory_bytes), row.pareto ? "✓" : "");
  append_escaped(html, row.reason);
  if (!row.same_as.empty()) {
    append_escaped(html,
                   fmt::format("{}the same results: {}", row.reason.empty() ? "" : "; ", fmt::join(row.same_as, ", ")));
  }
  html += "</td></tr>\n";
}

}  // namespace

void append_search_header(std::string& html, const SearchReport& report) {
  html += "<header><h1>";
  append_escaped(html, report.title.empty() ? "Strategy search" : report.title);
  html += "</h1><p class=\"subtitle\">";
  append_escaped(html, report.description);
  if (!report.settings.empty()) {
    html += "</p><p class=\"subtitle\">settings: ";
    append_escaped(html, report.settings);
  }
  html += "</p></header>\n<section id=\"search-summary\"><div class=\"cards\">";
  const auto& rows = report.rows;
  const auto count = [&](auto predicate) { return std::count_if(rows.begin(), rows.end(), predicate); };
  append_card(html, "candidates", std::to_string(rows.size()));
  append_card(html, "simulated", std::to_string(count(simulated)));
  append_card(html, "out of memory", std::to_string(count(is_out_of_memory)));
  append_card(html, "invalid", std::to_string(count([](const auto& r) { return r.status == kSearchStatusInvalid; })));
  double best = 0;
  double worst = 0;
  const SearchReportRow* fastest = nullptr;
  for (const auto& row : rows) {
    if (is_ok(row) && row.samples_per_s > 0) {
      if (fastest == nullptr || row.samples_per_s > best) {
        fastest = &row;
        best = row.samples_per_s;
      }
      worst = worst > 0 ? std::min(worst, row.samples_per_s) : row.samples_per_s;
    }
  }
  if (fastest != nullptr) {
    append_card(html, "fastest", fastest->label, true);
    append_card(html, "best / worst", fmt::format("{:.2f}×", best / worst));
  }
  html += "</div></section>\n";
}

void append_search_bar_chart(std::string& html, const SearchReport& report) {
  const std::size_t shown = charted(report);
  html += "<section id=\"throughput\"><h2>";
  html += shown < report.rows.size() ? fmt::format("Throughput of the first {} of {} rows", shown, report.rows.size())
                                     : std::string("Throughput of every candidate");
  html += "</h2><div class=\"legend\">"
          "<span><span class=\"swatch busy\"></span>simulated</span>"
          "<span><span class=\"swatch\" style=\"background:repeating-linear-gradient(45deg,#c0392b 0 2px,#fdecea 2px "
          "5px)\">"
          "</span>out of memory</span>"
          "<span><span class=\"swatch\" style=\"background:repeating-linear-gradient(45deg,#9aa5b1 0 2px,#f1f3f5 2px "
          "5px)\">"
          "</span>invalid</span></div><div class=\"scroll\">";
  BarChart(html, report).append();
  html += "</div></section>\n";
  if (shown < report.rows.size()) {
    html += "<section id=\"distribution\"><h2>Throughput of all simulated candidates</h2><div class=\"scroll\">";
    Histogram(html, report).append();
    html += "</div></section>\n";
  }
}

void append_search_table(std::string& html, const SearchReport& report) {
  const std::size_t shown = std::min(report.table_rows, report.rows.size());
  html += "<section id=\"ranking\"><h2>";
  html += shown < report.rows.size() ? fmt::format("First {} of {} rows", shown, report.rows.size())
                                     : std::string("All candidates");
  html += "</h2><div class=\"scroll\"><table><thead><tr><th>#</th><th class=\"text\">strategy</th>";
  if (report.show_gpus) html += "<th>GPUs</th>";
  html += "<th class=\"text\">status</th><th>iteration time</th><th>samples/s</th><th>MFU</th><th>bubble</th>";
  if (report.show_expected_days) html += "<th>expected days</th>";
  html += "<th>peak memory</th><th class=\"text\">Pareto</th><th class=\"text\">note</th></tr></thead><tbody>\n";
  for (std::size_t i = 0; i < shown; ++i) {
    append_table_row(html, i, report.rows[i], report);
  }
  html += "</tbody></table></div></section>\n";
}

void append_pareto_chart(std::string& html, const SearchReport& report) {
  html += "<section id=\"pareto\"><h2>Iteration time versus peak memory</h2><div class=\"legend\">"
          "<span><span class=\"swatch\" style=\"background:#f28e2b;border-radius:6px\"></span>Pareto front "
          "(no other candidate is both faster and smaller";
  if (!report.front_reach.empty()) {
    html += "; ";
    append_escaped(html, report.front_reach);
  }
  html += ")</span>"
          "<span><span class=\"swatch\" style=\"background:#9fb3c8;border-radius:6px\"></span>other simulated</span>"
          "<span><span class=\"swatch\" style=\"background:#fff;color:#c0392b;border-color:#c0392b\"></span>"
          "simulated but out of memory</span></div><div class=\"pareto-layout\"><div class=\"scroll\">";
  ParetoChart(html, report).append();
  html += "</div><table class=\"front-table\"><thead><tr><th>#</th><th class=\"text\">on the front</th>"
          "<th>peak memory</th><th>iteration time</th></tr></thead><tbody>\n";
  int number = 0;
  for (const auto* row : front_rows(report)) {
    fmt::format_to(std::back_inserter(html), "<tr><td><span class=\"front-badge\">{}</span></td><td class=\"text\">",
                   ++number);
    append_escaped(html, row->label);
    fmt::format_to(std::back_inserter(html), "</td><td>{}</td><td>{}</td></tr>\n", format_gib(row->peak_memory_bytes),
                   format_iteration_time(row->iteration_time_s));
  }
  html += "</tbody></table></div></section>\n";
}

}  // namespace distsim::io
