"""distsim.search: the CLI's search, results independent of the thread count."""

import csv
import json

import pytest

import distsim
from conftest import TINY_GPT, run_cli

BASE = {"model": TINY_GPT, "nodes": 1, "gpus_per_node": 4, "global_batch_size": 16}


def test_threads_do_not_change_the_result():
    job = distsim.Job(**BASE)
    one = distsim.search(job, micro_batch_sizes=[1, 2], recompute=["none", "full"], threads=1)
    two = distsim.search(job, micro_batch_sizes=[1, 2], recompute=["none", "full"], threads=2)
    assert one.to_json() == two.to_json()
    assert one.candidates == two.candidates
    assert len(one.candidates) > 4


def test_search_json_is_the_cli_json():
    job = distsim.Job(**BASE, schedule="1f1b")
    result = distsim.search(job, micro_batch_sizes=[1, 2], recompute=["none", "full"], threads=2, top=5)
    _, stdout, _ = run_cli("search", "--json", "--model", TINY_GPT, "--nodes", "1", "--gpus-per-node", "4",
                           "--global-batch-size", "16", "--schedule", "1f1b", "--micro-batch-sizes", "1,2",
                           "--recompute", "none,full", "--threads", "2", "--top", "5")
    assert result.to_json() == stdout
    data = json.loads(stdout)
    assert [c["label"] for c in result.candidates] == [c["label"] for c in data["candidates"]]
    # every candidate has a status and a reason ("" when it has none)
    assert all(c["status"] in ("ok", "out of memory", "invalid", "pruned by bound") for c in result.candidates)
    assert all("reason" in c for c in result.candidates)
    assert all(c["reason"] for c in result.candidates if c["status"] == "invalid")


def test_tokens_and_price_give_the_time_and_cost_to_train_as_the_cli_does():
    """The run's tokens and price are job settings: Job(tokens=...) is --tokens."""
    job = distsim.Job(**BASE, schedule="1f1b", tokens=1e9, gpu_hour_price=2.5)
    result = distsim.search(job, micro_batch_sizes=[1], recompute=["none"], threads=2, top=3)
    _, stdout, _ = run_cli("search", "--json", "--model", TINY_GPT, "--nodes", "1", "--gpus-per-node", "4",
                           "--global-batch-size", "16", "--schedule", "1f1b", "--micro-batch-sizes", "1",
                           "--recompute", "none", "--threads", "2", "--top", "3", "--tokens", "1e9",
                           "--gpu-hour-price", "2.5")
    assert result.to_json() == stdout
    data = json.loads(stdout)
    assert data["tokens"] == 1e9 and data["gpu_hour_price"] == 2.5
    assert all("time_to_train_s" in c for c in result.candidates if "iteration_time_s" in c)


def test_progress_is_called_with_the_gil():
    calls = []
    result = distsim.search(distsim.Job(**BASE), micro_batch_sizes=[1], recompute=["none"], threads=2,
                            progress=lambda done, total: calls.append((done, total)))
    simulated = sum(1 for c in result.candidates if "iteration_time_s" in c)
    pruned = sum(1 for c in result.candidates if c["status"] == "pruned by bound")
    total = calls[-1][1]
    # done counts up to the candidates decided (simulated or pruned by the bound), which is the
    # total the search meant to simulate
    dones = [done for done, _ in calls]
    assert dones == sorted(dones) and dones[-1] == simulated + pruned == total
    assert all(call_total == total for _, call_total in calls)
    assert simulated > 0


def test_progress_errors_reach_the_caller():
    def stop(done, total):
        raise KeyboardInterrupt("stop")

    try:
        distsim.search(distsim.Job(**BASE), micro_batch_sizes=[1], threads=2, progress=stop)
    except KeyboardInterrupt as e:
        assert str(e) == "stop"
    else:
        raise AssertionError("the callback's exception was lost")


def test_front_within_is_the_cli_flag():
    job = distsim.Job(**BASE, schedule="1f1b")
    result = distsim.search(job, micro_batch_sizes=[1], threads=2, front_within="all")
    _, stdout, _ = run_cli("search", "--json", "--model", TINY_GPT, "--nodes", "1", "--gpus-per-node", "4",
                           "--global-batch-size", "16", "--schedule", "1f1b", "--micro-batch-sizes", "1",
                           "--threads", "2", "--front-within", "all")
    assert result.to_json() == stdout
    assert json.loads(stdout)["front_within"] == "all"
    assert json.loads(distsim.search(job, micro_batch_sizes=[1], threads=2).to_json())["front_within"] == 2
    assert json.loads(distsim.search(job, micro_batch_sizes=[1], threads=2, front_within=1.5).to_json())[
        "front_within"] == 1.5


def test_listed_shard_groups_are_candidates_of_their_own():
    # dp 4 on the fixture's 4 GPUs: ZeRO-3 over groups of 2 (two replicas) and of all 4
    job = distsim.Job(**BASE, tp=1, pp=1, cp=1, schedule="1f1b", sharding="zero3")
    result = distsim.search(job, micro_batch_sizes=[1], recompute=["none"], shard_group_size="all", threads=2)
    groups = {c["label"]: c["shard_group_size"] for c in result.candidates}
    assert groups == {"1M1P4D mbs 1 1f1b zero3 hsdp 2": 2, "1M1P4D mbs 1 1f1b zero3": 4}


def test_csv_columns_are_the_json_values(tmp_path):
    """The CSV's time-to-train columns carry each simulated candidate's JSON values, by label."""
    csv_path = tmp_path / "search.csv"
    _, stdout, _ = run_cli("search", "--json", "--csv", str(csv_path), "--model", TINY_GPT, "--nodes", "1",
                           "--gpus-per-node", "4", "--global-batch-size", "16", "--schedule", "1f1b",
                           "--micro-batch-sizes", "1", "--recompute", "none", "--threads", "2", "--tokens", "1e9")
    by_label = {c["label"]: c for c in json.loads(stdout)["candidates"]}
    rows = list(csv.DictReader(csv_path.open()))
    simulated = [row for row in rows if row["iteration_time_s"]]
    assert simulated
    for row in simulated:
        candidate = by_label[row["label"]]
        for column in ("time_to_train_s", "expected_time_to_train_s"):
            assert float(row[column]) == pytest.approx(candidate[column], rel=1e-6)
