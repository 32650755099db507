"""Shared fixtures: the CLI binary the module is compared against, and the source tree."""

import json
import os
import subprocess
from pathlib import Path

import pytest

SOURCE_DIR = Path(os.environ.get("DISTSIM_SOURCE_DIR", Path(__file__).resolve().parents[2]))
FIXTURES = SOURCE_DIR / "tests" / "fixtures"
TINY_GPT = str(FIXTURES / "models" / "tiny_gpt.yaml")
SMALL_MOE = str(FIXTURES / "models" / "small_moe.yaml")


def run_cli(*args, check=True, cwd=None):
    """Runs the distsim binary; returns (exit code, stdout, stderr)."""
    result = subprocess.run([os.environ["DISTSIM_BIN"], *map(str, args)], capture_output=True, text=True, cwd=cwd)
    if check and result.returncode != 0:
        raise AssertionError(f"distsim {' '.join(map(str, args))} failed: {result.stderr}")
    return result.returncode, result.stdout, result.stderr


def flags_of(settings):
    """The CLI flags that give the same settings as Job(**settings)."""
    args = []
    for key, value in settings.items():
        flag = "--" + key.replace("_", "-")
        if value is True:
            args.append(flag)
        elif value is False:
            continue
        else:
            args += [flag, str(value)]
    return args


@pytest.fixture(scope="session")
def cli():
    return run_cli


@pytest.fixture(scope="session")
def source_dir():
    return SOURCE_DIR


def cli_json(*args):
    return json.loads(run_cli(*args)[1])
