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


def test_validate_takes_gpu_files_as_the_cli_does(source_dir):
    fixtures = source_dir / "tests" / "fixtures"
    csv = fixtures / "validate" / "power_limited_gpu.csv"
    gpu = fixtures / "gpus" / "h100_96gb_500w.yaml"
    result = distsim.validate(csv, threads=1, gpus=[gpu])
    _, stdout, _ = run_cli("validate", "--json", "--csv", csv, "--threads", "1", "--gpu", gpu)
    assert result.to_json() == stdout
    assert [row["id"] for row in result.rows] == ["P1", "P2"]
    # The same part as a mapping of its keys.
    inline = distsim.validate(csv, threads=1, gpus=[{"base": "h100-sxm", "name": "h100-96gb-500w", "memory_gb": 96,
                                                     "tdp_w": 500, "gemm_efficiency": 0.6,
                                                     "fp8_gemm_efficiency": 0.5}])
    assert inline.rows == result.rows
