#include "events/layer_memo.hpp"

namespace distsim::events {

const RecordedLayer* LayerMemo::find(const LayerGroups& groups, LayerPass pass, const LayerShape& shape) const {
  for (const Entry& entry : entries_) {
    if (entry.pass == pass && entry.shape == shape && entry.groups == groups) return &entry.layer;
  }
  return nullptr;
}

void LayerMemo::add(const LayerGroups& groups, LayerPass pass, const LayerShape& shape, RecordedLayer layer) {
  entries_.push_back({groups, pass, shape, std::move(layer)});
}

}  // namespace distsim::events
