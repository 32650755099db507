"""distsim's profiler and CPU runner: measure events once, run small jobs for real.

`distsim_profile.py` measures the unique events of `distsim events --json` work lists and writes
the interchange file `distsim db import` reads; `distsim_run.py` runs one real training iteration
of a small job on several processes and writes per-rank Chrome traces. See docs/profiler.md.
"""

VERSION = "0.1.0"
PROFILER_NAME = "distsim-profile " + VERSION


import sys


class UserError(Exception):
    """Bad input from the user: reported as one message, exit code 2 (as the C++ CLI does)."""


def require_torch():
    """Imports torch, or says which interpreter lacks it."""
    try:
        import torch
    except ImportError:
        raise UserError("PyTorch is not installed for %s (Debian: apt install python3-torch)" % sys.executable)
    if not torch.distributed.is_available():
        raise UserError("this PyTorch (%s) has no torch.distributed" % torch.__version__)
    return torch


class WorkerFailed(Exception):
    """A worker process ended with an error; its traceback is already on stderr (exit code 1)."""
