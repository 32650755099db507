"""The runner's per-rank timeline and its Chrome trace.

Activities follow distsim's own trace (src/io/trace/trace_writer.cpp): one thread per stream
kind, numbered as distsim's StreamKind, and args with the phase (fwd, bwd, optim) and the
micro-batch. Compute is recorded as the spans between communications, so a pass that waits for
a tensor-parallel all-reduce shows as compute, tp_comm, compute, as distsim draws it."""

import json
import time

# distsim's StreamKind order (src/events/phase.hpp); the index is the trace's tid.
STREAM_KINDS = ("compute", "tp_comm", "pp_send_next", "pp_recv_prev", "pp_send_prev", "pp_recv_next", "dp_comm",
                "cp_comm", "ep_comm")


class Recorder:
    """`synchronize`, when given, runs before every clock reading: on a GPU it waits for the
    queued kernels, so a span ends when its work has finished, not when it was launched."""

    def __init__(self, synchronize=None):
        self.synchronize = synchronize
        self.activities = []
        self._pass = None
        self._segment_start = None

    def reset(self):
        self.activities = []
        self._pass = None
        self._segment_start = None

    def now(self):
        if self.synchronize is not None:
            self.synchronize()
        return time.perf_counter_ns()

    def _append(self, kind, name, start, end, args):
        self.activities.append((kind, name, start, end, args))

    def _close_segment(self, at):
        if self._pass is not None and self._segment_start is not None and at > self._segment_start:
            name, args = self._pass
            self._append("compute", name, self._segment_start, at, args)
        self._segment_start = None

    def begin_pass(self, name, phase, microbatch=None, stage=None):
        self._pass = (name, _args(phase, microbatch, stage))
        self._segment_start = self.now()

    def end_pass(self):
        self._close_segment(self.now())
        self._pass = None

    def _comm_args(self, phase, microbatch, extra):
        if phase is None and self._pass is not None:
            args = dict(self._pass[1])
        else:
            args = _args(phase, microbatch, None)
        args.update(extra or {})
        return args

    def blocking(self, kind, name, function, phase=None, microbatch=None, extra=None):
        """Runs a communication that the compute stream waits for."""
        start = self.now()
        self._close_segment(start)
        result = function()
        end = self.now()
        self._append(kind, name, start, end, self._comm_args(phase, microbatch, extra))
        if self._pass is not None:
            self._segment_start = end
        return result

    def started(self, kind, name, phase=None, microbatch=None, extra=None):
        """A communication launched asynchronously: compute goes on until `finish`."""
        return (kind, name, self.now(), self._comm_args(phase, microbatch, extra))

    def finish(self, token, wait):
        kind, name, start, args = token
        waited_from = self.now()
        self._close_segment(waited_from)
        wait()
        end = self.now()
        self._append(kind, name, start, end, args)
        if self._pass is not None:
            self._segment_start = end

    def compute(self, name, function, phase, microbatch=None, stage=None):
        """A compute span outside a pass (gradient copy, optimizer step)."""
        self.begin_pass(name, phase, microbatch, stage)
        result = function()
        self.end_pass()
        return result


def _args(phase, microbatch, stage):
    args = {"phase": phase}
    if microbatch is not None:
        args["mb"] = microbatch
    if stage is not None:
        args["stage"] = stage
    return args


def microseconds(ns):
    """µs with three decimals (whole nanoseconds), as distsim and Kineto write them."""
    return round(ns / 1000.0, 3)


def chrome_trace(rank, activities, origin_ns, runner_info):
    """The rank's trace document: activities shifted to the iteration start, in time order."""
    events = [{"ph": "M", "name": "process_name", "pid": rank, "tid": 0,
               "args": {"name": "rank %d (stage %d, tp %d, dp %d)" % (
                   rank, runner_info["stage"], runner_info["tp_rank"], runner_info["dp_rank"])}}]
    used = sorted({STREAM_KINDS.index(kind) for kind, _, _, _, _ in activities})
    for tid in used:
        events.append({"ph": "M", "name": "thread_name", "pid": rank, "tid": tid,
                       "args": {"name": STREAM_KINDS[tid]}})
    for kind, name, start, end, args in sorted(activities, key=lambda a: (a[2], a[3])):
        args = dict(args, stage=args.get("stage", runner_info["stage"]))
        events.append({"ph": "X", "name": name, "cat": kind, "ts": microseconds(start - origin_ns),
                       "dur": microseconds(end - start), "pid": rank, "tid": STREAM_KINDS.index(kind),
                       "args": args})
    return {"traceEvents": events, "displayTimeUnit": "ms", "distsim_runner": runner_info}


def write_trace(path, document):
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(document, handle, indent=None, separators=(",", ":"))
        handle.write("\n")
