#include "whatif/straggler_analysis.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>

#include "core/input_error.hpp"
#include "whatif/step_replay.hpp"

namespace distsim::whatif {

namespace {

double mean(const std::vector<double>& values) {
  return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

//! The middle value, or the mean of the two middle ones.
double median(std::vector<double> values) {
  const std::size_t middle = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(middle), values.end());
  const double upper = values[middle];
  if (values.size() % 2 == 1) return upper;
  return (*std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(middle)) + upper) / 2;
}

//! Each operation's duration with its type's mean or median in place of its own.
std::vector<double> ideal_durations(const MeasuredTrace& trace) {
  std::map<OpRole, std::vector<double>> by_role;
  for (const auto& op : trace.ops) by_role[op.role].push_back(op.duration_s);
  std::map<OpRole, double> ideal;
  for (const auto& [role, durations] : by_role) {
    ideal[role] = role_info(role).ideal == IdealStatistic::mean ? mean(durations) : median(durations);
  }
  std::vector<double> durations;
  durations.reserve(trace.ops.size());
  for (const auto& op : trace.ops) durations.push_back(ideal[op.role]);
  return durations;
}

std::vector<double> measured_step_times(const MeasuredTrace& trace, const std::vector<int>& steps) {
  std::vector<double> times(steps.size(), 0.0);
  for (const auto& op : trace.ops) {
    const auto at = static_cast<std::size_t>(std::lower_bound(steps.begin(), steps.end(), op.step) - steps.begin());
    times[at] = std::max(times[at], op.end_s());
  }
  return times;
}

//! Each group's ideal replay with its own operations at their measured durations, largest first.
std::vector<Attribution> attribute(const MeasuredTrace& trace, const StepReplay& replay,
                                   const std::vector<double>& ideal, double ideal_mean,
                                   const std::function<std::string(const MeasuredOp&)>& group_of) {
  std::map<std::string, std::vector<std::size_t>> members;
  for (std::size_t i = 0; i < trace.ops.size(); ++i) members[group_of(trace.ops[i])].push_back(i);
  std::vector<Attribution> attributions;
  for (const auto& [group, ops] : members) {
    std::vector<double> durations = ideal;
    for (const std::size_t i : ops) durations[i] = trace.ops[i].duration_s;
    attributions.push_back({group, mean(replay.step_times(durations)) / ideal_mean});
  }
  std::stable_sort(attributions.begin(), attributions.end(),
                   [](const Attribution& a, const Attribution& b) { return a.slowdown > b.slowdown; });
  return attributions;
}

}  // namespace

StragglerAnalysis analyze_stragglers(const MeasuredTrace& trace) {
  if (trace.ops.empty()) throw InputError("the trace holds no operations");
  const StepReplay replay(trace);
  StragglerAnalysis analysis;
  analysis.operations = trace.ops.size();
  analysis.notes = trace.notes;
  for (const auto& op : trace.ops) {
    analysis.dp_size = std::max(analysis.dp_size, op.dp + 1);
    analysis.pp_size = std::max(analysis.pp_size, op.stage + 1);
  }
  std::vector<double> actual;
  actual.reserve(trace.ops.size());
  for (const auto& op : trace.ops) actual.push_back(op.duration_s);
  const std::vector<double> ideal = ideal_durations(trace);
  const std::vector<double> measured = measured_step_times(trace, replay.steps());
  const std::vector<double> replayed = replay.step_times(actual);
  const std::vector<double> idealized = replay.step_times(ideal);
  for (std::size_t s = 0; s < replay.steps().size(); ++s) {
    analysis.steps.push_back({replay.steps()[s], measured[s], replayed[s], idealized[s]});
  }
  analysis.measured_s = mean(measured);
  analysis.replayed_s = mean(replayed);
  analysis.ideal_s = mean(idealized);
  analysis.launch_slowdown = analysis.measured_s / analysis.replayed_s;
  analysis.straggler_slowdown = analysis.replayed_s / analysis.ideal_s;
  analysis.by_stage =
      attribute(trace, replay, ideal, analysis.ideal_s, [](const MeasuredOp& op) { return std::to_string(op.stage); });
  analysis.by_dp_rank =
      attribute(trace, replay, ideal, analysis.ideal_s, [](const MeasuredOp& op) { return std::to_string(op.dp); });
  analysis.by_op_type = attribute(trace, replay, ideal, analysis.ideal_s,
                                  [](const MeasuredOp& op) { return std::string(role_info(op.role).group); });
  return analysis;
}

}  // namespace distsim::whatif
