#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/sim_time.hpp"

//! Building blocks shared by the HTML reports: escaping, number formats, axis ticks and the page
//! shell with its inline style sheet. Everything appends to a std::string, which the reports
//! write out at once.
namespace distsim::io {

//! Appends `text` with & < > " ' escaped, so it is safe in element content and quoted attributes.
void append_escaped(std::string& html, std::string_view text);
std::string html_escaped(std::string_view text);

//! A duration in the unit that keeps it between 1 and 1000 (ns, µs, ms, s), three significant
//! decimals: "1.500 µs", "12.345 ms".
std::string format_duration(SimTime ns);

//! A byte count in GiB with two decimals: "12.34 GiB".
std::string format_gib(double bytes);

//! A non-negative number rounded to an integer with thousands separated: "155,321".
std::string format_grouped(double value);

//! A fraction as a percentage with one decimal: "42.0 %".
std::string format_percent(double fraction);

//! A time unit for an axis: its name and its length in nanoseconds.
struct TimeUnit {
  std::string_view name;
  double ns = 1;
};

//! The largest of ns, µs, ms, s that `span` is at least one of.
TimeUnit time_unit_for(SimTime span);

//! Evenly spaced "nice" tick values (1, 2 or 5 times a power of ten) from 0 to at most `max`,
//! about `target` of them.
std::vector<double> nice_ticks(double max, int target);

//! Formats a tick value with as many decimals as the tick spacing needs.
std::string format_tick(double value, double step);

//! The document head (title, inline style sheet, no external resources) and the opening body.
void append_page_start(std::string& html, std::string_view title);

//! A marker script (the report's only script: headless tests read the attribute it sets to know
//! the page ran) and the closing tags.
void append_page_end(std::string& html);

}  // namespace distsim::io
