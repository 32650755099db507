#!/usr/bin/env python3
"""Where a single-GPU runner iteration spends its time: runs distsim_run.py's training step of a
1M1P1D job in this process under torch.profiler and prints the GPU time per kernel (the table of
torch.profiler), the GPU's busy time and the iteration's wall time. Needs a CUDA GPU.

Usage: kernel_breakdown.py MODEL MICRO_BATCH GLOBAL_BATCH [ROWS]"""

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402
from torch.profiler import ProfilerActivity, profile  # noqa: E402

from distsim_profiler import launch, run_worker  # noqa: E402
from distsim_profiler.jobspec import build_job, read_model  # noqa: E402


def busy_us(events):
    """The union of the GPU kernels' intervals: time the GPU was doing something."""
    spans = sorted((e.time_range.start, e.time_range.end) for e in events
                   if e.device_type == torch.autograd.DeviceType.CUDA)
    total, current_start, current_end = 0.0, None, None
    for start, end in spans:
        if current_end is None or start > current_end:
            if current_end is not None:
                total += current_end - current_start
            current_start, current_end = start, end
        else:
            current_end = max(current_end, end)
    return total + (current_end - current_start if current_end is not None else 0.0)


def entry(placement, payload):
    job, rows = payload
    device = torch.device("cuda", 0)
    torch.cuda.set_device(device)
    run = run_worker.RankRun(job, placement, device, "nccl", 0.1)
    for _ in range(3):
        run.iteration()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as profiler:
        started = time.perf_counter()
        run.iteration()
        torch.cuda.synchronize()
        wall_ms = (time.perf_counter() - started) * 1e3
    print(profiler.key_averages().table(sort_by="self_device_time_total", row_limit=rows, max_name_column_width=70))
    print("iteration wall %.1f ms; GPU busy %.1f ms" % (wall_ms, busy_us(profiler.events()) / 1e3))


def main():
    model, micro, global_batch = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    rows = int(sys.argv[4]) if len(sys.argv) > 4 else 40
    os.environ.update(RANK="0", WORLD_SIZE="1", LOCAL_RANK="0", MASTER_ADDR="127.0.0.1", MASTER_PORT="29561")
    job = build_job(read_model(model), "1M1P1D", micro, global_batch, "1f1b", "bf16")
    launch.launch(entry, (job, rows), 1, True, None)


if __name__ == "__main__":
    main()
