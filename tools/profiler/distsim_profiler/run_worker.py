"""What each runner process does: build its stage, run warm-up and timed iterations, and record
its trace (the timed iteration with the median time, the same one on every rank); rank 0
gathers every rank's trace and returns them with the iteration times and losses."""

import socket
import time

import torch
import torch.distributed as dist

from . import kernels
from .jobspec import BUCKET_MIN_PARAMS, RankCoord, rank_of, schedule_steps
from .model import Stage
from .parallel import Communicator, Groups, ParallelContext
from .pipeline import PipelineRunner
from .stats import median_index
from .timeline import Recorder, chrome_trace, microseconds


class MixedPrecisionOptimizer:
    """Adam on one flat fp32 copy of the stage's parameters (Megatron's fp32 main weights and
    main gradients): gradients are gathered into it, reduced, stepped, and copied back."""

    def __init__(self, parameters):
        self.parameters = parameters
        total = sum(p.numel() for p in parameters)
        device = parameters[0].device
        self.master = torch.nn.Parameter(torch.empty(total, dtype=torch.float32, device=device))
        self.master.grad = torch.zeros(total, dtype=torch.float32, device=device)
        self.views = []
        offset = 0
        with torch.no_grad():
            for parameter in parameters:
                self.views.append((offset, parameter.numel()))
                self.master[offset:offset + parameter.numel()].copy_(parameter.reshape(-1))
                offset += parameter.numel()
        self.adam = kernels.new_adam([self.master])

    def grad_of(self, parameter):
        offset, size = self.views[next(i for i, p in enumerate(self.parameters) if p is parameter)]
        return self.master.grad[offset:offset + size]

    def gather_gradients(self):
        for parameter, (offset, size) in zip(self.parameters, self.views):
            target = self.master.grad[offset:offset + size]
            if parameter.grad is None:
                target.zero_()
            else:
                target.copy_(parameter.grad.reshape(-1))

    def buckets(self, bucket_params):
        grad = self.master.grad
        return [grad[start:start + bucket_params] for start in range(0, grad.numel(), bucket_params)]

    def step(self, grad_scale):
        if grad_scale != 1:
            self.master.grad.mul_(grad_scale)
        self.adam.step()
        with torch.no_grad():
            for parameter, (offset, size) in zip(self.parameters, self.views):
                parameter.copy_(self.master[offset:offset + size].view_as(parameter))


def make_batches(job, coord, device):
    """Random token ids and targets per micro-batch, seeded by the micro-batch's index in the
    global batch: the same on every stage and tensor rank of a replica, and the same global
    batch whatever the data-parallel size."""
    batches = []
    for microbatch in range(job.num_microbatches):
        generator = torch.Generator().manual_seed(coord.dp * job.num_microbatches + microbatch)
        shape = (job.micro_batch_size, job.model.seq_length)
        ids = torch.randint(0, job.model.vocab_size, shape, generator=generator)
        targets = torch.randint(0, job.model.vocab_size, shape, generator=generator)
        batches.append((ids.to(device), targets.to(device)))
    return batches


class RankRun:
    def __init__(self, job, placement, device, backend, dropout):
        self.job = job
        self.device = device
        self.rank = placement.rank
        self.coord = coord = RankCoord(job, placement.rank)
        self.dtype = torch.bfloat16 if job.dtype == "bf16" else torch.float32
        self.recorder = Recorder(torch.cuda.synchronize if device.type == "cuda" else None)
        self.groups = Groups(job, coord)
        self.parallel = ParallelContext(job, coord, self.groups, Communicator(self.recorder, backend))
        self.stage = Stage(job, coord, self.dtype, device, dropout)
        self.loss = 0.0
        self.optimizer = MixedPrecisionOptimizer(self.stage.parameters)
        self.batches = make_batches(job, coord, device)
        previous_rank = rank_of(job, coord.tp, coord.dp, coord.pp - 1) if coord.pp > 0 else None
        next_rank = rank_of(job, coord.tp, coord.dp, coord.pp + 1) if coord.pp + 1 < job.pp else None
        tokens = job.micro_batch_size * job.model.seq_length
        self.pipeline = PipelineRunner(job, coord, previous_rank, next_rank, (tokens, job.model.hidden_size),
                                       self.dtype, device, self.recorder)
        self.steps = schedule_steps(job.schedule, coord.pp, job.pp, job.num_microbatches)

    def _step(self, step, received, saved):
        phase, microbatch = step
        stage, parallel = self.stage, self.parallel
        if phase == "fwd":
            self.recorder.begin_pass("forward", "fwd", microbatch)
            ids, targets = self.batches[microbatch]
            x = stage.embed(ids, parallel) if stage.first else received.requires_grad_()
            y = stage.forward(x, self.job.micro_batch_size, parallel)
            if stage.last:
                y = stage.loss(y, targets, parallel)
                self.loss += float(y.detach())
            saved[microbatch] = (x, y)
            self.recorder.end_pass()
            return None if stage.last else y.detach()
        self.recorder.begin_pass("backward", "bwd", microbatch)
        x, y = saved.pop(microbatch)
        if stage.last:
            y.backward()
        else:
            y.backward(received)
        self.recorder.end_pass()
        return None if stage.first else x.grad.contiguous()

    def iteration(self):
        for parameter in self.stage.parameters:
            parameter.grad = None
        saved = {}
        self.loss = 0.0
        self.pipeline.run(self.steps, lambda step, received: self._step(step, received, saved))
        self.recorder.compute("gradient copy", self.optimizer.gather_gradients, "bwd")
        comm = self.parallel.comm
        if self.job.dp > 1:
            bucket_params = max(BUCKET_MIN_PARAMS, 1_000_000 * self.job.dp)
            for bucket in self.optimizer.buckets(bucket_params):
                comm.all_reduce(bucket, self.groups.data, "dp_comm", "dp gradient all_reduce", phase="bwd")
        table = self.stage.embedding_table()
        if table is not None:
            comm.all_reduce(self.optimizer.grad_of(table), self.groups.embedding, "dp_comm", "embedding all_reduce",
                            phase="bwd")
        self.recorder.compute("optimizer step", lambda: self.optimizer.step(1.0 / self.job.dp), "optim")


