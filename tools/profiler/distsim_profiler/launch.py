"""Starting the worker processes: under torchrun (its environment variables) or, by default,
with torch.multiprocessing on this machine. torch 1.13's torchrun fails on Python 3.11
(its elastic agent trips over an enum change), so spawning ourselves is the robust choice on CPU."""

import ctypes
import datetime
import os
import pickle
import socket
import tempfile
import traceback

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

from torch.multiprocessing.spawn import ProcessException

from . import UserError, WorkerFailed
from .placement import Placement


def under_torchrun():
    return all(name in os.environ for name in ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"))


def default_threads(local_world_size):
    """Intra-op threads per process: the node's cores shared evenly, so processes do not fight."""
    return max(1, (os.cpu_count() or 1) // max(1, local_world_size))


def choose_backend(use_cuda):
    if use_cuda:
        return "nccl"
    if not dist.is_available() or not dist.is_gloo_available():
        raise UserError("this torch has no gloo backend for torch.distributed")
    return "gloo"


# glibc mallopt parameters (malloc.h).
M_TRIM_THRESHOLD = -1
M_MMAP_MAX = -4


def keep_freed_memory():
    """Stops glibc from returning freed memory to the system. By default a large tensor comes
    from a fresh mmap and is unmapped when freed, so every step pays page faults on its temporaries,
    and how many depends on glibc's sliding mmap threshold, that is on what the process did
    before: the same Adam step measured 47 ms or 3.5 ms in one process. Keeping the memory makes
    CPU times steady, as the caching allocator does on a GPU. Other C libraries are left alone."""
    try:
        libc = ctypes.CDLL("libc.so.6")
        libc.mallopt(M_MMAP_MAX, 0)
        libc.mallopt(M_TRIM_THRESHOLD, 2 ** 30)
    except (OSError, AttributeError):
        pass


def _free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _worker(local_rank, nprocs, port, backend, threads, entry, payload, result_path):
    placement = Placement(local_rank, nprocs, local_rank, nprocs)
    init = "tcp://127.0.0.1:%d" % port
    result = _run_entry(placement, backend, threads, entry, payload, init)
    if placement.rank == 0:
        with open(result_path, "wb") as handle:
            pickle.dump(result, handle)


def _run_entry(placement, backend, threads, entry, payload, init):
    if backend == "gloo":
        keep_freed_memory()
    torch.set_num_threads(threads)
    dist.init_process_group(backend, init_method=init, rank=placement.rank, world_size=placement.world_size,
                            timeout=datetime.timedelta(minutes=10))
    try:
        return entry(placement, payload)
    except Exception:
        # spawn would print the traceback too, but interleaved with the other rank's; one rank's
        # failure must also reach the user when the other one is the one left waiting.
        traceback.print_exc()
        raise
    finally:
        dist.destroy_process_group()


def launch(entry, payload, nprocs, use_cuda, threads):
    """Runs entry(placement, payload) on every process and returns, once all have finished, what
    rank 0's entry returned (None on the other ranks of a torchrun launch). Started processes
    hand it back through a temporary file, which holds a result of any size without a pipe's
    back-pressure."""
    backend = choose_backend(use_cuda)
    if under_torchrun():
        rank = int(os.environ["RANK"])
        world_size = int(os.environ["WORLD_SIZE"])
        local_world_size = int(os.environ.get("LOCAL_WORLD_SIZE", world_size))
        placement = Placement(rank, world_size, int(os.environ.get("LOCAL_RANK", rank)), local_world_size)
        result = _run_entry(placement, backend, threads or default_threads(local_world_size), entry, payload,
                            "env://")
        return result if rank == 0 else None
    # Fork shares the parent's imported torch, saving each worker its own import (seconds on a busy
    # machine); CUDA does not survive a fork, so GPU workers are spawned.
    start_method = "spawn" if use_cuda or not hasattr(os, "fork") else "fork"
    handle, result_path = tempfile.mkstemp(prefix="distsim_profiler_", suffix=".pickle")
    os.close(handle)
    try:
        mp.start_processes(_worker, args=(nprocs, _free_port(), backend, threads or default_threads(nprocs), entry,
                                          payload, result_path), nprocs=nprocs, join=True, start_method=start_method)
        with open(result_path, "rb") as result:
            return pickle.load(result)
    except ProcessException as error:
        raise WorkerFailed("a worker process failed: %s" % str(error).strip().splitlines()[0])
    finally:
        os.unlink(result_path)
