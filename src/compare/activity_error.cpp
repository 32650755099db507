#include "compare/activity_error.hpp"

#include <algorithm>
#include <cstdlib>

#include "compare/pass_grouping.hpp"

namespace distsim::compare {

namespace {

//! The timeline's detail, or `none` for a rank none of whose communication has a known group (a
//! PyTorch profiler trace of a job without process-group metadata): then all is `collective`.
CommunicationDetail rank_detail(const Timeline& timeline, const RankTimeline& rank) {
  bool grouped = false;
  bool generic = false;
  for (const auto& activity : rank.activities) {
    grouped = grouped || (is_communication(activity.kind) && activity.kind != ActivityKind::collective);
    generic = generic || activity.kind == ActivityKind::collective;
  }
  return generic && !grouped ? CommunicationDetail::none : timeline.communication;
}

std::vector<Pass> passes_of(const RankTimeline& rank, SimTime origin, ActivityGranularity granularity,
                            CommunicationDetail detail) {
  return granularity == ActivityGranularity::passes ? group_passes(rank.activities, origin, detail)
                                                    : group_busy_spans(rank.activities, origin);
}

//! Walks both key-ordered pass lists together, summing |Δstart| and |Δend| of equal keys.
RankActivityError match(const std::vector<Pass>& predicted, const std::vector<Pass>& measured, SimTime iteration) {
  RankActivityError result;
  double start_sum = 0;
  double end_sum = 0;
  auto p = predicted.begin();
  auto m = measured.begin();
  while (p != predicted.end() || m != measured.end()) {
    if (m == measured.end() || (p != predicted.end() && p->key < m->key)) {
      ++result.predicted_only;
      ++p;
    } else if (p == predicted.end() || m->key < p->key) {
      ++result.measured_only;
      ++m;
    } else {
      ++result.matched;
      start_sum += static_cast<double>(std::llabs(p->start - m->start));
      end_sum += static_cast<double>(std::llabs(p->end - m->end));
      ++p;
      ++m;
    }
  }
  if (result.matched > 0) {
    const double scale = static_cast<double>(result.matched) * static_cast<double>(iteration);
    result.start_error = start_sum / scale;
    result.end_error = end_sum / scale;
    result.error = (result.start_error + result.end_error) / 2;
  }
  return result;
}

void average_over_ranks(ActivityErrors& errors) {
  for (const auto& rank : errors.ranks) {
    if (rank.matched == 0) {
      continue;
    }
    ++errors.ranks_with_matches;
    errors.mean_start_error += rank.start_error;
    errors.mean_end_error += rank.end_error;
    errors.mean_error += rank.error;
  }
  if (errors.ranks_with_matches > 0) {
    const auto count = static_cast<double>(errors.ranks_with_matches);
    errors.mean_start_error /= count;
    errors.mean_end_error /= count;
    errors.mean_error /= count;
  }
}

}  // namespace

std::string_view granularity_name(ActivityGranularity granularity) {
  return granularity == ActivityGranularity::passes ? "passes" : "busy spans";
}

ActivityErrors activity_errors(const Timeline& predicted, const Timeline& measured, const RankMapping& mapping) {
  ActivityErrors errors;
  errors.granularity = measured.pass_labels ? ActivityGranularity::passes : ActivityGranularity::busy_spans;
  for (const auto& pair : mapping.pairs) {
    const RankTimeline& measured_rank = *measured.find(pair.measured_rank);
    const RankTimeline& predicted_rank = *predicted.find(pair.predicted_rank);
    const CommunicationDetail detail = rank_detail(measured, measured_rank);
    auto result = match(passes_of(predicted_rank, predicted.begin, errors.granularity, detail),
                        passes_of(measured_rank, measured.begin, errors.granularity, detail), measured.iteration());
    result.measured_rank = pair.measured_rank;
    result.predicted_rank = pair.predicted_rank;
    errors.ranks.push_back(result);
  }
  average_over_ranks(errors);
  return errors;
}

}  // namespace distsim::compare
