#include "compare/order_labels.hpp"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

#include "compare/pass_grouping.hpp"

namespace distsim::compare {

namespace {

using KindPhase = std::pair<ActivityKind, events::Phase>;

//! The micro-batches of the predicted rank's passes, per kind and phase, in start order.
std::map<KindPhase, std::vector<int>> predicted_order(const RankTimeline& rank, CommunicationDetail detail) {
  auto passes = group_passes(rank.activities, 0, detail);
  std::stable_sort(passes.begin(), passes.end(),
                   [](const Pass& a, const Pass& b) { return std::tie(a.start, a.end) < std::tie(b.start, b.end); });
  std::map<KindPhase, std::vector<int>> order;
  for (const auto& pass : passes) {
    if (pass.key.phase && pass.key.microbatch >= 0)
      order[{pass.key.kind, *pass.key.phase}].push_back(pass.key.microbatch);
  }
  return order;
}

//! The measured rank's micro-batch numbers, per kind and phase, in the order they first start.
std::map<KindPhase, std::vector<int>> measured_order(const RankTimeline& rank, CommunicationDetail detail) {
  std::map<KindPhase, std::vector<int>> order;
  for (const auto& activity : rank.activities) {
    if (!activity.phase || !activity.microbatch_by_order) continue;
    auto& numbers = order[{compared_kind(activity.kind, detail), *activity.phase}];
    if (std::find(numbers.begin(), numbers.end(), activity.microbatch) == numbers.end()) {
      numbers.push_back(activity.microbatch);
    }
  }
  return order;
}

void relabel_rank(RankTimeline& measured, const RankTimeline& predicted, CommunicationDetail detail) {
  const auto target = predicted_order(predicted, detail);
  std::map<std::pair<KindPhase, int>, int> renumbered;
  for (const auto& [kind_phase, numbers] : measured_order(measured, detail)) {
    const auto found = target.find(kind_phase);
    if (found == target.end() || found->second.size() != numbers.size()) continue;
    for (std::size_t k = 0; k < numbers.size(); ++k) renumbered[{kind_phase, numbers[k]}] = found->second[k];
  }
  for (auto& activity : measured.activities) {
    if (!activity.phase || !activity.microbatch_by_order) continue;
    const auto found = renumbered.find({{compared_kind(activity.kind, detail), *activity.phase}, activity.microbatch});
    if (found != renumbered.end()) activity.microbatch = found->second;
  }
}

}  // namespace

Timeline relabel_by_predicted_order(const Timeline& predicted, Timeline measured, const RankMapping& mapping) {
  if (!measured.microbatches_by_order) return measured;
  for (const auto& pair : mapping.pairs) {
    auto rank = std::find_if(measured.ranks.begin(), measured.ranks.end(),
                             [&pair](const RankTimeline& r) { return r.rank == pair.measured_rank; });
    if (rank != measured.ranks.end()) relabel_rank(*rank, *predicted.find(pair.predicted_rank), measured.communication);
  }
  return measured;
}

}  // namespace distsim::compare
