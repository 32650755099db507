"""examples/sweep_throughput.py runs and writes its table and plot."""

import os
import subprocess
import sys

import pandas as pd

from conftest import SOURCE_DIR


def test_sweep_example(tmp_path):
    out = tmp_path / "sweep"
    subprocess.run([sys.executable, str(SOURCE_DIR / "examples" / "sweep_throughput.py"), "--model", "gpt2-345m",
                    "--gpus", "64,128", "--out", str(out)], check=True, env=dict(os.environ))
    png = out.with_suffix(".png")
    assert png.exists() and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    table = pd.read_csv(out.with_suffix(".csv"))
    # three GPU types x two sizes
    assert len(table) == 6
    assert sorted(table["gpu"].unique()) == ["A100 80GB", "B200", "H100 SXM"]
    assert sorted(table["gpus"].unique()) == [64, 128]
    assert (table["tokens_per_s_per_gpu"] > 0).all() and (table["mfu"] > 0).all()
