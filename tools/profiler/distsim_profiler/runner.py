"""distsim_run: real training iterations of a small GPT job on several CPU processes with gloo
(or one process per GPU with NCCL), recorded per rank as a Chrome trace that mirrors distsim's
own (docs/profiler.md). The workers return their traces; this module writes them."""

import argparse
import os
import statistics
import sys

from . import UserError, WorkerFailed, require_torch
from .jobspec import build_job, read_model
from .timeline import write_trace

DTYPES = ("bf16", "fp32")


def parse_arguments(argv):
    parser = argparse.ArgumentParser(
        prog="distsim_run.py",
        description="Run real training iterations of a small GPT job split by a tp/pp/dp strategy on CPU "
                    "processes (gloo) and write each rank's timeline as a Chrome trace.")
    parser.add_argument("--model", required=True, help="distsim model file (YAML or JSON) of a GPT")
    parser.add_argument("--strategy", required=True, help="parallel sizes in the paper's notation, e.g. 2M1P1D")
    parser.add_argument("--micro-batch-size", type=int, default=4, help="sequences per micro-batch (default 4)")
    parser.add_argument("--global-batch-size", type=int, default=64, help="sequences per iteration (default 64)")
    parser.add_argument("--schedule", default="1f1b", help="pipeline schedule: gpipe or 1f1b (default 1f1b)")
    parser.add_argument("--dtype", default="bf16", help="training precision: bf16 or fp32 (default bf16)")
    parser.add_argument("--warmup-iterations", type=int, default=2, help="untimed iterations first (default 2)")
    parser.add_argument("--iterations", type=int, default=3,
                        help="timed iterations; the trace is the one with the median time (default 3)")
    parser.add_argument("--dropout", type=float, default=0.1,
                        help="hidden dropout probability (default 0.1, Megatron's; 0 makes runs comparable)")
    parser.add_argument("--output-dir", default=".", help="where rank<R>.json go (default: here)")
    parser.add_argument("--threads", type=int, help="intra-op threads per process (default: cores / processes)")
    parser.add_argument("--cpu", action="store_true", help="run on CPU with gloo even when CUDA is available")
    args = parser.parse_args(argv)
    if args.dtype not in DTYPES:
        raise UserError("--dtype '%s': the runner trains in bf16 or fp32" % args.dtype)
    if not 0 <= args.dropout < 1:
        raise UserError("--dropout must be in [0, 1), got %g" % args.dropout)
    if args.warmup_iterations < 0 or args.iterations < 1:
        raise UserError("--warmup-iterations must be >= 0 and --iterations >= 1")
    if args.threads is not None and args.threads < 1:
        raise UserError("--threads must be at least 1, got %d" % args.threads)
    if not os.path.isdir(args.output_dir):
        raise UserError("--output-dir '%s' is not a directory" % args.output_dir)
    return args


def main(argv=None):
    try:
        args = parse_arguments(sys.argv[1:] if argv is None else argv)
        job = build_job(read_model(args.model), args.strategy, args.micro_batch_size, args.global_batch_size,
                        args.schedule, args.dtype)
        torch = require_torch()
        from . import launch, run_worker
        use_cuda = not args.cpu and torch.cuda.is_available()
        if use_cuda and job.world_size > torch.cuda.device_count():
            raise UserError("--strategy %s needs %d GPUs; this machine has %d (pass --cpu to run on CPU processes)"
                            % (job.strategy, job.world_size, torch.cuda.device_count()))
        payload = {"job": job, "warmup": args.warmup_iterations, "iterations": args.iterations,
                   "output_dir": args.output_dir, "dropout": args.dropout, "use_cuda": use_cuda}
        result = launch.launch(run_worker.run_worker, payload, job.world_size, use_cuda, args.threads)
        if result is not None:
            write_traces(args.output_dir, result["documents"])
            report(job, args.output_dir, result)
        return 0
    except UserError as error:
        sys.stderr.write("distsim_run: error: %s\n" % error)
        return 2
    except WorkerFailed as error:
        sys.stderr.write("distsim_run: error: %s\n" % error)
        return 1


def describe_times(times_us):
    """One line: each timed iteration and their spread."""
    if len(times_us) == 1:
        return "iteration time %.3f ms" % (times_us[0] / 1e3)
    spread = (max(times_us) - min(times_us)) / statistics.median(times_us) * 100
    return "iteration times %s ms; median %.3f ms, spread (max - min) / median %.1f %%" % (
        ", ".join("%.3f" % (t / 1e3) for t in times_us), statistics.median(times_us) / 1e3, spread)


def write_traces(output_dir, documents):
    for rank, document in enumerate(documents):
        write_trace(os.path.join(output_dir, "rank%d.json" % rank), document)


def report(job, output_dir, result):
    out = sys.stdout
    world_size = len(result["documents"])
    out.write("ran %s %s (%s, %d micro-batches of %d, %s) on %d processes\n" % (
        job.model.name, job.strategy, job.schedule, job.num_microbatches, job.micro_batch_size, job.dtype, world_size))
    out.write("%s (traced: iteration %d)\n" % (describe_times(result["times_us"]), result["traced_iteration"]))
    out.write("loss per timed iteration: %s\n" % ", ".join("%.6f" % loss for loss in result["losses"]))
    out.write("traces: %s\n" % ", ".join(os.path.join(output_dir, "rank%d.json" % r) for r in range(world_size)))
    wall = result["wall_seconds"]
    out.write("device time: %.2f s wall x %d processes = %.2f device-seconds\n" % (wall, world_size, wall * world_size))
    out.flush()
