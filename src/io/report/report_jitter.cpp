#include "io/report/report_jitter.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <iterator>

#include "io/report/report_html.hpp"
#include "strategy/variability.hpp"

namespace distsim::io {

namespace {

constexpr int kJitterBins = 10;
constexpr double kJitterHistogramWidth = 480;
constexpr double kJitterHistogramHeight = 120;

//! How many samples fall into each of kJitterBins equal bins over [lowest, highest]; the highest goes
//! into the last bin.
std::array<int, kJitterBins> bin_counts(const std::vector<double>& times, double lowest, double highest) {
  std::array<int, kJitterBins> counts{};
  const double width = (highest - lowest) / kJitterBins;
  for (const double t : times) {
    const int bin = width > 0 ? std::min(kJitterBins - 1, static_cast<int>((t - lowest) / width)) : 0;
    ++counts[static_cast<std::size_t>(bin)];
  }
  return counts;
}

void append_histogram(std::string& html, const api::StepTimeDistribution& d) {
  auto out = std::back_inserter(html);
  const double lowest = std::min(*std::min_element(d.times_s.begin(), d.times_s.end()), d.noiseless_s);
  const double highest = d.max_s;
  const auto counts = bin_counts(d.times_s, lowest, highest);
  const int tallest = std::max(1, *std::max_element(counts.begin(), counts.end()));
  fmt::format_to(out, "<svg width=\"{:.0f}\" height=\"{:.0f}\">", kJitterHistogramWidth, kJitterHistogramHeight + 16);
  const double bar = kJitterHistogramWidth / kJitterBins;
  const double width = (highest - lowest) / kJitterBins;
  for (int bin = 0; bin < kJitterBins; ++bin) {
    const double height = kJitterHistogramHeight * counts[static_cast<std::size_t>(bin)] / tallest;
    fmt::format_to(out,
                   "<rect class=\"bar\" x=\"{:.2f}\" y=\"{:.2f}\" width=\"{:.2f}\" height=\"{:.2f}\"><title>{:.3f} to "
                   "{:.3f} ms: {} of {}</title></rect>",
                   bin * bar + 1, kJitterHistogramHeight - height, bar - 2, height, (lowest + bin * width) * 1e3,
                   (lowest + (bin + 1) * width) * 1e3, counts[static_cast<std::size_t>(bin)], d.times_s.size());
  }
  const double noiseless_x =
      highest > lowest ? kJitterHistogramWidth * (d.noiseless_s - lowest) / (highest - lowest) : 0;
  fmt::format_to(
      out,
      "<line class=\"limit\" x1=\"{0:.2f}\" x2=\"{0:.2f}\" y1=\"0\" y2=\"{1:.0f}\"><title>noiseless: {2:.3f} "
      "ms</title></line><text x=\"0\" y=\"{3:.0f}\" font-size=\"11\">{4:.3f} ms</text><text x=\"{5:.0f}\" "
      "y=\"{3:.0f}\" font-size=\"11\" text-anchor=\"end\">{6:.3f} ms</text></svg>",
      std::min(noiseless_x, kJitterHistogramWidth - 1), kJitterHistogramHeight, d.noiseless_s * 1e3,
      kJitterHistogramHeight + 13, lowest * 1e3, kJitterHistogramWidth, highest * 1e3);
}

}  // namespace

void append_jitter_section(std::string& html, const api::StepTimeDistribution& d) {
  auto out = std::back_inserter(html);
  html += "<section id=\"jitter\"><h2>Step time under kernel jitter</h2><div class=\"cards\">";
  const auto card = [&](std::string_view name, double seconds) {
    fmt::format_to(out,
                   "<div class=\"card\"><div class=\"name\">{}</div><div class=\"value\">{:.3f}<span "
                   "class=\"unit\">ms</span></div></div>",
                   name, seconds * 1e3);
  };
  card("noiseless", d.noiseless_s);
  card("mean", d.mean_s);
  card("p50", d.p50_s);
  card("p90", d.p90_s);
  card("p99", d.p99_s);
  html += "</div><p class=\"note\">";
  append_escaped(html,
                 fmt::format("{} sampled iterations of {} (seed {}), {:+.2f} % over the noiseless one; the "
                             "dashed line marks the noiseless iteration",
                             d.samples, strategy::kernel_jitter_text(d.jitter), d.seed, (d.slowdown() - 1) * 100));
  html += "</p>";
  append_histogram(html, d);
  html += "</section>\n";
}

}  // namespace distsim::io
