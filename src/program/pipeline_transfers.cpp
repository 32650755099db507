#include "program/pipeline_transfers.hpp"

#include <algorithm>
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

//! A point-to-point transfer starts when the sender has produced the tensor and the receiver
//! has reached the pass that needs it (DistSim's rule); the receiver's pass waits for it.
void add_transfer(ProgramDraft& draft, PipelinePasses& passes, const Transfer& transfer) {
  const auto& chunk = draft.work(transfer.sender).chunks[static_cast<size_t>(transfer.sender_chunk)];
  const events::EventId event = *(chunk.*(transfer.kind->event));
  TaskInfo info{event, transfer.sender_step->phase, transfer.microbatch, -1, transfer.kind->label};
  info.chunk = transfer.sender_chunk;
  const TaskId task = draft.add_task(event,
                                     {draft.stream(transfer.sender, transfer.kind->send_stream),
                                      draft.stream(transfer.receiver, transfer.kind->receive_stream)},
                                     info);
  draft.depend(task,
               passes.pass_of(transfer.sender, transfer.sender_step, transfer.sender_chunk, transfer.microbatch).last);
  PassTasks& target =
      passes.pass_of(transfer.receiver, transfer.receiver_step, transfer.receiver_chunk, transfer.microbatch);
  draft.depend(task, target.arrival);
  draft.depend(target.first, task);
}

//! The transfers `sender` makes towards the stage `direction` away (+1 next, −1 previous), in
//! the order its schedule runs the steps that produce them, which is also the order in which the
//! receiver consumes them. Chunk c of the last stage feeds chunk c + 1 of stage 0, and back.
std::vector<Transfer> transfers_from(const ProgramDraft& draft, int sender, int direction) {
  const auto& coord = draft.coord(sender);
  const int stages = draft.stages();
  const bool forward = direction > 0;
  const int peer_stage = (coord[ParallelDim::pp] + (forward ? 1 : stages - 1)) % stages;
  const bool wraps = forward ? coord[ParallelDim::pp] + 1 == stages : coord[ParallelDim::pp] == 0;
  const int receiver = draft.groups().on_stage(sender, peer_stage);
  const auto kinds = draft.schedule().step_kinds();
  std::vector<Transfer> transfers;
  for (const auto& step :
       draft.schedule().steps(coord[ParallelDim::pp], stages, draft.microbatches(), draft.chunks())) {
    const TransferKind* kind = step.kind->sends;
    const auto& chunk = draft.work(sender).chunks[static_cast<size_t>(step.chunk)];
    if (kind == nullptr || kind->direction != direction || !(chunk.*(kind->event))) {
      continue;
    }
    const int receiver_chunk = wraps ? step.chunk + direction : step.chunk;
    transfers.push_back({kind, step.kind, receiving_kind(draft, kinds, kind), sender, receiver, step.chunk,
                         receiver_chunk, step.microbatch});
  }
  return transfers;
}

}  // namespace

//! For each link between a stage and the next, the transfers forward and back, alternating, so
//! that each stream receives its transfers in execution order.
void add_pipeline_transfers(ProgramDraft& draft, PipelinePasses& passes) {
  const int stages = draft.stages();
  for (int device = 0; device < draft.num_devices(); ++device) {
    const auto& coord = draft.coord(device);
    if (stages == 1 || (coord[ParallelDim::pp] + 1 == stages && draft.chunks() == 1)) {
      continue;
    }
    const int next = draft.groups().on_stage(device, (coord[ParallelDim::pp] + 1) % stages);
    const auto downstream = transfers_from(draft, device, +1);
    const auto upstream = transfers_from(draft, next, -1);
    for (size_t i = 0; i < std::max(downstream.size(), upstream.size()); ++i) {
      if (i < downstream.size()) {
        add_transfer(draft, passes, downstream[i]);
      }
      if (i < upstream.size()) {
        add_transfer(draft, passes, upstream[i]);
      }
    }
  }
}

}  // namespace distsim::program
