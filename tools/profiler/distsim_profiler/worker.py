"""What each profiler process does: its share of the compute events, then every communication
event it is a member of; rank 0 gathers every rank's samples and returns them."""

import time

import torch
import torch.distributed as dist

from . import comm, ops
from .placement import group_members, unsupported_reason
from .keys import parse_key
from .timing import CacheFlusher, CpuTimer, CudaTimer, sample


def _device_and_timer(placement, use_cuda):
    if use_cuda:
        device = torch.device("cuda", placement.local_rank)
        torch.cuda.set_device(device)
        return device, CudaTimer(device)
    return torch.device("cpu"), CpuTimer()


def _measure_compute(spec, payload, context, timer, flush):
    try:
        run, _, note = ops.build(spec, context)
        samples = sample(run, timer, payload["warmup"], payload["repeats"], payload["budget"], flush)
        return {"samples": samples, "note": note}
    except ops.NotMeasurable as error:
        return {"skipped": str(error)}
    except (RuntimeError, MemoryError) as error:
        reason = str(error).splitlines()[0]
    # The failed event's tensors are gone with the exception: give their memory back, so that a
    # GPU's next event does not run out of memory because of this one.
    if context.device.type == "cuda":
        torch.cuda.empty_cache()
    return {"skipped": "failed: %s" % reason}


def _compute_share(specs, placement, serial):
    if serial:
        return specs if placement.rank == 0 else []
    return [spec for index, spec in enumerate(specs) if index % placement.world_size == placement.rank]


def _measure_communication(specs, placement, payload, device, timer, backend):
    results = {}
    placed = []
    for spec in specs:
        members, reason = group_members(spec, placement)
        reason = reason or unsupported_reason(spec, backend)
        if reason:
            results[spec.key] = {"skipped": reason}
        else:
            placed.append((spec, members))
    groups = comm.GroupCache([members for _, members in placed])
    for spec, members in placed:
        if placement.rank not in members:
            continue
        group = groups.get(members)
        operation = comm.build_operation(spec, members, placement.rank, group, device)
        samples = comm.sample_communication(operation, group, timer, payload["warmup"], payload["repeats"])
        results[spec.key] = {"samples": samples}
    return results


def profile_worker(placement, payload):
    """On rank 0: (every rank's results, wall seconds of the measuring, world size); None elsewhere."""
    device, timer = _device_and_timer(placement, payload["use_cuda"])
    specs = [parse_key(key) for key in payload["keys"]]
    context = ops.BuildContext(device, payload["embedding_rows"])
    flush = CacheFlusher(payload["flush_mb"], device)
    dist.barrier()
    started = time.perf_counter()
    results = {}
    for spec in _compute_share([s for s in specs if not s.is_communication], placement, payload["serial_compute"]):
        context.embedding_reads = payload["embedding_reads"].get(spec.key)
        results[spec.key] = _measure_compute(spec, payload, context, timer, flush)
    # Communication starts once every process has finished computing, so neither disturbs the other.
    dist.barrier()
    backend = dist.get_backend()
    results.update(_measure_communication([s for s in specs if s.is_communication], placement, payload, device,
                                          timer, backend))
    per_rank = [None] * placement.world_size
    dist.all_gather_object(per_rank, results)
    if placement.rank == 0:
        return per_rank, time.perf_counter() - started, placement.world_size
    return None
