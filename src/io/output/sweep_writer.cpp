#include "io/output/sweep_writer.hpp"

#include <algorithm>
#include <iterator>

#include <fmt/format.h>

#include "core/byte_units.hpp"
#include "io/output/search_writer.hpp"

namespace distsim::io {

namespace {

std::string axes_text(const search::Sweep& sweep) {
  std::string text;
  for (const auto& axis : sweep.axes) {
    if (!text.empty()) text += " x ";
    text += fmt::format("{} ({})", axis.key, axis.values.size());
  }
  return text;
}

//! The columns the sweep's training goal adds: days to train on the tokens, and the money to train
//! on them (or per million tokens).
struct GoalColumns {
  const search::TrainingGoal& goal;

  std::string header() const {
    std::string text;
    if (goal.tokens) text += fmt::format(" {:>9}", "days");
    if (goal.gpu_hour_price) text += fmt::format(" {:>12}", goal.tokens ? "cost" : "cost/Mtok");
    return text;
  }
  std::string row(const search::Candidate& c) const {
    std::string text;
    if (goal.tokens) text += fmt::format(" {:>9.2f}", search::time_to_train_s(c, *goal.tokens) / kSecondsPerDay);
    if (goal.gpu_hour_price) {
      const double hours = search::gpu_hours_to_train(c, goal.tokens ? *goal.tokens : kMillion);
      text += fmt::format(" {:>12.2f}", *goal.gpu_hour_price * hours);
    }
    return text;
  }
};

std::size_t label_width(const std::vector<search::SweepPoint>& points) {
  std::size_t width = 9;  // "candidate"
  for (const auto& point : points) {
    for (const auto& c : point.result.candidates) width = std::max(width, c.label().size());
  }
  return width;
}

std::size_t name_width(const std::vector<search::SweepPoint>& points) {
  std::size_t width = 5;  // "point"
  for (const auto& point : points) width = std::max(width, point.name.size());
  return width;
}

nlohmann::json point_json(const search::Sweep& sweep, const options::JobSettings& settings) {
  nlohmann::json values = nlohmann::json::object();
  for (const auto& axis : sweep.axes) {
    std::visit([&](const auto& value) { values[axis.key] = value; }, settings.find(axis.key)->value);
  }
  return values;
}

}  // namespace

std::string sweep_text(const search::Sweep& sweep, const std::vector<search::SweepPoint>& points) {
  std::string text;
  auto out = std::back_inserter(text);
  fmt::format_to(out, "sweep: {} point{} ({}); the best {} of each by {}\n", points.size(),
                 points.size() == 1 ? "" : "s", axes_text(sweep), sweep.top,
                 search::objective_title(sweep.objectives.rank));
  const std::size_t names = name_width(points);
  const std::size_t labels = label_width(points);
  const GoalColumns goal{sweep.goal};
  fmt::format_to(out, "\n{:<{}} {:>6} {:>4}  {:<{}} {:>10} {:>10} {:>7} {:>9}{}\n", "point", names, "GPUs", "rank",
                 "candidate", labels, "iter s", "samples/s", "MFU", "peak GiB", goal.header());
  for (const auto& point : points) {
    const auto& result = point.result;
    const int gpus = point.space.base.cluster.total_gpus();
    for (const std::size_t i : result.ranking) {
      const auto& c = result.candidates[i];
      fmt::format_to(out, "{:<{}} {:>6} {:>4}  {:<{}} {:>10.4f} {:>10.2f} {:>6.1f}% {:>9.2f}{}\n",
                     i == 0 ? point.name : "", names, gpus, i + 1, c.label(), labels, c.iteration_time_s,
                     c.samples_per_s, 100.0 * c.mfu, c.peak_memory_bytes / kGiB, goal.row(c));
    }
    if (result.ranking.empty()) {
      fmt::format_to(out, "{:<{}} {:>6}    -  no candidate fits in {:.1f} GiB ({} valid, {} invalid)\n", point.name,
                     names, gpus, result.memory_limit_bytes / kGiB, result.valid, result.invalid);
    }
  }
  for (const auto& point : points) {
    if (!point.result.leanest) continue;
    fmt::format_to(out, "\n{}: {}", point.name, search_memory_advice(point.result));
  }
  return text;
}

nlohmann::json sweep_json(const search::Sweep& sweep, const std::vector<search::SweepPoint>& points) {
  nlohmann::json data;
  nlohmann::json axes = nlohmann::json::array();
  for (const auto& axis : sweep.axes) axes.push_back(axis.key);
  data["axes"] = std::move(axes);
  data["top"] = sweep.top;
  data["objectives"] = {std::string(search::to_string(sweep.objectives.rank)),
                        std::string(search::to_string(sweep.objectives.trade_off))};
  if (sweep.goal.tokens) data["tokens"] = *sweep.goal.tokens;
  if (sweep.goal.gpu_hour_price) data["gpu_hour_price"] = *sweep.goal.gpu_hour_price;
  const auto settings = search::sweep_points(sweep);
  nlohmann::json list = nlohmann::json::array();
  for (std::size_t p = 0; p < points.size(); ++p) {
    const auto& point = points[p];
    const auto& result = point.result;
    nlohmann::json entry;
    entry["point"] = point_json(sweep, settings[p]);
    entry["search"] = search_space_description(point.space);
    entry["job"] = search_job_json(point.space);
    entry["candidates_total"] = point.candidates;
    entry["valid"] = result.valid;
    entry["invalid"] = result.invalid;
    entry["out_of_memory"] = result.out_of_memory;
    entry["memory_limit_bytes"] = result.memory_limit_bytes;
    entry["pruned_by_bound"] = result.pruned_by_bound;
    entry["simulated"] = point.simulated;
    nlohmann::json best = nlohmann::json::array();
    for (const std::size_t i : result.ranking) best.push_back(search_candidate_json(result.candidates[i], result.goal));
    entry["top"] = std::move(best);
    if (result.leanest) entry["memory_advice"] = search_memory_advice_json(result);
    list.push_back(std::move(entry));
  }
  data["points"] = std::move(list);
  return data;
}

void write_sweep_csv(std::ostream& out, const search::Sweep& sweep, const std::vector<search::SweepPoint>& points) {
  const auto settings = search::sweep_points(sweep);
  for (const auto& axis : sweep.axes) out << axis.key << ",";
  out << "rank," << search_csv_header(sweep.goal) << "\n";
  for (std::size_t p = 0; p < points.size(); ++p) {
    std::string prefix;
    for (const auto& axis : sweep.axes)
      prefix += csv_field(options::value_text(settings[p].find(axis.key)->value)) + ",";
    const auto& result = points[p].result;
    for (const std::size_t i : result.ranking) {
      out << prefix << i + 1 << "," << search_csv_row(result.candidates[i], result.goal) << "\n";
    }
    if (result.leanest) out << prefix << "," << search_csv_row(result.candidates[*result.leanest], result.goal) << "\n";
  }
}

}  // namespace distsim::io
