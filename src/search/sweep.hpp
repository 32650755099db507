#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cost/cost_model.hpp"
#include "options/job_settings.hpp"
#include "search/objective.hpp"
#include "search/search_space.hpp"
#include "search/strategy_search.hpp"

namespace distsim::search {

//! One axis of a sweep: a job setting (model, gpu, cluster, nodes, global_batch_size,
//! seq_length) and the values its points take, each with where it was given.
struct SweepAxis {
  std::string key;
  std::vector<options::Setting> values;
};

//! Many strategy searches as one: a point for every combination of one value per axis, each
//! searched as `distsim search` would search the job of `settings` with the point's values.
struct Sweep {
  std::vector<SweepAxis> axes;  //!< the first varies slowest
  //! Every point's settings: job settings no axis sets, and searched settings pinned to one value.
  options::JobSettings settings;
  //! The searched settings given several values (or `all`), as make_search_space takes them.
  std::map<std::string, std::vector<std::string>> lists;
  std::optional<std::string> memory_headroom;
  std::optional<double> max_memory_gib;
  std::size_t top = 1;  //!< best candidates found exactly and kept per point
  Objectives objectives;
  TrainingGoal goal;
  bool simulate_out_of_memory = false;
};

//! The settings of each point, the first axis varying slowest: `sweep.settings` with the point's
//! value of every axis.
std::vector<options::JobSettings> sweep_points(const Sweep& sweep);

//! "model=llama3-8b gpu=h100 nodes=4": the values of a point's settings on the axes that list
//! several (the first axis when none does); a model, GPU or cluster by the name of `base`'s.
std::string point_text(const Sweep& sweep, const options::JobSettings& point, const strategy::JobSpec& base);

//! One point's search, kept small: its space, and its result with only the `top` best candidates
//! (the ranking) and, when none fits, the leanest one (SearchResult::leanest); the counts are the
//! whole search's and the Pareto front is left out.
struct SweepPoint {
  std::string name;  //!< point_text
  SearchSpace space;
  SearchResult result;
  std::size_t candidates = 0;  //!< the whole search's
  std::size_t simulated = 0;
};

//! What every point's search shares: threads, processes; `costs` gives the costs to put before the
//! analytical model for a point's base job (null: none); `progress`, when set, hears (points
//! searched, points) after each point (the points' own searches report nothing, so that a count
//! that restarts at every point does not hide how far the sweep got).
struct SweepRun {
  SearchOptions search;
  std::function<std::shared_ptr<const cost::CostModel>(const strategy::JobSpec&)> costs;
  std::function<void(std::size_t, std::size_t)> progress;
};

//! Builds every point's space first (so that bad input stops the sweep before any simulation),
//! then runs each point's search (run_search, with the sweep's memory limit, objectives, top and
//! goal) in turn; a process group shares each search's candidates, as for one search. Throws
//! InputError naming the point.
std::vector<SweepPoint> run_sweep(const Sweep& sweep, const options::SpecResolvers& resolve, const SweepRun& run);

}  // namespace distsim::search
