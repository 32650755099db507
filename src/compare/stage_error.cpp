#include "compare/stage_error.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <tuple>

namespace distsim::compare {

using strategy::ParallelDim;

namespace {

using StageKey = std::tuple<int, int, events::Phase>;  // stage, micro-batch, phase

struct Span {
  SimTime start = 0;
  SimTime end = 0;
};

using StageSpans = std::map<StageKey, Span>;

bool is_stage_pass(const Activity& activity) {
  return activity.kind == ActivityKind::compute && activity.microbatch >= 0 &&
         (activity.phase == events::Phase::forward || activity.phase == events::Phase::backward ||
          activity.phase == events::Phase::weight_gradient);
}

void add_rank(StageSpans& spans, const RankTimeline& rank, SimTime origin) {
  for (const auto& activity : rank.activities) {
    if (!is_stage_pass(activity)) {
      continue;
    }
    const StageKey key{rank.coord[ParallelDim::pp], activity.microbatch, *activity.phase};
    const Span span{activity.start - origin, activity.end - origin};
    const auto [it, inserted] = spans.emplace(key, span);
    if (!inserted) {
      it->second.start = std::min(it->second.start, span.start);
      it->second.end = std::max(it->second.end, span.end);
    }
  }
}

void summarize(StageErrors& errors, SimTime iteration) {
  if (errors.rows.empty()) {
    return;
  }
  const auto scale = static_cast<double>(iteration);
  for (const auto& row : errors.rows) {
    const auto start = static_cast<double>(std::llabs(row.start_error())) / scale;
    const auto end = static_cast<double>(std::llabs(row.end_error())) / scale;
    errors.mean_abs_start_error += start;
    errors.mean_abs_end_error += end;
    errors.max_abs_error = std::max({errors.max_abs_error, start, end});
  }
  errors.mean_abs_start_error /= static_cast<double>(errors.rows.size());
  errors.mean_abs_end_error /= static_cast<double>(errors.rows.size());
}

}  // namespace

StageErrors stage_errors(const Timeline& predicted, const Timeline& measured, const RankMapping& mapping) {
  StageErrors errors;
  if (!measured.pass_labels) {
    errors.unavailable_reason =
        "the measured traces do not label forward and backward passes (a PyTorch profiler trace marks them with "
        "ranges named distsim:fwd:mb=N, with PyTorch pipelining's PP: ranges, or with Megatron's forward_step and "
        "backward_step when the profiler records stacks; see docs/compare.md)";
    return errors;
  }
  errors.available = true;
  StageSpans predicted_spans;
  StageSpans measured_spans;
  for (const auto& pair : mapping.pairs) {
    add_rank(predicted_spans, *predicted.find(pair.predicted_rank), predicted.begin);
    add_rank(measured_spans, *measured.find(pair.measured_rank), measured.begin);
  }
  for (const auto& [key, span] : predicted_spans) {
    const auto found = measured_spans.find(key);
    if (found == measured_spans.end()) {
      ++errors.predicted_only;
      continue;
    }
    const auto [stage, microbatch, phase] = key;
    errors.rows.push_back({stage, microbatch, phase, span.start, span.end, found->second.start, found->second.end});
  }
  errors.measured_only = static_cast<int>(measured_spans.size() - errors.rows.size());
  summarize(errors, measured.iteration());
  return errors;
}

}  // namespace distsim::compare
