"""distsim_profile: measure each unique event of distsim work lists once and write the
interchange file `distsim db import` reads (docs/profiler.md)."""

import argparse
import datetime
import json
import sys

from . import PROFILER_NAME, UserError, WorkerFailed, require_torch
from . import keys as keys_module
from .stats import pairwise_min, summarize_ns

COMPUTE, COMMUNICATION = "compute", "communication"


def parse_arguments(argv):
    parser = argparse.ArgumentParser(
        prog="distsim_profile.py",
        description="Measure the unique events of `distsim events --json` work lists on this machine "
                    "and write a profile for `distsim db import`.")
    parser.add_argument("work_lists", nargs="+", metavar="WORK_LIST",
                        help="output of `distsim events ... --json` (several are merged, duplicates once)")
    parser.add_argument("--output", "-o", default="profile.json", help="profile file to write (default %(default)s)")
    parser.add_argument("--hardware", help="hardware name stored with every record (default: the work list's gpu)")
    parser.add_argument("--nproc", type=int, default=2,
                        help="processes to start on this machine (default %(default)s; ignored under torchrun)")
    parser.add_argument("--repeats", type=int, default=20, help="timed runs per event (default %(default)s)")
    parser.add_argument("--warmup", type=int, default=3, help="untimed runs before timing (default %(default)s)")
    parser.add_argument("--max-seconds-per-event", type=float, default=2.0,
                        help="stop timing a compute event after this long, once it has 3 samples (default %(default)s)")
    parser.add_argument("--skip-keys", action="append", default=[], metavar="FILE",
                        help="leave out these keys: one per line, or a profile file (repeatable)")
    parser.add_argument("--skip-profiled", action="store_true",
                        help="leave out events the work list says already come from the profile database")
    parser.add_argument("--only", choices=(COMPUTE, COMMUNICATION), help="measure only one kind of event")
    parser.add_argument("--flush-cache-mb", type=int,
                        help="overwrite this many MB before each timed compute run, so inputs come from memory "
                             "(default 64 on CPU, 256 on GPU; 0 times with warm caches)")
    parser.add_argument("--cpu", action="store_true", help="run on CPU with gloo even when CUDA is available")
    parser.add_argument("--threads", type=int, help="intra-op threads per process (default: cores / processes)")
    parser.add_argument("--serial-compute", action="store_true",
                        help="time every compute event on rank 0 while the others wait (default: spread "
                             "over the processes, which then run concurrently as in training)")
    args = parser.parse_args(argv)
    for name in ("nproc", "repeats"):
        if getattr(args, name) < 1:
            raise UserError("--%s must be at least 1, got %d" % (name, getattr(args, name)))
    if args.warmup < 0:
        raise UserError("--warmup must not be negative, got %d" % args.warmup)
    if args.threads is not None and args.threads < 1:
        raise UserError("--threads must be at least 1, got %d" % args.threads)
    if args.flush_cache_mb is not None and args.flush_cache_mb < 0:
        raise UserError("--flush-cache-mb must not be negative, got %d" % args.flush_cache_mb)
    return args


def choose_hardware(requested, gpu_names):
    if requested is None:
        if not gpu_names:
            raise UserError("the work list names no gpu; pass --hardware NAME")
        if len(gpu_names) > 1:
            raise UserError("the work lists are for several gpus (%s); profile one at a time or pass --hardware"
                            % ", ".join(gpu_names))
        requested = gpu_names[0]
    if not requested or any(c in requested for c in " \t\n'\""):
        raise UserError("--hardware must be a GPU name without spaces or quotes, like 'a40', got '%s'" % requested)
    return requested


def embedding_facts(work_list):
    """What the embedding keys leave out. The table's rows: the vocabulary width of the work
    list's cross_entropy events when they agree on one. The reads per row from bytes_moved (2 when
    a learned position table is added, src/events/job_events.cpp)."""
    widths = {item.spec.dims["cols"] for item in work_list.items if item.spec.op == "cross_entropy"}
    rows = widths.pop() if len(widths) == 1 else None
    reads = {}
    for item in work_list.items:
        if item.spec.op == "embedding" and item.bytes_moved:
            dims = item.spec.dims
            elements = dims["rows"] * dims["cols"] * keys_module.DTYPE_BYTES[item.spec.dtype]
            reads[item.spec.key] = int(round(item.bytes_moved / elements)) - 1
    return rows, reads


