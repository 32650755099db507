#include "search/sweep.hpp"

#include <algorithm>

#include "core/input_error.hpp"
#include "search/memory_limit.hpp"
#include "search/search_setup.hpp"

namespace distsim::search {

namespace {

//! The whole search's counts with its first `top` ranked candidates and its leanest one.
SearchResult best_of(const SearchResult& result, std::size_t top) {
  SearchResult kept = result;
  kept.candidates.clear();
  kept.ranking.clear();
  kept.pareto_front.clear();
  kept.leanest.reset();
  for (std::size_t i = 0; i < std::min(top, result.ranking.size()); ++i) {
    kept.candidates.push_back(result.candidates[result.ranking[i]]);
    kept.ranking.push_back(i);
  }
  if (result.leanest) {
    kept.leanest = kept.candidates.size();
    kept.candidates.push_back(result.candidates[*result.leanest]);
  }
  return kept;
}

//! "model=a.yaml gpu=h100 nodes=4": every axis's value as the file gave it.
std::string settings_text(const Sweep& sweep, const options::JobSettings& point) {
  std::string text;
  for (const auto& axis : sweep.axes) {
    text += (text.empty() ? "" : " ") + axis.key + "=" + options::value_text(point.find(axis.key)->value);
  }
  return text;
}

SearchOptions point_options(const Sweep& sweep, const SweepRun& run, const SearchSpace& space) {
  SearchOptions options = run.search;
  options.progress = nullptr;
  options.memory_limit_bytes = memory_limit_bytes(space.base, sweep.memory_headroom, sweep.max_memory_gib);
  options.keep = sweep.top;
  options.objectives = sweep.objectives;
  // The point's own run: the sweep's tokens and price, and its failures and checkpoints.
  options.goal = training_goal(space.base.run);
  options.simulate_out_of_memory = sweep.simulate_out_of_memory;
  if (run.costs) options.simulation.preferred_costs = run.costs(space.base);
  return options;
}

}  // namespace

std::vector<options::JobSettings> sweep_points(const Sweep& sweep) {
  std::vector<options::JobSettings> points{sweep.settings};
  for (const auto& axis : sweep.axes) {
    std::vector<options::JobSettings> next;
    next.reserve(points.size() * axis.values.size());
    for (const auto& point : points) {
      for (const auto& value : axis.values) {
        next.push_back(point);
        next.back().set(axis.key, value.value, value.origin);
      }
    }
    points = std::move(next);
  }
  return points;
}

std::string point_text(const Sweep& sweep, const options::JobSettings& point, const strategy::JobSpec& base) {
  std::string text;
  for (const auto& axis : sweep.axes) {
    const bool first = &axis == &sweep.axes.front();
    const bool only_one = std::all_of(sweep.axes.begin(), sweep.axes.end(),
                                      [](const SweepAxis& each) { return each.values.size() == 1; });
    if (axis.values.size() == 1 && !(first && only_one)) continue;
    std::string value = options::value_text(point.find(axis.key)->value);
    if (axis.key == "model") value = base.model.name;
    if (axis.key == "gpu") value = base.cluster.gpu.name;
    if (axis.key == "cluster") value = base.cluster.name;
    text += (text.empty() ? "" : " ") + axis.key + "=" + value;
  }
  return text;
}

std::vector<SweepPoint> run_sweep(const Sweep& sweep, const options::SpecResolvers& resolve, const SweepRun& run) {
  std::vector<SweepPoint> points;
  std::vector<SearchOptions> options;
  for (const auto& settings : sweep_points(sweep)) {
    SweepPoint point;
    try {
      point.space = make_search_space(settings, sweep.lists, resolve);
      point.name = point_text(sweep, settings, point.space.base);
      check_search_space(point.space);
      options.push_back(point_options(sweep, run, point.space));
    } catch (const InputError& error) {
      throw InputError("sweep point " + settings_text(sweep, settings) + ": " + error.what());
    }
    points.push_back(std::move(point));
  }
  for (std::size_t i = 0; i < points.size(); ++i) {
    try {
      const SearchResult result = run_search(points[i].space, options[i]);
      points[i].candidates = result.candidates.size();
      points[i].simulated = static_cast<std::size_t>(std::count_if(result.candidates.begin(), result.candidates.end(),
                                                                   [](const Candidate& c) { return c.simulated; }));
      points[i].result = best_of(result, sweep.top);
    } catch (const InputError& error) {
      throw InputError("sweep point " + points[i].name + ": " + error.what());
    }
    if (run.progress) run.progress(i + 1, points.size());
  }
  return points;
}

}  // namespace distsim::search
