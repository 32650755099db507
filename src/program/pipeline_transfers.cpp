#include "program/pipeline_transfers.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "core/input_error.hpp"

namespace distsim::program {

using engine::TaskId;
using schedule::StepKind;
using schedule::TransferKind;
using strategy::ParallelDim;

namespace {

//! One pipeline transfer: which step of the sender produces the tensor, and which step of the
//! receiver waits for it.
struct Transfer {
  const TransferKind* kind = nullptr;
  StepKind sender_step;
  StepKind receiver_step;
  int sender = 0;
  int receiver = 0;
  int sender_chunk = 0;
  int receiver_chunk = 0;
  int microbatch = 0;
  bool downstream = true;  //!< travels from stage s to stage s + 1 (mod p)
  size_t consumed_at = 0;  //!< index of the receiving step in the receiver's step order
};

//! The step kind of the schedule that waits for transfers of `kind`.
StepKind receiving_kind(const ProgramDraft& draft, const std::vector<StepKind>& kinds, const TransferKind* kind) {
  for (const StepKind step : kinds) {
    if (step->receives == kind) {
      return step;
    }
  }
  throw InternalError("schedule '" + std::string(draft.schedule().name()) + "' sends '" + std::string(kind->label) +
                      "' but no step of it receives it");
}

//! For each chunk of a stage, the chunk that its transfers go to and which way they travel:
//! activations follow the schedule's hop to the next chunk, gradients go back along the hop from
//! the previous. Found once per stage, not once per step.
class StageHops {
 public:
  StageHops(const ProgramDraft& draft, int stage) {
    const schedule::ChunkHops& hops = draft.chunk_hops();
    for (int chunk = 0; chunk < draft.chunks(); ++chunk) {
      const std::size_t slot = schedule::hop_index({stage, chunk}, draft.chunks());
      next_.push_back(hops.next[slot]);
      auto hop = hops.previous[slot];
      if (hop) hop->downstream = !hop->downstream;
      previous_.push_back(hop);
    }
  }
  const std::optional<schedule::ChunkHop>& of(const TransferKind& kind, int chunk) const {
    return (kind.direction > 0 ? next_ : previous_)[static_cast<size_t>(chunk)];
  }

 private:
  std::vector<std::optional<schedule::ChunkHop>> next_;
  std::vector<std::optional<schedule::ChunkHop>> previous_;
};

//! The steps of a stage in order, and where each sits in that order by (kind, chunk, micro-batch).
class StepOrder {
 public:
  StepOrder(const ProgramDraft& draft, int stage)
      : kinds_(draft.schedule().step_kinds()),
        microbatches_(static_cast<size_t>(draft.microbatches())),
        steps_(draft.stage_steps(stage)),
        index_(kinds_.size() * microbatches_ * static_cast<size_t>(draft.chunks())) {
    for (size_t i = 0; i < steps_.size(); ++i) {
      index_[slot(steps_[i].kind, steps_[i].chunk, steps_[i].microbatch)] = i;
    }
  }
  const std::vector<schedule::Step>& steps() const { return steps_; }
  size_t index_of(StepKind kind, int chunk, int microbatch) const { return index_[slot(kind, chunk, microbatch)]; }

 private:
  size_t slot(StepKind kind, int chunk, int microbatch) const {
    const auto kind_index = static_cast<size_t>(std::find(kinds_.begin(), kinds_.end(), kind) - kinds_.begin());
    return (static_cast<size_t>(chunk) * microbatches_ + static_cast<size_t>(microbatch)) * kinds_.size() + kind_index;
  }

  std::vector<StepKind> kinds_;
  size_t microbatches_;
  const std::vector<schedule::Step>& steps_;
  std::vector<size_t> index_;
};

//! Each stage's StepOrder, built when first asked for.
class StepOrders {
 public:
  explicit StepOrders(const ProgramDraft& draft) : draft_(draft), orders_(static_cast<size_t>(draft.stages())) {}
  const StepOrder& of_device(int device) {
    const int stage = draft_.coord(device)[ParallelDim::pp];
    auto& order = orders_[static_cast<size_t>(stage)];
    if (!order) order.emplace(draft_, stage);
    return *order;
  }

