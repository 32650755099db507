#include "io/report/report_timeline_svg.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>

#include "io/report/report_html.hpp"

namespace distsim::io {

using strategy::ParallelDim;

namespace {

constexpr double kBandLabelWidth = 96;
constexpr double kStreamLabelWidth = 150;
constexpr double kPlotLeft = kBandLabelWidth + kStreamLabelWidth;
constexpr double kRightMargin = 14;
constexpr double kAxisHeight = 30;
constexpr double kRowHeight = 13;
constexpr double kRowPitch = 16;
constexpr double kBandGap = 12;
// A block shorter than this is widened to it, so even a lone short kernel stays visible.
constexpr double kMinBlockWidth = 1;
// Blocks at least this busy are drawn solid.
constexpr double kFullyBusy = 0.995;

std::string ranks_text(const std::vector<int>& ranks) {
  std::string text = ranks.size() == 1 ? "rank " : "ranks ";
  for (std::size_t i = 0; i < ranks.size();) {
    std::size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) {
      ++j;
    }
    text += i > 0 ? ", " : "";
    text += j > i ? fmt::format("{}–{}", ranks[i], ranks[j]) : std::to_string(ranks[i]);
    i = j + 1;
  }
  return text;
}

std::string microbatch_text(const TimelineBlock& block) {
  if (block.first_microbatch < 0) {
    return "";
  }
  if (block.first_microbatch == block.last_microbatch) {
    return fmt::format(" · micro-batch {}", block.first_microbatch);
  }
  return fmt::format(" · micro-batches {}–{}", block.first_microbatch, block.last_microbatch);
}

double busy_fraction(const TimelineBlock& block) {
  return static_cast<double>(block.busy) / static_cast<double>(std::max<SimTime>(block.end - block.start, 1));
}

//! A merged block that its tasks fill only in part is drawn lighter, so a row of short kernels
//! with gaps does not read as fully busy: opacity 0.25 + 0.75 × the busy fraction.
std::string opacity_attribute(const TimelineBlock& block) {
  const double fraction = busy_fraction(block);
  return fraction < kFullyBusy ? fmt::format(" fill-opacity=\"{:.2f}\"", 0.25 + 0.75 * fraction) : std::string();
}

std::string busy_text(const TimelineBlock& block) {
  const double fraction = busy_fraction(block);
  return fraction < kFullyBusy ? fmt::format(" ({:.0f} % busy)", 100 * fraction) : std::string();
}

double band_height(const TimelineBand& band) { return static_cast<double>(band.rows.size()) * kRowPitch; }

class TimelineSvg {
 public:
  TimelineSvg(std::string& html, const api::Simulation& simulation)
      : html_(html),
        simulation_(simulation),
        makespan_(std::max<SimTime>(simulation.summary.iteration_time, 1)),
        pixels_per_ns_(kTimelinePlotWidth / static_cast<double>(makespan_)) {}

  void append(const std::vector<TimelineBand>& bands) {
    double height = kAxisHeight;
    for (const auto& band : bands) {
      height += band_height(band) + kBandGap;
    }
    const double width = kPlotLeft + kTimelinePlotWidth + kRightMargin;
    fmt::format_to(out(),
                   "<svg id=\"timeline\" width=\"{0:.0f}\" height=\"{1:.0f}\" "
                   "viewBox=\"0 0 {0:.0f} {1:.0f}\" font-size=\"11\" role=\"img\" "
                   "aria-label=\"timeline of every device of data-parallel replica 0\">\n",
                   width, height);
    append_axis(height);
    double y = kAxisHeight;
    for (const auto& band : bands) {
      append_band(band, y);
      y += band_height(band) + kBandGap;
    }
    html_ += "</svg>\n";
  }

 private:
  std::back_insert_iterator<std::string> out() { return std::back_inserter(html_); }
  double x_of(SimTime t) const { return kPlotLeft + static_cast<double>(t) * pixels_per_ns_; }

