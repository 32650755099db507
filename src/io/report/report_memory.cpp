#include "io/report/report_memory.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <iterator>

#include "io/report/report_html.hpp"

namespace distsim::io {

namespace {

struct Component {
  std::string_view name;
  std::string_view css_class;
  std::int64_t memory::StageMemory::*bytes;
};

constexpr std::array<Component, 6> kComponents{{
    {"weights", "m-w", &memory::StageMemory::weights},
    {"gradients", "m-g", &memory::StageMemory::gradients},
    {"optimizer states", "m-o", &memory::StageMemory::optimizer_states},
    {"activations", "m-a", &memory::StageMemory::activations},
    {"pipeline buffers", "m-b", &memory::StageMemory::pipeline_buffers},
    {"overhead", "m-x", &memory::StageMemory::overhead},
}};

constexpr double kBarWidth = 220;

//! One stage's components stacked on a bar whose full width is `scale_bytes`, with the capacity
//! marked as a line.
void append_stack(std::string& html, const memory::StageMemory& stage, double scale_bytes, std::int64_t capacity) {
  auto out = std::back_inserter(html);
  fmt::format_to(out, "<svg width=\"{:.0f}\" height=\"14\"><rect class=\"idle\" width=\"{:.0f}\" height=\"14\"/>",
                 kBarWidth, kBarWidth);
  double x = 0;
  for (const auto& component : kComponents) {
    const double width = kBarWidth * static_cast<double>(stage.*component.bytes) / scale_bytes;
    fmt::format_to(
        out, "<rect class=\"{}\" x=\"{:.2f}\" y=\"1\" width=\"{:.2f}\" height=\"12\"><title>{}: {}</title></rect>",
        component.css_class, x, width, component.name, format_gib(static_cast<double>(stage.*component.bytes)));
    x += width;
  }
  const double limit = kBarWidth * static_cast<double>(capacity) / scale_bytes;
  fmt::format_to(out, "<line class=\"limit\" x1=\"{0:.2f}\" x2=\"{0:.2f}\" y1=\"0\" y2=\"14\"/></svg>",
                 std::min(limit, kBarWidth - 1));
}

void append_verdict(std::string& html, const memory::MemoryEstimate& estimate) {
  const auto gib = [](std::int64_t bytes) { return format_gib(static_cast<double>(bytes)); };
  if (estimate.fits()) {
    const auto& peak = estimate.peak();
    append_escaped(html, fmt::format("Fits: the peak is {} on stage {}; the {} has {}.", gib(peak.total()), peak.stage,
                                     peak.gpu, gib(peak.capacity)));
    return;
  }
  const auto& tightest = estimate.tightest();
  html += "<strong class=\"oom-text\">Out of memory:</strong> ";
  append_escaped(html, fmt::format("stage {} needs {}, the {} has {} ({} of {} stages do not fit). The timeline "
                                   "was simulated anyway.",
                                   tightest.stage, gib(tightest.total()), tightest.gpu, gib(tightest.capacity),
                                   estimate.stages_over_capacity(), estimate.stages.size()));
}

}  // namespace

void append_memory_section(std::string& html, const memory::MemoryEstimate& estimate) {
  if (estimate.stages.empty()) {
    return;
  }
  auto out = std::back_inserter(html);
  fmt::format_to(out, "<section id=\"memory\" class=\"{}\"><h2>Memory per GPU at the peak</h2><p class=\"verdict\">",
                 estimate.fits() ? "fits" : "oom");
  append_verdict(html, estimate);
  html += "</p><div class=\"legend\">";
  for (const auto& component : kComponents) {
    fmt::format_to(out, "<span><span class=\"swatch {}\"></span>{}</span>", component.css_class, component.name);
  }
  html += "<span><span class=\"swatch limit-swatch\"></span>GPU memory</span></div>"
          "<div class=\"scroll\"><table><thead><tr><th class=\"text\">stage</th><th>micro-batches in flight</th>";
  for (const auto& component : kComponents) {
    fmt::format_to(out, "<th>{}</th>", component.name);
  }
  html += "<th>total</th><th class=\"text\">of capacity</th></tr></thead><tbody>\n";
  double scale = 0;
  for (const auto& stage : estimate.stages) {
    scale = std::max({scale, static_cast<double>(stage.total()), static_cast<double>(stage.capacity)});
  }
  scale = std::max(scale, 1.0);
  for (const auto& stage : estimate.stages) {
    const bool over = stage.total() > stage.capacity;
    fmt::format_to(out, "<tr class=\"{}\"><td class=\"text\">{}</td><td>{:.2f}</td>", over ? "oom" : "fits",
                   stage.stage, stage.microbatches_in_flight);
    for (const auto& component : kComponents) {
      fmt::format_to(out, "<td>{}</td>", format_gib(static_cast<double>(stage.*component.bytes)));
    }
    fmt::format_to(out, "<td class=\"peak\">{}</td><td class=\"text\">",
                   format_gib(static_cast<double>(stage.total())));
    append_stack(html, stage, scale, stage.capacity);
    html += "</td></tr>\n";
  }
  html += "</tbody></table></div></section>\n";
}

}  // namespace distsim::io
