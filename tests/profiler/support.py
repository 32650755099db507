"""Makes tools/profiler importable from the tests and tells whether torch is present."""

import importlib.util
import os
import sys

SOURCE_DIR = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FIXTURES = os.path.join(SOURCE_DIR, "tests", "fixtures", "profiler")
sys.path.insert(0, os.path.join(SOURCE_DIR, "tools", "profiler"))

HAVE_TORCH = importlib.util.find_spec("torch") is not None
