"""Timing one call: a monotonic clock on CPU, CUDA events on a GPU."""

import time

import torch


class CpuTimer:
    def time_ns(self, function):
        start = time.perf_counter_ns()
        function()
        return time.perf_counter_ns() - start

    def synchronize(self):
        pass


class CudaTimer:
    """CUDA events around the call, behind a GPU busy-wait. Inside a training step the CPU runs
    ahead of the GPU, so an operator's kernels start back to back; timed from an idle GPU, the
    events would also hold the CPU's time to launch them. On the H100 that made a LayerNorm
    backward of 4096 x 2048 measure 202 µs, where its kernels take a fraction of that. The
    busy-wait (torch.cuda._sleep) keeps the GPU occupied while the CPU queues the call, and
    doubles whenever queueing took more than half of it."""

    CYCLES_PER_NS = 2  # at most 2 GHz: the wait lasts at least lead_ns
    MAX_LEAD_NS = 50_000_000

    def __init__(self, device):
        self.device = device
        self.start = torch.cuda.Event(enable_timing=True)
        self.end = torch.cuda.Event(enable_timing=True)
        self.lead_ns = 1_000_000 if hasattr(torch.cuda, "_sleep") else 0

    def time_ns(self, function):
        if self.lead_ns:
            torch.cuda._sleep(self.lead_ns * self.CYCLES_PER_NS)
        self.start.record()
        queued_from = time.perf_counter_ns()
        function()
        queued_ns = time.perf_counter_ns() - queued_from
        self.end.record()
        self.end.synchronize()
        if self.lead_ns and queued_ns > self.lead_ns // 2:
            self.lead_ns = min(2 * self.lead_ns, self.MAX_LEAD_NS)
        return int(self.start.elapsed_time(self.end) * 1e6)

    def synchronize(self):
        torch.cuda.synchronize(self.device)


class CacheFlusher:
    """Overwrites a buffer larger than the caches before each timed call, so an operator reads
    its inputs from memory as it does inside a training step, where the operators before it have
    evicted them (Triton's do_bench flushes the GPU's L2 the same way). On this development
    machine a bf16 GEMM of 256x1024x256 measured 325 µs warm and 438 µs after a flush."""

    def __init__(self, megabytes, device):
        self.buffer = torch.empty(megabytes * 2 ** 20 // 4, dtype=torch.float32, device=device) if megabytes else None

    def __call__(self):
        if self.buffer is not None:
            self.buffer.zero_()


def sample(function, timer, warmup, repeats, budget_seconds, flush=None):
    """Warm-up calls, then up to `repeats` timed calls; stops early once `budget_seconds` are
    spent and at least three samples (or all requested, if fewer) are in."""
    for _ in range(warmup):
        function()
    timer.synchronize()
    samples = []
    started = time.perf_counter()
    while len(samples) < repeats:
        if flush is not None:
            flush()
            timer.synchronize()
        samples.append(timer.time_ns(function))
        if time.perf_counter() - started > budget_seconds and len(samples) >= min(3, repeats):
            break
    return samples
