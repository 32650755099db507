#include "search/objective.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/closest_name.hpp"
#include "core/input_error.hpp"
#include "core/number_text.hpp"
#include "core/sim_time.hpp"

namespace distsim::search {

namespace {

std::string fmt_names() {
  std::string text;
  for (const auto& name : objective_names()) text += (text.empty() ? "" : ", ") + name;
  return text;
}

}  // namespace

const std::vector<std::string>& objective_names() {
  static const std::vector<std::string> names{"time", "cost", "memory", "time-to-train"};
  return names;
}

std::string_view to_string(Objective objective) { return objective_names().at(static_cast<std::size_t>(objective)); }

std::string_view objective_title(Objective objective) {
  switch (objective) {
    case Objective::time: return "iteration time";
    case Objective::cost: return "GPU-hours per iteration";
    case Objective::memory: return "peak memory";
    case Objective::time_to_train: return "expected time to train";
  }
  return "";
}

std::optional<Objective> parse_objective(std::string_view name) {
  const auto& names = objective_names();
  const auto found = std::find(names.begin(), names.end(), name);
  if (found == names.end()) return std::nullopt;
  return static_cast<Objective>(found - names.begin());
}

Objectives parse_objectives(const std::vector<std::string>& names, const std::string& flag) {
  if (names.empty() || names.size() > 2) {
    throw InputError(flag + ": expected one or two of " + fmt_names() +
                     " (the first ranks, the Pareto front trades it "
                     "against the second), got " +
                     std::to_string(names.size()));
  }
  std::vector<Objective> parsed;
  for (const auto& name : names) {
    const auto objective = parse_objective(name);
    if (!objective) throw InputError(flag + ": " + unknown_name_message("objective", name, objective_names()));
    parsed.push_back(*objective);
  }
  Objectives objectives;
  objectives.rank = parsed.front();
  if (parsed.size() == 2) {
    if (parsed[0] == parsed[1]) {
      throw InputError(flag + ": '" + names[0] + "' given twice; the Pareto front needs two different objectives");
    }
    objectives.trade_off = parsed[1];
  } else {
    objectives.trade_off = objectives.rank == Objective::memory ? Objective::time : Objective::memory;
  }
  return objectives;
}

bool Objectives::front_is_limited() const { return std::isfinite(front_within); }

double parse_front_within(const std::string& text, const std::string& flag) {
  if (text == "all") return std::numeric_limits<double>::infinity();
  const auto factor = parse_finite_number(text);
  if (!factor || *factor < 1) {
    throw InputError(flag +
                     ": expected a factor of at least 1 over the best candidate, e.g. 1.5, or all for every "
                     "candidate, got '" +
                     text + "'");
  }
  return *factor;
}

double objective_value(const Candidate& candidate, Objective objective) {
  switch (objective) {
    case Objective::time: return candidate.iteration_time_s;
    case Objective::cost: return gpu_hours_per_iteration(candidate);
    case Objective::memory: return candidate.peak_memory_bytes;
    case Objective::time_to_train: return candidate.time_to_train_s;
  }
  return candidate.iteration_time_s;
}

double objective_bound(const Candidate& candidate, Objective objective) {
  const double gpus = candidate.cluster().total_gpus();
  switch (objective) {
    case Objective::time: return candidate.lower_bound_s;
    case Objective::cost: return candidate.lower_bound_s * gpus / kSecondsPerHour;
    case Objective::memory: return candidate.peak_memory_bytes;
    case Objective::time_to_train: return candidate.time_to_train_bound_s;
  }
  return candidate.lower_bound_s;
}

TrainingGoal training_goal(const strategy::TrainingRun& run) { return {run.tokens, run.gpu_hour_price, run}; }

// A sample's tokens as simulate counts them (analysis::summarize): the decoder's sequence of an
// encoder-decoder model, the sequence otherwise.
double tokens_per_s(const Candidate& candidate) {
  return candidate.samples_per_s * candidate.model().target_seq_length();
}

double gpu_hours_per_iteration(const Candidate& candidate) {
  return candidate.iteration_time_s * candidate.cluster().total_gpus() / kSecondsPerHour;
}

double time_to_train_s(const Candidate& candidate, double tokens) {
  const double rate = tokens_per_s(candidate);
  return rate > 0 ? tokens / rate : 0.0;
}

double gpu_hours_to_train(const Candidate& candidate, double tokens) {
  return time_to_train_s(candidate, tokens) * candidate.cluster().total_gpus() / kSecondsPerHour;
}

}  // namespace distsim::search