 private:
  const ProgramDraft& draft_;
  std::vector<std::optional<StepOrder>> orders_;
};

//! A point-to-point transfer starts when the sender has produced the tensor and the receiver
//! has reached the pass that needs it (DistSim's rule); the receiver's pass waits for it. It runs
//! on the streams of the way it travels.
void add_transfer(ProgramDraft& draft, PipelinePasses& passes, const Transfer& transfer) {
  const auto& chunk = draft.work(transfer.sender).chunks[static_cast<size_t>(transfer.sender_chunk)];
  const events::EventId event = *(chunk.*(transfer.kind->event));
  TaskInfo info{event, transfer.sender_step->phase, transfer.microbatch, -1, transfer.kind->label};
  info.chunk = transfer.sender_chunk;
  const auto send = transfer.downstream ? events::StreamKind::pp_send_next : events::StreamKind::pp_send_prev;
  const auto receive = transfer.downstream ? events::StreamKind::pp_recv_prev : events::StreamKind::pp_recv_next;
  const std::array<engine::StreamId, 2> streams{draft.stream(transfer.sender, send),
                                                draft.stream(transfer.receiver, receive)};
  const TaskId task = draft.add_task(event, streams, info);
  draft.depend(task,
               passes.pass_of(transfer.sender, transfer.sender_step, transfer.sender_chunk, transfer.microbatch).last);
  PassTasks& target =
      passes.pass_of(transfer.receiver, transfer.receiver_step, transfer.receiver_chunk, transfer.microbatch);
  draft.depend(task, target.arrival);
  draft.depend(target.first, task);
}

//! The transfers `sender` makes that travel `downstream` (or upstream) to another stage, in the
//! order the receiver consumes them: each link's streams run their transfers in that order. (A
//! schedule whose stages each run one kind of step on one chunk in micro-batch order produces
//! them in that order too.)
std::vector<Transfer> transfers_from(const ProgramDraft& draft, StepOrders& orders, int sender, bool downstream) {
  const int stage = draft.coord(sender)[ParallelDim::pp];
  const auto kinds = draft.schedule().step_kinds();
  std::vector<Transfer> transfers;
  const StepOrder* receiver_order = nullptr;
  const StepOrder& sender_order = orders.of_device(sender);
  const StageHops hops(draft, stage);
  std::vector<int> receivers(static_cast<size_t>(draft.stages()), -1);  // by stage, found when first needed
  for (const auto& step : sender_order.steps()) {
    const TransferKind* kind = step.kind->sends;
    const auto& chunk = draft.work(sender).chunks[static_cast<size_t>(step.chunk)];
    if (kind == nullptr || !(chunk.*(kind->event))) {
      continue;
    }
    const auto& hop = hops.of(*kind, step.chunk);
    if (!hop || hop->peer.stage == stage || hop->downstream != downstream) {
      continue;
    }
    int& receiver = receivers[static_cast<size_t>(hop->peer.stage)];
    if (receiver < 0) receiver = draft.groups().on_stage(sender, hop->peer.stage);
    if (receiver_order == nullptr) {
      receiver_order = &orders.of_device(receiver);
    }
    const StepKind receiver_step = receiving_kind(draft, kinds, kind);
    transfers.push_back({kind, step.kind, receiver_step, sender, receiver, step.chunk, hop->peer.chunk, step.microbatch,
                         downstream, receiver_order->index_of(receiver_step, hop->peer.chunk, step.microbatch)});
  }
  const auto consumed_earlier = [](const Transfer& a, const Transfer& b) { return a.consumed_at < b.consumed_at; };
  // Most schedules produce them in order already; the check is cheaper than the sort's buffer.
  if (!std::is_sorted(transfers.begin(), transfers.end(), consumed_earlier)) {
    std::stable_sort(transfers.begin(), transfers.end(), consumed_earlier);
  }
  return transfers;
}

//! A hand-off between two chunks of the same stage moves no data: the receiving step waits for the
//! sending step.
void add_local_hand_offs(ProgramDraft& draft, PipelinePasses& passes, int device) {
  const int stage = draft.coord(device)[ParallelDim::pp];
  const auto kinds = draft.schedule().step_kinds();
  const StageHops hops(draft, stage);
  for (const auto& step : draft.stage_steps(stage)) {
    const TransferKind* kind = step.kind->sends;
    if (kind == nullptr) {
      continue;
    }
    const auto& hop = hops.of(*kind, step.chunk);
    if (!hop || hop->peer.stage != stage) {
      continue;
    }
    const TaskId produced = passes.pass_of(device, step.kind, step.chunk, step.microbatch).last;
    PassTasks& target = passes.pass_of(device, receiving_kind(draft, kinds, kind), hop->peer.chunk, step.microbatch);
    draft.depend(target.first, produced);
  }
}

}  // namespace

//! For each link between a stage and the next, the transfers down and up, alternating, so that
//! each stream receives its transfers in execution order; then the hand-offs inside a stage.
void add_pipeline_transfers(ProgramDraft& draft, PipelinePasses& passes) {
  const int stages = draft.stages();
  StepOrders orders(draft);
  for (int device = 0; device < draft.num_devices(); ++device) {
    const auto& coord = draft.coord(device);
    if (stages == 1 || (coord[ParallelDim::pp] + 1 == stages && draft.chunks() == 1)) {
      continue;
    }
    const int next = draft.groups().on_stage(device, (coord[ParallelDim::pp] + 1) % stages);
    const auto downstream = transfers_from(draft, orders, device, true);
    const auto upstream = transfers_from(draft, orders, next, false);
    for (size_t i = 0; i < std::max(downstream.size(), upstream.size()); ++i) {
      if (i < downstream.size()) {
        add_transfer(draft, passes, downstream[i]);
      }
      if (i < upstream.size()) {
        add_transfer(draft, passes, upstream[i]);
      }
    }
  }
  for (int device = 0; device < draft.num_devices(); ++device) {
    add_local_hand_offs(draft, passes, device);
  }
}

}  // namespace distsim::program
