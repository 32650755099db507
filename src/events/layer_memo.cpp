#include "events/layer_memo.hpp"

namespace distsim::events {

namespace {

//! `index` (-1: none) moved from counting from `from` to counting from `to`.
int moved(int index, std::size_t from, std::size_t to) {
  return index < 0 ? -1 : index - static_cast<int>(from) + static_cast<int>(to);
}

//! A recorded template's wait that the layer took from the pass before it.
constexpr int kPendingWait = -2;

}  // namespace

std::optional<RecordedLayer> RecordedLayer::record(const std::vector<TaskTemplate>& list, std::size_t start, int layer,
                                                   PendingWaits before, int input, int parameters) {
  const auto inside = [start](int index) { return index < 0 || static_cast<std::size_t>(index) >= start; };
  if (parameters >= 0 || !inside(input)) return std::nullopt;
  RecordedLayer recorded{{list.begin() + static_cast<std::ptrdiff_t>(start), list.end()}, moved(input, start, 0)};
  // A wait the layer took from the pass before it is marked; any other before `start` refuses.
  const auto relative = [&](int& index, int pending) {
    if (pending >= 0 && index == pending) {
      index = kPendingWait;
      return true;
    }
    if (!inside(index)) return false;
    index = moved(index, start, 0);
    return true;
  };
  for (TaskTemplate& step : recorded.templates) {
    if (step.layer != layer || !relative(step.waits_for, before.input) ||
        !relative(step.waits_for_parameters, before.parameters)) {
      return std::nullopt;
    }
  }
  return recorded;
}

int RecordedLayer::append_to(std::vector<TaskTemplate>& list, int layer, PendingWaits before) const {
  const std::size_t start = list.size();
  for (TaskTemplate step : templates) {
    step.layer = layer;
    step.waits_for = step.waits_for == kPendingWait ? before.input : moved(step.waits_for, 0, start);
    step.waits_for_parameters =
        step.waits_for_parameters == kPendingWait ? before.parameters : moved(step.waits_for_parameters, 0, start);
    list.push_back(step);
  }
  return moved(input_after, 0, start);
}

const RecordedLayer* LayerMemo::find(const LayerGroups& groups, LayerPass pass, const LayerShape& shape,
                                     PendingWaits pending) const {
  for (const Entry& entry : entries_) {
    if (entry.pass == pass && entry.shape == shape && entry.pending == pending.kinds() && entry.groups == groups) {
      return &entry.layer;
    }
  }
  return nullptr;
}

void LayerMemo::add(const LayerGroups& groups, LayerPass pass, const LayerShape& shape, PendingWaits pending,
                    RecordedLayer layer) {
  entries_.push_back({groups, pass, shape, pending.kinds(), std::move(layer)});
}

}  // namespace distsim::events