def select_items(work_list, args):
    skipped_keys = set()
    for path in args.skip_keys:
        skipped_keys |= keys_module.read_skip_keys(path)
    selected = []
    for item in work_list.items:
        kind = COMMUNICATION if item.spec.is_communication else COMPUTE
        if item.spec.key in skipped_keys or (args.only and args.only != kind):
            continue
        if args.skip_profiled and item.source == "profiled":
            continue
        selected.append(item)
    return selected


def check_writable(path):
    try:
        with open(path, "a", encoding="utf-8"):
            pass
    except OSError as error:
        raise UserError("--output '%s': cannot write it (%s)" % (path, error.strerror))


def library_text(backend):
    import torch
    return "torch %s+%s" % (torch.__version__, backend)


def utc_now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def merge_results(payload, per_rank):
    """Records in work-list order, plus what could not be measured and the notes."""
    records, skipped, notes = [], [], []
    for key, kind in zip(payload["keys"], payload["kinds"]):
        found = [results[key] for results in per_rank if key in results]
        failure = next((r["skipped"] for r in found if "skipped" in r), None)
        if failure or not found:
            skipped.append((key, failure or "not measured"))
            continue
        samples = found[0]["samples"] if kind == COMPUTE else pairwise_min([r["samples"] for r in found])
        record = {"key": key}
        record.update(summarize_ns(samples))
        records.append(record)
        notes += ["%s: %s" % (key, r["note"]) for r in found[:1] if r.get("note")]
    return records, skipped, notes


def write_profile(path, payload, records, device_seconds):
    document = {"format": "distsim-profile", "version": 1, "hardware": payload["hardware"],
                "profiler": PROFILER_NAME, "library": payload["library"], "measured_at": utc_now(),
                "device_seconds": round(device_seconds, 3), "events": records}
    try:
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(document, handle, indent=2)
            handle.write("\n")
    except OSError as error:
        raise UserError("--output '%s': cannot write it (%s)" % (path, error.strerror))


def report(payload, records, skipped, notes, wall_seconds, world_size):
    out = sys.stdout
    out.write("profiled %d of %d events for hardware '%s' (%s) into %s\n" % (
        len(records), len(payload["keys"]), payload["hardware"], payload["library"], payload["output"]))
    for key, reason in skipped:
        out.write("  skipped '%s': %s\n" % (key, reason))
    for note in notes:
        out.write("  note: %s\n" % note)
    out.write("device time: %.2f s wall x %d processes = %.2f device-seconds\n" % (
        wall_seconds, world_size, wall_seconds * world_size))
    out.flush()


def main(argv=None):
    try:
        args = parse_arguments(sys.argv[1:] if argv is None else argv)
        work_list = keys_module.read_work_lists(args.work_lists)
        hardware = choose_hardware(args.hardware, work_list.gpu_names)
        items = select_items(work_list, args)
        embedding_rows, embedding_reads = embedding_facts(work_list)
        torch = require_torch()  # after the argument checks, so that bad input is answered at once
        from . import launch, ops, worker
        for item in items:
            if not item.spec.is_communication:
                ops.check_operator(item.spec.op)
        use_cuda = not args.cpu and torch.cuda.is_available()
        payload = {
            "keys": [item.spec.key for item in items],
            "kinds": [COMMUNICATION if item.spec.is_communication else COMPUTE for item in items],
            "hardware": hardware, "output": args.output,
            "library": library_text(launch.choose_backend(use_cuda)),
            "repeats": args.repeats, "warmup": args.warmup, "budget": args.max_seconds_per_event,
            "serial_compute": args.serial_compute, "use_cuda": use_cuda,
            "flush_mb": args.flush_cache_mb if args.flush_cache_mb is not None else (256 if use_cuda else 64),
            "embedding_rows": embedding_rows, "embedding_reads": embedding_reads,
        }
        check_writable(args.output)
        measured = launch.launch(worker.profile_worker, payload, args.nproc, use_cuda, args.threads)
        if measured is not None:
            finish(payload, *measured)
        return 0
    except UserError as error:
        sys.stderr.write("distsim_profile: error: %s\n" % error)
        return 2
    except WorkerFailed as error:
        sys.stderr.write("distsim_profile: error: %s\n" % error)
        return 1


def finish(payload, per_rank, wall_seconds, world_size):
    """Every rank's samples, gathered by rank 0: write the file and the report."""
    records, skipped, notes = merge_results(payload, per_rank)
    write_profile(payload["output"], payload, records, wall_seconds * world_size)
    report(payload, records, skipped, notes, wall_seconds, world_size)