  void append_axis(double height) {
    const TimeUnit unit = time_unit_for(makespan_);
    const double span = static_cast<double>(makespan_) / unit.ns;
    const auto ticks = nice_ticks(span, 10);
    const double step = ticks.size() > 1 ? ticks[1] : span;
    fmt::format_to(out(), "<text x=\"{:.1f}\" y=\"11\" text-anchor=\"end\" font-weight=\"600\">time ({})</text>\n",
                   kPlotLeft - 8, unit.name);
    fmt::format_to(out(), "<line class=\"axis\" x1=\"{0:.1f}\" x2=\"{1:.1f}\" y1=\"{2:.1f}\" y2=\"{2:.1f}\"/>\n",
                   kPlotLeft, kPlotLeft + kTimelinePlotWidth, kAxisHeight - 6);
    for (const double tick : ticks) {
      const double x = kPlotLeft + tick * unit.ns * pixels_per_ns_;
      fmt::format_to(out(), "<line class=\"grid\" x1=\"{0:.2f}\" x2=\"{0:.2f}\" y1=\"{1:.1f}\" y2=\"{2:.1f}\"/>", x,
                     kAxisHeight - 10, height);
      fmt::format_to(out(), "<text x=\"{:.2f}\" y=\"11\" text-anchor=\"middle\">{}</text>\n", x,
                     format_tick(tick, step));
    }
  }

  void append_band(const TimelineBand& band, double top) {
    fmt::format_to(out(), "<g class=\"band\" transform=\"translate(0,{:.0f})\">\n", top);
    const bool symmetric = !simulation_.program.all_ranks;
    const std::string name =
        symmetric ? fmt::format("stage {}", band.coord[ParallelDim::pp])
                  : fmt::format("stage {} · tp {}", band.coord[ParallelDim::pp], band.coord[ParallelDim::tp]);
    fmt::format_to(out(), "<text x=\"0\" y=\"{:.0f}\" font-weight=\"600\">{}</text>", kRowHeight - 2, name);
    fmt::format_to(out(), "<text x=\"0\" y=\"{:.0f}\">{}</text>\n", kRowPitch + kRowHeight - 2,
                   html_escaped(ranks_text(band.ranks)));
    double y = 0;
    for (const auto& row : band.rows) {
      append_row(row, y);
      y += kRowPitch;
    }
    html_ += "</g>\n";
  }

  void append_row(const TimelineRow& row, double y) {
    fmt::format_to(out(), "<g transform=\"translate(0,{:.0f})\"><text x=\"{:.0f}\" y=\"{:.0f}\">{}</text>", y,
                   kBandLabelWidth, kRowHeight - 2, events::stream_name(row.stream));
    fmt::format_to(out(), "<rect class=\"idle\" x=\"{:.0f}\" width=\"{:.0f}\" height=\"{:.0f}\"/>\n", kPlotLeft,
                   kTimelinePlotWidth, kRowHeight);
    for (const auto& block : row.blocks) {
      append_block(block);
    }
    html_ += "</g>\n";
  }

  void append_block(const TimelineBlock& block) {
    const double x = x_of(block.start);
    const double width = std::max(x_of(block.end) - x, kMinBlockWidth);
    fmt::format_to(out(), "<rect class=\"{}\" x=\"{:.2f}\" width=\"{:.2f}\" height=\"{:.0f}\"{}><title>",
                   category_css_class(block.category), x, width, kRowHeight, opacity_attribute(block));
    html_ += category_label(block.category);
    html_ += ": ";
    append_escaped(html_, simulation_.program.tasks[block.first_task].label);
    if (block.tasks > 1) {
      html_ += " … ";
      append_escaped(html_, simulation_.program.tasks[block.last_task].label);
      fmt::format_to(out(), " ({} activities)", block.tasks);
    }
    fmt::format_to(out(), "{} · start {} · duration {}{}</title></rect>\n", microbatch_text(block),
                   format_duration(block.start), format_duration(block.end - block.start), busy_text(block));
  }

  std::string& html_;
  const api::Simulation& simulation_;
  SimTime makespan_;
  double pixels_per_ns_;
};

}  // namespace

void append_timeline_svg(std::string& html, const api::Simulation& simulation, const std::vector<TimelineBand>& bands) {
  TimelineSvg(html, simulation).append(bands);
}

void append_timeline_legend(std::string& html) {
  html += "<div class=\"legend\">";
  for (int c = 0; c < kActivityCategories; ++c) {
    const auto category = static_cast<ActivityCategory>(c);
    fmt::format_to(std::back_inserter(html), "<span><span class=\"swatch {}\"></span>{}</span>",
                   category_css_class(category), category_label(category));
  }
  html += "<span><span class=\"swatch idle\"></span>idle</span></div>\n";
}

}  // namespace distsim::io