def _same_host(world_size):
    names = [None] * world_size
    dist.all_gather_object(names, socket.gethostname())
    return len(set(names)) == 1


def _timed_iteration(run, world_size, same_host):
    """(activities, origin ns, iteration ns, this rank's end ns). With one host, every rank shares
    CLOCK_MONOTONIC, so the iteration starts when the first rank leaves the barrier; across hosts
    each rank counts from its own exit."""
    run.recorder.reset()
    dist.barrier()
    start = time.perf_counter_ns()
    run.iteration()
    end = time.perf_counter_ns()
    both = torch.tensor([start, end], dtype=torch.int64, device=run.device)
    gathered = [torch.zeros(2, dtype=torch.int64, device=run.device) for _ in range(world_size)]
    dist.all_gather(gathered, both)
    starts = [int(t[0]) for t in gathered]
    ends = [int(t[1]) for t in gathered]
    if same_host:
        origin = min(starts)
        return list(run.recorder.activities), origin, max(ends) - origin, end - origin
    return list(run.recorder.activities), start, max(e - s for s, e in zip(starts, ends)), end - start


def _global_loss(run, world_size):
    """The iteration's loss: its last stage's micro-batch losses, averaged over the replicas
    (untimed; every rank learns it)."""
    last_stage_losses = [None] * world_size
    dist.all_gather_object(last_stage_losses, run.loss if run.stage.last and run.coord.tp == 0 else None)
    values = [loss for loss in last_stage_losses if loss is not None]
    return sum(values) / len(values)


def _device_name(device):
    return torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu"


def run_worker(placement, payload):
    """On rank 0: every rank's trace document, the timed iterations' times and losses, the wall time."""
    job = payload["job"]
    started = time.perf_counter()
    device = torch.device("cpu")
    if payload["use_cuda"]:
        device = torch.device("cuda", placement.local_rank)
        torch.cuda.set_device(device)
    run = RankRun(job, placement, device, dist.get_backend(), payload["dropout"])
    same_host = _same_host(placement.world_size)
    for _ in range(payload["warmup"]):
        _timed_iteration(run, placement.world_size, same_host)
    timed, losses = [], []
    for _ in range(payload["iterations"]):
        timed.append(_timed_iteration(run, placement.world_size, same_host))
        losses.append(_global_loss(run, placement.world_size))
    times_us = [microseconds(t[2]) for t in timed]
    chosen = median_index(times_us)
    activities, origin, iteration_ns, rank_end_ns = timed[chosen]
    coord = run.coord
    info = {"rank": placement.rank, "tp": job.tp, "pp": job.pp, "dp": job.dp, "world_size": placement.world_size,
            "stage": coord.pp, "tp_rank": coord.tp, "dp_rank": coord.dp,
            "iteration_start_us": 0, "iteration_end_us": microseconds(iteration_ns),
            "rank_end_us": microseconds(rank_end_ns), "strategy": job.strategy, "schedule": job.schedule,
            "num_microbatches": job.num_microbatches, "micro_batch_size": job.micro_batch_size,
            "global_batch_size": job.global_batch_size, "model": job.model.name, "dtype": job.dtype,
            "threads": torch.get_num_threads(), "device": _device_name(device), "dropout": payload["dropout"],
            "iteration_times_us": times_us, "traced_iteration": chosen, "losses": losses}
    documents = [None] * placement.world_size
    dist.all_gather_object(documents, chrome_trace(placement.rank, activities, origin, info))
    if placement.rank != 0:
        return None
    return {"documents": documents, "times_us": times_us, "traced_iteration": chosen, "losses": losses,
            "wall_seconds": time.perf_counter() - started}
