#include "compare/pass_grouping.hpp"

#include <algorithm>
#include <map>
#include <tuple>

namespace distsim::compare {

namespace {

std::vector<const Activity*> of_kind_in_start_order(const std::vector<Activity>& activities, ActivityKind kind,
                                                    CommunicationDetail detail) {
  std::vector<const Activity*> result;
  for (const auto& activity : activities) {
    if (compared_kind(activity.kind, detail) == kind) {
      result.push_back(&activity);
    }
  }
  std::stable_sort(result.begin(), result.end(), [](const Activity* a, const Activity* b) {
    return std::tie(a->start, a->end) < std::tie(b->start, b->end);
  });
  return result;
}

void append_runs(std::vector<Pass>& passes, const std::vector<const Activity*>& ordered, ActivityKind kind,
                 SimTime origin) {
  std::map<std::pair<std::optional<events::Phase>, int>, int> seen;
  for (std::size_t i = 0; i < ordered.size();) {
    const Activity& first = *ordered[i];
    Pass pass{{kind, first.phase, first.microbatch, seen[{first.phase, first.microbatch}]++},
              first.start - origin,
              first.end - origin};
    for (; i < ordered.size() && ordered[i]->phase == first.phase && ordered[i]->microbatch == first.microbatch; ++i) {
      pass.end = std::max(pass.end, ordered[i]->end - origin);
    }
    passes.push_back(pass);
  }
}

}  // namespace

std::vector<Pass> group_passes(const std::vector<Activity>& activities, SimTime origin, CommunicationDetail detail) {
  std::vector<Pass> passes;
  for (int k = 0; k < kActivityKinds; ++k) {
    const auto kind = static_cast<ActivityKind>(k);
    append_runs(passes, of_kind_in_start_order(activities, kind, detail), kind, origin);
  }
  std::sort(passes.begin(), passes.end(), [](const Pass& a, const Pass& b) { return a.key < b.key; });
  return passes;
}

std::vector<Pass> group_busy_spans(const std::vector<Activity>& activities, SimTime origin) {
  std::vector<Pass> spans;
  for (const auto kind : {ActivityKind::compute, ActivityKind::collective}) {
    const auto ordered = of_kind_in_start_order(activities, kind, CommunicationDetail::none);
    if (ordered.empty()) {
      continue;
    }
    Pass span{{kind, std::nullopt, -1, 0}, ordered.front()->start - origin, ordered.front()->end - origin};
    for (const Activity* activity : ordered) {
      span.end = std::max(span.end, activity->end - origin);
    }
    spans.push_back(span);
  }
  return spans;
}

}  // namespace distsim::compare
