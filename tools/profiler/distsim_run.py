#!/usr/bin/env python3
"""Run real training iterations of a small GPT job on CPU processes; see docs/profiler.md."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from distsim_profiler.runner import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
