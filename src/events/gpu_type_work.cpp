#include "events/gpu_type_work.hpp"

#include <unordered_map>

namespace distsim::events {

namespace {

//! Each event id of type 0 with its id on the other type, interned on first sight.
class TypedIds {
 public:
  TypedIds(EventTable& table, int gpu_type) : table_(table), gpu_type_(gpu_type) {}

  EventId operator()(EventId id) {
    if (table_.at(id).is_communication()) return id;
    const auto found = moved_.find(id);
    if (found != moved_.end()) return found->second;
    Event event = table_.at(id);
    event.gpu_type = gpu_type_;
    const EventId moved = table_.intern(std::move(event));
    moved_.emplace(id, moved);
    return moved;
  }

 private:
  EventTable& table_;
  int gpu_type_;
  std::unordered_map<EventId, EventId> moved_;
};

void move_templates(std::vector<TaskTemplate>& templates, TypedIds& typed) {
  for (auto& step : templates) step.event = typed(step.event);
}

}  // namespace

void run_on_gpu_type(RankWork& work, EventTable& table, int gpu_type) {
  if (gpu_type == 0) return;
  TypedIds typed(table, gpu_type);
  for (auto& chunk : work.chunks) {
    move_templates(chunk.forward, typed);
    move_templates(chunk.backward, typed);
    move_templates(chunk.backward_input, typed);
    move_templates(chunk.backward_weight, typed);
  }
  work.optimizer_step = typed(work.optimizer_step);
}

}  // namespace distsim::events
