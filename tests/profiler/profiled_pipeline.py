"""Two CPU processes (gloo) run a two-stage pipeline of a small MLP, GPipe over two micro-batches,
under torch.profiler, and each writes the trace the profiler exports to OUT_DIR/rank<r>.json.
The program marks its passes as PyTorch's pipelining schedules do, with record_function ranges
PP:<stage><F|B><micro-batch> (torch/distributed/pipelining/schedules.py), and sends activations
and gradients with torch.distributed.send/recv between them. Usage: profiled_pipeline.py OUT_DIR PORT
"""
import os
import sys

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

MICRO_BATCHES = 2
WIDTH = 64


def run(rank, out_dir, port):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = port
    dist.init_process_group("gloo", rank=rank, world_size=2)
    torch.manual_seed(rank)
    torch.set_num_threads(1)
    stage = torch.nn.Sequential(torch.nn.Linear(WIDTH, WIDTH), torch.nn.ReLU(), torch.nn.Linear(WIDTH, WIDTH))
    inputs = [torch.randn(16, WIDTH) for _ in range(MICRO_BATCHES)]
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as profiler:
        outputs = []
        for mb in range(MICRO_BATCHES):
            if rank == 1:
                received = torch.empty(16, WIDTH)
                dist.recv(received, 0)
                received.requires_grad_()
                inputs[mb] = received
            with torch.profiler.record_function(f"PP:{rank}F{mb}"):
                outputs.append(stage(inputs[mb]))
            if rank == 0:
                dist.send(outputs[mb].detach(), 1)
        for mb in range(MICRO_BATCHES):
            if rank == 0:
                gradient = torch.empty(16, WIDTH)
                dist.recv(gradient, 1)
            with torch.profiler.record_function(f"PP:{rank}B{mb}"):
                if rank == 1:
                    outputs[mb].sum().backward()
                else:
                    outputs[mb].backward(gradient)
            if rank == 1:
                dist.send(inputs[mb].grad, 0)
    profiler.export_chrome_trace(os.path.join(out_dir, f"rank{rank}.json"))
    dist.destroy_process_group()


if __name__ == "__main__":
    mp.spawn(run, args=(sys.argv[1], sys.argv[2]), nprocs=2)
