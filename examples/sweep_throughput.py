#!/usr/bin/env python3
"""Sweep a model over cluster sizes and GPU types; tabulate with pandas and plot with matplotlib.

    PYTHONPATH=build/python python3 examples/sweep_throughput.py --out sweep

For every GPU count (64 to 4,096 by default) and node design (DGX A100, DGX H100, DGX B200) it
simulates one iteration of the model with tensor parallelism 8 inside a node, pipeline
parallelism 4 (interleaved, 2 chunks per stage, sequence parallel, distributed optimizer) and
data parallelism over the rest, 8 micro-batches of one sequence per replica. It writes
<out>.csv (one row per point) and <out>.png: tokens per second per GPU and MFU against GPUs.
"""

import argparse
import sys

import matplotlib

matplotlib.use("Agg")  # files only, no display needed
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

import distsim  # noqa: E402

CLUSTERS = {"dgx-a100": "A100 80GB", "dgx-h100": "H100 SXM", "dgx-b200": "B200"}
GPUS_PER_NODE = 8
TP, PP, CHUNKS, MICRO_BATCHES = 8, 4, 2, 8


def simulate_point(model, cluster, gpus):
    dp = gpus // (TP * PP)
    job = distsim.Job(model=model, cluster=cluster, nodes=gpus // GPUS_PER_NODE, tp=TP, pp=PP, dp=dp,
                      micro_batch_size=1, global_batch_size=MICRO_BATCHES * dp, schedule="interleaved",
                      virtual_stages=CHUNKS, sequence_parallel=True, distributed_optimizer=True)
    r = distsim.simulate(job)
    return {
        "model": model,
        "gpu": CLUSTERS[cluster],
        "gpus": gpus,
        "iteration_time_s": r.iteration_time_s,
        "tokens_per_s_per_gpu": r.tokens_per_s / gpus,
        "mfu": r.mfu,
        "peak_memory_gib": r.memory.peak_gib,
        "fits": r.memory.fits,
    }


def sweep(model, gpu_counts):
    rows = [simulate_point(model, cluster, gpus) for cluster in CLUSTERS for gpus in gpu_counts]
    return pd.DataFrame(rows)


def plot(table, path):
    figure, (throughput, mfu) = plt.subplots(1, 2, figsize=(11, 4))
    for gpu, points in table.groupby("gpu", sort=False):
        throughput.plot(points["gpus"], points["tokens_per_s_per_gpu"], marker="o", label=gpu)
        mfu.plot(points["gpus"], points["mfu"] * 100, marker="o", label=gpu)
    for axis, label in ((throughput, "tokens/s per GPU"), (mfu, "MFU (%)")):
        axis.set_xscale("log", base=2)
        axis.set_xlabel("GPUs")
        axis.set_ylabel(label)
        axis.grid(True, alpha=0.3)
        axis.legend()
    figure.suptitle(f"{table['model'].iloc[0]}: simulated by distsim")
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", default="llama-3.1-70b")
    parser.add_argument("--gpus", default="64,128,256,512,1024,2048,4096",
                        help="comma-separated GPU counts, multiples of %d" % (TP * PP))
    parser.add_argument("--out", default="sweep_throughput", help="output path without extension")
    args = parser.parse_args(argv)
    gpu_counts = [int(count) for count in args.gpus.split(",")]
    try:
        table = sweep(args.model, gpu_counts)
    except distsim.InputError as error:
        print(f"sweep_throughput: {error}", file=sys.stderr)
        return 2
    table.to_csv(args.out + ".csv", index=False)
    plot(table, args.out + ".png")
    print(table.to_string(index=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
