#!/usr/bin/env python3
"""Measure the unique events of `distsim events --json` work lists; see docs/profiler.md."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from distsim_profiler.profile import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
