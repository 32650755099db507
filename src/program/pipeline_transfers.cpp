#include "program/pipeline_transfers.hpp"

#include <algorithm>
#include <vector>

namespace distsim::program {

using engine::TaskId;
using events::Phase;
using events::StreamKind;
using strategy::ParallelDim;
using schedule::StepKind;

namespace {

//! One pipeline transfer: who sends which pass's tensor to whom.
struct Transfer {
  int sender = 0;
  int receiver = 0;
  int sender_chunk = 0;
  int receiver_chunk = 0;
  int microbatch = 0;
};

//! A point-to-point transfer starts when the sender has produced the tensor and the receiver
//! has reached the pass that needs it (DistSim's rule); the receiver's pass waits for it.
void add_transfer(ProgramDraft& draft, PipelinePasses& passes, const Transfer& transfer, events::EventId event,
                  StepKind kind) {
  const bool forward = kind == StepKind::forward;
  TaskInfo info{event, forward ? Phase::forward : Phase::backward, transfer.microbatch, -1,
                forward ? "send activation" : "send gradient"};
  info.chunk = transfer.sender_chunk;
  const StreamKind send = forward ? StreamKind::pp_send_next : StreamKind::pp_send_prev;
  const StreamKind receive = forward ? StreamKind::pp_recv_prev : StreamKind::pp_recv_next;
  const TaskId task =
      draft.add_task(event, {draft.stream(transfer.sender, send), draft.stream(transfer.receiver, receive)}, info);
  draft.depend(task, passes.pass_of(transfer.sender, kind, transfer.sender_chunk, transfer.microbatch).last);
  PassTasks& target = passes.pass_of(transfer.receiver, kind, transfer.receiver_chunk, transfer.microbatch);
  draft.depend(task, target.arrival);
  draft.depend(target.first, task);
}

//! The transfers `sender` makes in direction `kind`, in the order its schedule runs the passes
//! that produce them, which is also the order in which the receiver consumes them. Chunk c
//! of the last stage feeds chunk c + 1 of stage 0, and back.
std::vector<Transfer> transfers_from(const ProgramDraft& draft, int sender, StepKind kind) {
  const int stage = draft.coord(sender)[ParallelDim::pp];
  const int stages = draft.stages();
  const bool forward = kind == StepKind::forward;
  const int peer_stage = (stage + (forward ? 1 : stages - 1)) % stages;
  const bool wraps = forward ? stage + 1 == stages : stage == 0;
  const int receiver = draft.groups().on_stage(sender, peer_stage);
  std::vector<Transfer> transfers;
  for (const auto& step : draft.schedule().steps(stage, stages, draft.microbatches(), draft.chunks())) {
    const auto& chunk = draft.work(sender).chunks[static_cast<size_t>(step.chunk)];
    if (step.kind != kind || !(forward ? chunk.send_activation : chunk.send_gradient)) {
      continue;
    }
    const int receiver_chunk = wraps ? step.chunk + (forward ? 1 : -1) : step.chunk;
    transfers.push_back({sender, receiver, step.chunk, receiver_chunk, step.microbatch});
  }
  return transfers;
}

}  // namespace

//! For each link between a stage and the next, its activations forward and gradients back,
//! alternating, so that each stream receives its transfers in execution order.
void add_pipeline_transfers(ProgramDraft& draft, PipelinePasses& passes) {
  const int stages = draft.stages();
  for (int device = 0; device < draft.num_devices(); ++device) {
    const auto& coord = draft.coord(device);
    if (stages == 1 || (coord[ParallelDim::pp] + 1 == stages && draft.chunks() == 1)) {
      continue;
    }
    const int next = draft.groups().on_stage(device, (coord[ParallelDim::pp] + 1) % stages);
    const auto activations = transfers_from(draft, device, StepKind::forward);
    const auto gradients = transfers_from(draft, next, StepKind::backward);
    for (size_t i = 0; i < std::max(activations.size(), gradients.size()); ++i) {
      if (i < activations.size()) {
        const auto& chunk = draft.work(device).chunks[static_cast<size_t>(activations[i].sender_chunk)];
        add_transfer(draft, passes, activations[i], *chunk.send_activation, StepKind::forward);
      }
      if (i < gradients.size()) {
        const auto& chunk = draft.work(next).chunks[static_cast<size_t>(gradients[i].sender_chunk)];
        add_transfer(draft, passes, gradients[i], *chunk.send_gradient, StepKind::backward);
      }
    }
  }
}

}  // namespace distsim::program
