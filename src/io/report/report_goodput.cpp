#include "io/report/report_goodput.hpp"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <iterator>
#include <string_view>

#include "core/sim_time.hpp"
#include "io/report/report_html.hpp"

namespace distsim::io {

namespace {

struct Share {
  std::string_view name;
  std::string_view css_class;
  double goodput::TimeShares::*share;
};

constexpr std::array<Share, 4> kShares{{
    {"training", "g-t", &goodput::TimeShares::training},
    {"checkpoints", "g-c", &goodput::TimeShares::checkpoints},
    {"redone work", "g-r", &goodput::TimeShares::redone},
    {"restarts", "g-s", &goodput::TimeShares::restarts},
}};

constexpr double kShareBarWidth = 480;

void append_cards(std::string& html, const goodput::GoodputEstimate& e) {
  auto out = std::back_inserter(html);
  const auto card = [&](std::string_view name, const std::string& value, std::string_view unit) {
    fmt::format_to(out,
                   "<div class=\"card\"><div class=\"name\">{}</div><div class=\"value\">{}<span "
                   "class=\"unit\">{}</span></div></div>",
                   name, value, unit);
  };
  html += "<div class=\"cards\">";
  card("ETTR", fmt::format("{:.1f}", e.shares.training * 100), "%");
  card("goodput", format_grouped(e.goodput_tokens_per_s), "tokens/s");
  const double mtbf_h = e.mtbf_s / kSecondsPerHour;
  if (std::isfinite(mtbf_h)) {
    card("mean time between failures", mtbf_h < 100 ? fmt::format("{:.3g}", mtbf_h) : format_grouped(mtbf_h), "h");
  } else {
    card("failures", "none expected", "");
  }
  if (e.interval_iterations > 0) {
    card("checkpoint every", format_grouped(e.interval_iterations), "iterations");
  } else {
    card("checkpoint", "none", "");
  }
  if (e.time_to_train) {
    card("time to train", fmt::format("{:.3g}", e.time_to_train->expected_s / kSecondsPerDay), "days");
    card("GPU-hours to train", format_grouped(e.time_to_train->gpu_hours), "");
    if (e.time_to_train->cost) card("cost to train", format_grouped(*e.time_to_train->cost), "");
  }
  html += "</div>";
}

void append_share_bar(std::string& html, const goodput::GoodputEstimate& e) {
  auto out = std::back_inserter(html);
  html += "<div class=\"legend\">";
  for (const auto& share : kShares) {
    fmt::format_to(out, "<span><span class=\"swatch {}\"></span>{} {:.2f} %</span>", share.css_class, share.name,
                   e.shares.*share.share * 100);
  }
  fmt::format_to(out,
                 "</div><svg width=\"{0:.0f}\" height=\"18\"><rect class=\"idle\" width=\"{0:.0f}\" height=\"18\"/>",
                 kShareBarWidth);
  double x = 0;
  for (const auto& share : kShares) {
    const double width = kShareBarWidth * e.shares.*share.share;
    fmt::format_to(out,
                   "<rect class=\"{}\" x=\"{:.2f}\" width=\"{:.2f}\" height=\"18\"><title>{}: {:.2f} %</title></rect>",
                   share.css_class, x, width, share.name, e.shares.*share.share * 100);
    x += width;
  }
  html += "</svg>";
}

}  // namespace

void append_goodput_section(std::string& html, const goodput::GoodputEstimate& estimate) {
  html += "<section id=\"goodput\"><h2>Goodput: failures, checkpoints and the time to train</h2>";
  append_cards(html, estimate);
  html += "<p class=\"note\">Share of the wall time (docs/goodput.md)</p>";
  append_share_bar(html, estimate);
  html += "<ul class=\"note\">";
  for (const auto& assumption : estimate.assumptions) {
    html += "<li>assumed: ";
    append_escaped(html, assumption);
    html += "</li>";
  }
  html += "</ul></section>\n";
}

}  // namespace distsim::io
