"""Communication events through torch.distributed: which ranks form an event's group, and the
timed collective or point-to-point transfer."""

import torch
import torch.distributed as dist


def comm_dtype(num_bytes):
    """Keys give bytes, not a dtype: the widest element that divides the byte count. Gloo cannot
    sum bf16, so fp16 stands in for 2-byte elements (same bytes on the wire)."""
    if num_bytes % 4 == 0:
        return torch.float32
    if num_bytes % 2 == 0:
        return torch.float16
    return torch.uint8


def element_count(num_bytes):
    return num_bytes // torch.tensor([], dtype=comm_dtype(num_bytes)).element_size()


class GroupCache:
    """new_group must be called by every rank, in the same order, for every group: the cache
    creates them all up front from the sorted member lists."""

    def __init__(self, member_lists):
        self.groups = {}
        for members in sorted({tuple(m) for m in member_lists}):
            self.groups[members] = dist.new_group(list(members))

    def get(self, members):
        return self.groups[tuple(members)]


def build_operation(spec, members, rank, group, device):
    """The callable one member runs for one sample."""
    dtype = comm_dtype(spec.bytes)
    if spec.op == "send_recv":
        sender, receiver = members[0], members[1]
        buffer = torch.zeros(element_count(spec.bytes), dtype=dtype, device=device)
        if rank == sender:
            return lambda: dist.send(buffer, receiver)
        return lambda: dist.recv(buffer, sender)
    if spec.op == "ring_exchange":
        return _ring_exchange(members, rank, dtype, element_count(spec.bytes), device)
    if spec.op == "all_reduce":
        buffer = torch.ones(element_count(spec.bytes), dtype=dtype, device=device)
        return lambda: dist.all_reduce(buffer, group=group)
    if spec.op == "all_to_all":
        return _all_to_all(len(members), group, dtype, element_count(spec.bytes), device)
    # all-gather and reduce-scatter: `bytes` is the whole gathered buffer (docs/cost_models.md §4).
    shard = element_count(spec.bytes) // len(members)
    pieces = [torch.zeros(shard, dtype=dtype, device=device) for _ in members]
    local = torch.ones(shard, dtype=dtype, device=device)
    if spec.op == "all_gather":
        return lambda: dist.all_gather(pieces, local, group=group)
    return lambda: dist.reduce_scatter(local, pieces, group=group)


def _ring_exchange(members, rank, dtype, count, device):
    """Context parallelism's K/V rotation: every member sends its block to the next member and
    receives the previous member's at once, with isend/irecv as TransformerEngine's
    flash_attn_p2p_communicate does."""
    position = members.index(rank)
    successor = members[(position + 1) % len(members)]
    predecessor = members[(position - 1) % len(members)]
    outgoing = torch.ones(count, dtype=dtype, device=device)
    incoming = torch.zeros(count, dtype=dtype, device=device)

    def exchange():
        for request in (dist.isend(outgoing, successor), dist.irecv(incoming, predecessor)):
            request.wait()

    return exchange


def _all_to_all(size, group, dtype, count, device):
    """The MoE dispatch and combine: every member sends count / size elements to each member,
    itself included, in one all_to_all_single (Megatron-Core's alltoall token dispatcher). A count
    that does not divide drops the remainder, under one element per member."""
    per_member = count // size
    outgoing = torch.ones(per_member * size, dtype=dtype, device=device)
    incoming = torch.zeros(per_member * size, dtype=dtype, device=device)
    return lambda: dist.all_to_all_single(incoming, outgoing, group=group)


def sample_communication(operation, group, timer, warmup, repeats):
    """Each sample starts after a barrier of the group so that every member arrives together."""
    for _ in range(warmup):
        dist.barrier(group=group)
        operation()
    samples = []
    for _ in range(repeats):
        dist.barrier(group=group)
        timer.synchronize()
        samples.append(timer.time_ns(operation))
    return samples
