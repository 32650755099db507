#include "io/report/report_html.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/byte_units.hpp"

namespace distsim::io {

namespace {

// One style sheet for both reports. A class names a category once and colours an SVG shape
// (fill) and an HTML legend swatch (background) alike. The palette is Tableau 10, chosen for
// categorical data that stays distinguishable for most colour-vision deficiencies.
constexpr std::string_view kStyle = R"css(
:root{color-scheme:light}
*{box-sizing:border-box}
body{margin:0;background:#f4f6f8;color:#1f2933;
  font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue","DejaVu Sans",Arial,sans-serif}
main{max-width:1380px;margin:0 auto;padding:22px 26px 36px}
header h1{font-size:22px;margin:0 0 2px;font-weight:650}
.subtitle{color:#52606d;margin:0}
section{background:#fff;border:1px solid #e1e5ea;border-radius:8px;padding:14px 18px 16px;margin-top:14px}
h2{font-size:15px;margin:0 0 10px;font-weight:650}
.note{color:#616e7c;font-size:12px;margin:6px 0 0}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(170px,1fr));gap:10px}
.card{background:#f8fafc;border:1px solid #e4e7eb;border-radius:6px;padding:8px 12px}
.card .name{color:#616e7c;font-size:11px;text-transform:uppercase;letter-spacing:.05em}
.card .name{white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.card .value{font-size:20px;font-weight:600;font-variant-numeric:tabular-nums;white-space:nowrap}
.card.wide{grid-column:span 2}
.card.wide .value{font-size:15px;white-space:normal;overflow-wrap:anywhere}
.card .unit{font-size:13px;font-weight:500;color:#52606d;margin-left:4px}
table{border-collapse:collapse;font-variant-numeric:tabular-nums;font-size:13px}
th,td{padding:4px 10px;text-align:right;border-bottom:1px solid #edf0f3;white-space:nowrap}
th{font-weight:600;color:#52606d;font-size:12px;border-bottom:1px solid #d5dae0}
.text{text-align:left}
td.reason{white-space:normal;color:#616e7c;max-width:420px}
dl.job{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;margin:0;font-size:13px}
dl.job dt{color:#616e7c}
dl.job dd{margin:0}
.legend{display:flex;flex-wrap:wrap;gap:6px 16px;font-size:12px;margin:0 0 8px;color:#3e4c59}
.swatch{display:inline-block;width:12px;height:12px;border-radius:2px;vertical-align:-2px;margin-right:5px;
  border:1px solid rgba(0,0,0,.12)}
.scroll{overflow-x:auto}
svg{display:block}
svg text{font-family:inherit;fill:#3e4c59}
.axis{stroke:#9aa5b1;stroke-width:1}
.grid{stroke:#e4e7eb;stroke-width:1}
.fwd{fill:#4e79a7;background:#4e79a7}
.bwd{fill:#f28e2b;background:#f28e2b}
.rec{fill:#b07aa1;background:#b07aa1}
.tp{fill:#e15759;background:#e15759}
.pp{fill:#76b7b2;background:#76b7b2}
.dp{fill:#edc948;background:#edc948}
.cp{fill:#ff9da7;background:#ff9da7}
.opt{fill:#59a14f;background:#59a14f}
.wgrad{fill:#9c755f;background:#9c755f}
.ep{fill:#bab0ac;background:#bab0ac}
.host{fill:#d3d3d3;background:#d3d3d3}
.idle{fill:#eef1f4;background:#eef1f4}
.busy{fill:#4e79a7;background:#4e79a7}
.comm{fill:#e15759;background:#e15759}
.bar{fill:#4e79a7}
.bar.front{fill:#2b5d8a}
.bar-oom{fill:url(#hatch-oom);stroke:#c0392b}
.bar-invalid{fill:url(#hatch-invalid);stroke:#7b8794}
.dot{fill:#9fb3c8;stroke:#fff;stroke-width:1}
.dot.front{fill:#f28e2b;stroke:#8a4b0f}
.front-line{fill:none;stroke:#f28e2b;stroke-width:2}
text.front-number{fill:#fff;font-size:10px;font-weight:700;pointer-events:none}
.pareto-layout{display:flex;flex-wrap:wrap;gap:18px;align-items:flex-start}
.front-table{margin-top:8px}
.front-badge{display:inline-block;min-width:18px;height:18px;line-height:18px;border-radius:9px;background:#f28e2b;
  color:#fff;font-size:11px;font-weight:700;text-align:center}
.oom-mark{stroke:#c0392b;stroke-width:2}
.limit{stroke:#c0392b;stroke-width:1.5;stroke-dasharray:5 4}
.badge{display:inline-block;padding:0 8px;border-radius:10px;font-size:12px;line-height:18px}
.badge.ok{background:#e3f4e8;color:#1e6b34}
.badge.oom{background:#fdecea;color:#b42318}
.badge.invalid{background:#eceff3;color:#52606d}
tr.oom td{background:#fff5f4}
tr.oom td.peak{color:#b42318;font-weight:600}
.muted{color:#9aa5b1}
.m-w{fill:#4e79a7;background:#4e79a7}
.m-g{fill:#a0cbe8;background:#a0cbe8}
.m-o{fill:#59a14f;background:#59a14f}
.m-a{fill:#f28e2b;background:#f28e2b}
.m-b{fill:#76b7b2;background:#76b7b2}
.m-x{fill:#bab0ac;background:#bab0ac}
.g-t{fill:#59a14f;background:#59a14f}
.g-c{fill:#4e79a7;background:#4e79a7}
.g-r{fill:#f28e2b;background:#f28e2b}
.g-s{fill:#e15759;background:#e15759}
.limit-swatch{width:3px;background:#c0392b;border:0}
section.oom{border-color:#f5b5ae}
.verdict{margin:0 0 8px}
.oom-text{color:#b42318}
.card.oom{background:#fff5f4;border-color:#f5b5ae}
.card.oom .value{color:#b42318}
footer{color:#7b8794;font-size:12px;margin-top:16px}
)css";

}  // namespace

void append_escaped(std::string& html, std::string_view text) {
  for (const char c : text) {
    switch (c) {
      case '&': html += "&amp;"; break;
      case '<': html += "&lt;"; break;
      case '>': html += "&gt;"; break;
      case '"': html += "&quot;"; break;
      case '\'': html += "&#39;"; break;
      default: html += c;
    }
  }
}

std::string html_escaped(std::string_view text) {
  std::string html;
  append_escaped(html, text);
  return html;
}

std::string format_duration(SimTime ns) {
  const TimeUnit unit = time_unit_for(ns);
  if (unit.ns == 1) {
    return fmt::format("{} ns", ns);
  }
  return fmt::format("{:.3f} {}", static_cast<double>(ns) / unit.ns, unit.name);
}

std::string format_gib(double bytes) { return fmt::format("{:.2f} GiB", bytes / kGiB); }

std::string format_grouped(double value) {
  const std::string digits = fmt::format("{:.0f}", value);
  std::string grouped;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) {
      grouped += ',';
    }
    grouped += digits[i];
  }
  return grouped;
}

std::string format_percent(double fraction) { return fmt::format("{:.1f} %", fraction * 100); }

TimeUnit time_unit_for(SimTime span) {
  if (span >= 1'000'000'000) return {"s", 1e9};
  if (span >= 1'000'000) return {"ms", 1e6};
  if (span >= 1'000) return {"µs", 1e3};
  return {"ns", 1};
}

std::vector<double> nice_ticks(double max, int target) {
  if (!(max > 0) || target < 1) {
    return {0};
  }
  const double raw = max / target;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  const double normalized = raw / magnitude;
  const double factor = normalized < 1.5 ? 1 : normalized < 3.5 ? 2 : normalized < 7.5 ? 5 : 10;
  const double step = factor * magnitude;
  std::vector<double> ticks;
  for (int k = 0; k * step <= max * (1 + 1e-9); ++k) {
    ticks.push_back(k * step);
  }
  return ticks;
}

std::string format_tick(double value, double step) {
  const int decimals = step > 0 ? std::max(0, static_cast<int>(-std::floor(std::log10(step) + 1e-9))) : 0;
  return fmt::format("{:.{}f}", value, decimals);
}

void append_page_start(std::string& html, std::string_view title) {
  html += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>";
  append_escaped(html, title);
  html += "</title>\n<style>";
  html += kStyle;
  html += "</style>\n</head>\n<body>\n<main>\n";
}

void append_page_end(std::string& html) {
  html += "<footer>Written by distsim. The file is self-contained: it loads no scripts, fonts or "
          "images from anywhere.</footer>\n</main>\n"
          "<script>document.documentElement.setAttribute(\"data-report-ready\", \"yes\");</script>\n"
          "</body>\n</html>\n";
}

}  // namespace distsim::io
