"""Running a stage's schedule: forward and backward passes with the point-to-point transfers
between stages. As in Megatron-LM's p2p_communication, the send that follows a step and the
receive that the next step needs are posted together and then awaited, which keeps two stages
that both send (1F1B's steady state) from waiting on each other."""

import torch
import torch.distributed as dist


class Transfer:
    """One side of a point-to-point transfer: what, with whom, and how the timeline names it."""

    def __init__(self, peer, kind, name, phase, microbatch, tensor):
        self.peer = peer
        self.kind = kind
        self.name = name
        self.phase = phase
        self.microbatch = microbatch
        self.tensor = tensor


def exchange(transfers, recorder):
    """Posts every transfer at once, then waits for each in order; records each as an activity
    from when it was posted to when it completed."""
    posted = []
    for transfer in transfers:
        extra = {"bytes": transfer.tensor.numel() * transfer.tensor.element_size(), "peer": transfer.peer}
        token = recorder.started(transfer.kind, transfer.name, transfer.phase, transfer.microbatch, extra)
        post = dist.isend if transfer.kind.startswith("pp_send") else dist.irecv
        posted.append((token, post(transfer.tensor, transfer.peer)))
    for token, handle in posted:
        recorder.finish(token, handle.wait)


class PipelineRunner:
    """Runs one stage's steps; `stage_step` does the compute of a step."""

    def __init__(self, job, coord, previous_rank, next_rank, activation_shape, dtype, device, recorder):
        self.first = coord.pp == 0
        self.last = coord.pp == job.pp - 1
        self.previous_rank = previous_rank
        self.next_rank = next_rank
        self.activation_shape = activation_shape
        self.dtype = dtype
        self.device = device
        self.recorder = recorder

    def _receive_for(self, step):
        phase, microbatch = step
        buffer = torch.empty(self.activation_shape, dtype=self.dtype, device=self.device)
        if phase == "fwd" and not self.first:
            return Transfer(self.previous_rank, "pp_recv_prev", "recv activation", "fwd", microbatch, buffer)
        if phase == "bwd" and not self.last:
            return Transfer(self.next_rank, "pp_recv_next", "recv gradient", "bwd", microbatch, buffer)
        return None

    def _send_after(self, step, produced):
        phase, microbatch = step
        if phase == "fwd" and not self.last:
            return Transfer(self.next_rank, "pp_send_next", "send activation", "fwd", microbatch, produced)
        if phase == "bwd" and not self.first:
            return Transfer(self.previous_rank, "pp_send_prev", "send gradient", "bwd", microbatch, produced)
        return None

    def run(self, steps, stage_step):
        """stage_step(step, received tensor or None) → the tensor to send on, or None."""
        receive = self._receive_for(steps[0]) if steps else None
        exchange([t for t in (receive,) if t], self.recorder)
        for index, step in enumerate(steps):
            produced = stage_step(step, receive.tensor if receive else None)
            send = self._send_after(step, produced)
            receive = self._receive_for(steps[index + 1]) if index + 1 < len(steps) else None
            exchange([t for t in (send, receive) if t], self.recorder)
