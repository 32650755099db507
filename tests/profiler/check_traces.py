"""Checks the runner's per-rank traces (docs/profiler.md) and prints the loss of each timed
iteration: usage: check_traces.py DIR WORLD_SIZE."""

import json
import os
import sys

CATEGORIES = ("compute", "tp_comm", "pp_send_next", "pp_recv_prev", "pp_send_prev", "pp_recv_next", "dp_comm")


def fail(message):
    sys.exit("check_traces: " + message)


def check_rank(directory, rank, world_size):
    trace = json.load(open(os.path.join(directory, "rank%d.json" % rank), encoding="utf-8"))
    info = trace["distsim_runner"]
    if info["rank"] != rank or info["world_size"] != world_size or info["iteration_start_us"] != 0:
        fail("rank %d: runner info %s" % (rank, info))
    tp, pp, dp = info["tp"], info["pp"], info["dp"]
    if tp * pp * dp != world_size or info["strategy"] != "%dM%dP%dD" % (tp, pp, dp):
        fail("rank %d: strategy %s does not match tp %d pp %d dp %d" % (rank, info["strategy"], tp, pp, dp))
    activities = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    for event in activities:
        if event["cat"] not in CATEGORIES or event["tid"] != CATEGORIES.index(event["cat"]):
            fail("rank %d: category %r on tid %r" % (rank, event["cat"], event["tid"]))
        if event["pid"] != rank or event["ts"] < 0 or event["dur"] < 0:
            fail("rank %d: bad activity %s" % (rank, event))
        if event["ts"] + event["dur"] > info["iteration_end_us"] + 0.001:
            fail("rank %d: activity ends after the iteration: %s" % (rank, event))
        if event["args"]["phase"] not in ("fwd", "bwd", "optim") or event["args"]["stage"] != info["stage"]:
            fail("rank %d: args %s" % (rank, event["args"]))
    passes = {(e["args"]["phase"], e["args"]["mb"]) for e in activities if e["cat"] == "compute" and "mb" in e["args"]}
    expected = {(phase, mb) for phase in ("fwd", "bwd") for mb in range(info["num_microbatches"])}
    if passes != expected:
        fail("rank %d: compute passes %s, expected %s" % (rank, sorted(passes), sorted(expected)))
    kinds = {e["cat"] for e in activities}
    needed = {"compute"} | ({"tp_comm"} if tp > 1 else set()) | ({"dp_comm"} if dp > 1 else set())
    if pp > 1:
        needed.add("pp_send_next" if info["stage"] == 0 else "pp_recv_prev")
    if not needed <= kinds:
        fail("rank %d: missing activity kinds %s" % (rank, sorted(needed - kinds)))
    if not any(e["args"]["phase"] == "optim" for e in activities):
        fail("rank %d: no optimizer step" % rank)
    return info


def main(directory, world_size):
    infos = [check_rank(directory, rank, world_size) for rank in range(world_size)]
    if len({info["iteration_end_us"] for info in infos}) != 1:
        fail("ranks disagree on the iteration end")
    print("traces ok: %s %s, iteration %.3f ms, losses %s" % (
        infos[0]["strategy"], infos[0]["schedule"], infos[0]["iteration_end_us"] / 1e3,
        " ".join("%.6f" % loss for loss in infos[0]["losses"])))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        fail("usage: check_traces.py DIR WORLD_SIZE")
    main(sys.argv[1], int(sys.argv[2]))
