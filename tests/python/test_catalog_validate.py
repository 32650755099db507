"""Catalogs as `distsim list --json`, validation as `distsim validate --json`."""

import json

import distsim
from conftest import run_cli


def test_catalogs_are_the_cli_lists():
    assert distsim.catalog.gpus() == json.loads(run_cli("list", "gpus", "--json")[1])
    assert distsim.catalog.models() == json.loads(run_cli("list", "models", "--json")[1])
    assert distsim.catalog.clusters() == json.loads(run_cli("list", "clusters", "--json")[1])
    assert distsim.catalog.schedules() == json.loads(run_cli("list", "schedules", "--json")[1])
    assert distsim.catalog.attention_kernels() == json.loads(run_cli("list", "attention-kernels", "--json")[1])
    assert "h100-sxm" in [gpu["name"] for gpu in distsim.catalog.gpus()]


def test_validate_is_the_cli_validate(source_dir):
    csv = source_dir / "tests" / "fixtures" / "validate" / "one_simulable.csv"
    result = distsim.validate(csv, threads=2)
    code, stdout, _ = run_cli("validate", "--json", "--csv", csv, "--threads", "2", check=False)
    assert code == 0
    assert result.to_json() == stdout
    data = json.loads(stdout)
    assert result.rows == data["rows"] and len(result.rows) == 1
    for row in result.rows:
        # error_pct is (predicted - measured) / measured * 100
        expected = (row["predicted_iteration_s"] - row["measured_iteration_s"]) / row["measured_iteration_s"] * 100
        assert abs(row["error_pct"] - expected) < 1e-9
