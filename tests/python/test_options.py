"""Every option of the job option table can be set from Python and means what its flag means."""

import pytest

import distsim
from conftest import SMALL_MOE, TINY_GPT, flags_of, run_cli

# One job per option: the option set to a value other than its default, in a job where it applies.
# One GPU per node, so that the node count follows the parallel sizes whatever they are.
TINY = {"model": TINY_GPT, "global_batch_size": 8, "micro_batch_size": 1, "gpus_per_node": 1}
H100 = {**TINY, "gpu": "h100-sxm"}
MOE = {"model": SMALL_MOE, "gpu": "h100-sxm", "gpus_per_node": 4, "tp": 1, "pp": 1, "dp": 4,
       "micro_batch_size": 1, "global_batch_size": 8, "seq_length": 512}
CASES = {
    "model": {"model": "gpt2-345m", "gpus_per_node": 1, "tp": 1, "pp": 1, "dp": 1},
    "seq_length": {**TINY, "seq_length": 64},
    "cluster": {**TINY, "cluster": "dgx-a100", "gpus_per_node": 2, "tp": 2, "pp": 1, "dp": 1},
    "gpu": {**TINY, "gpu": "a100-80gb"},
    "gpus_per_node": {**TINY, "gpus_per_node": 2, "tp": 2, "pp": 1, "dp": 2},
    "strategy": {**TINY, "strategy": "2M1P2D"},
    "tp": {**TINY, "tp": 2},
    "pp": {**TINY, "pp": 2},
    "dp": {**TINY, "dp": 2},
    "cp": {**TINY, "cp": 2},
    "cp_comm_type": {**TINY, "cp": 2, "cp_comm_type": "a2a"},
    "cp_a2a_size": {**TINY, "cp": 4, "cp_comm_type": "a2a+p2p", "cp_a2a_size": 2},
    "micro_batch_size": {**TINY, "micro_batch_size": 2},
    "global_batch_size": {**TINY, "global_batch_size": 16},
    "schedule": {**TINY, "pp": 2, "schedule": "gpipe"},
    "dtype": {**TINY, "dtype": "fp16"},
    "fp8": {**H100, "fp8": True},
    "precision": {**H100, "precision": "fp8"},
    "bf16_layers_at_start": {**H100, "precision": "fp8", "bf16_layers_at_start": 1},
    "bf16_layers_at_end": {**H100, "precision": "fp8", "bf16_layers_at_end": 1},
    "attention": {**TINY, "attention": "unfused"},
    "attention_kernel": {**H100, "attention_kernel": "cudnn-9.0"},
    "virtual_stages": {**TINY, "pp": 2, "schedule": "interleaved", "virtual_stages": 2},
    "sequence_parallel": {**TINY, "tp": 2, "sequence_parallel": True},
    "recompute": {**TINY, "recompute": "selective"},
    "distributed_optimizer": {**TINY, "dp": 2, "distributed_optimizer": True},
    "sharding": {**TINY, "dp": 2, "sharding": "zero3"},
    "shard_group_size": {**TINY, "dp": 4, "sharding": "zero3", "shard_group_size": 2},
    "overlap_grad_reduce": {**TINY, "dp": 2, "overlap_grad_reduce": True},
    "p2p_scatter_gather": {**TINY, "tp": 2, "pp": 2, "p2p_scatter_gather": True},
    "gradient_bucket_size": {**TINY, "dp": 2, "gradient_bucket_size": 100000},
    "host_time": {**TINY, "host_time": "none"},
    "pipeline_layout": {**TINY, "pp": 2, "pipeline_layout": "Et*3|tL"},
    "first_stage_layers": {**TINY, "pp": 3, "first_stage_layers": 2},
    "last_stage_layers": {**TINY, "pp": 3, "last_stage_layers": 2},
    # A cluster of two GPU types, the A100 host first; the stages placed the other way round.
    "stage_gpus": {**TINY, "pp": 2, "stage_gpus": "a40,a100-80gb",
                   "cluster": "{base: pcie-a40, host_groups: [{gpu: a100-80gb, hosts: 1}, {gpu: a40, hosts: 1}]}"},
    # 24 layers and the embedding (or the head) counted as one: 25 split over 5 stages
    "account_for_embedding_in_pipeline_split": {"model": "gpt2-345m", "gpus_per_node": 1, "pp": 5,
                                                "global_batch_size": 8, "micro_batch_size": 1,
                                                "account_for_embedding_in_pipeline_split": True},
    "account_for_loss_in_pipeline_split": {"model": "gpt2-345m", "gpus_per_node": 1, "pp": 5,
                                           "global_batch_size": 8, "micro_batch_size": 1,
                                           "account_for_loss_in_pipeline_split": True},
    "ep": {**MOE, "ep": 4},
    "etp": {**MOE, "ep": 2, "etp": 2},
    "moe_dispatcher": {**MOE, "ep": 4, "moe_dispatcher": "allgather"},
    "moe_imbalance": {**MOE, "ep": 4, "moe_imbalance": 1.5},
    "overlap_moe_expert_parallel_comm": {**MOE, "ep": 4, "overlap_moe_expert_parallel_comm": True},
    "moe_shared_expert_overlap": {**MOE, "model": "{base: mixtral-8x7b, name: shared-moe, num_layers: 2, moe: "
                                  "{shared_experts: 1, shared_expert_ffn_hidden_size: 1024}}",
                                  "ep": 4, "moe_shared_expert_overlap": True},
    "moe_router_fusion": {**MOE, "ep": 4, "moe_router_fusion": True},
    "moe_pad_expert_input_to_capacity": {**MOE, "model": "{base: mixtral-8x7b, name: drop-moe, num_layers: 2, moe: "
                                         "{capacity_factor: 1.0}}", "ep": 4,
                                         "moe_pad_expert_input_to_capacity": True},
    "nodes": {**TINY, "gpus_per_node": 4, "nodes": 2, "dp": 8},
    "slow_ranks": {**TINY, "dp": 2, "slow_ranks": "1:1.5"},
    "kernel_jitter": {**TINY, "kernel_jitter": "uniform:0.1", "jitter_samples": 2},
    "jitter_samples": {**TINY, "kernel_jitter": "uniform:0.1", "jitter_samples": 3},
    "jitter_seed": {**TINY, "kernel_jitter": "uniform:0.1", "jitter_samples": 2, "jitter_seed": 5},
    "tokens": {**TINY, "tokens": 1e9},
    "gpu_hour_price": {**TINY, "gpu_hour_price": 2.5},
    "failure_rate_gpu": {**TINY, "failure_rate_gpu": 1e-5},
    "failure_rate_hbm": {**TINY, "failure_rate_hbm": 2e-5},
    "failure_rate_host": {**TINY, "failure_rate_host": 0.0},
    "failure_rate_network": {**TINY, "failure_rate_network": 3e-6},
    "failure_rate_software": {**TINY, "failure_rate_software": 4e-6},
    "checkpoint_interval": {**TINY, "checkpoint_interval": 100},
    "checkpoint_save": {**TINY, "checkpoint_save": "async"},
    "storage_bandwidth": {**TINY, "storage_bandwidth": 10.0},
    "staging_bandwidth": {**TINY, "checkpoint_save": "async", "staging_bandwidth": 20.0},
    "restart_time": {**TINY, "restart_time": 300.0},
}
SECTIONS = {option["key"]: option["section"] for option in distsim.options()}


def test_every_option_has_a_case():
    assert sorted(CASES) == sorted(option["key"] for option in distsim.options())


@pytest.mark.parametrize("key", sorted(CASES))
def test_option_is_settable(key):
    settings = CASES[key]
    result = distsim.simulate(distsim.Job(**settings))
    _, stdout, _ = run_cli("simulate", "--json", *flags_of(settings))
    assert result.to_json() == stdout
    # The echo names the value given (booleans and numbers as the table writes them).
    # A setting of a section (goodput) is echoed under the section's name, as a job file holds it.
    echo = result.summary["job"]
    echoed = echo[SECTIONS[key]].get(key) if SECTIONS[key] else echo.get(key)
    if key not in ("model", "cluster", "gpu", "strategy", "fp8"):
        assert echoed == settings[key] or str(echoed) == str(settings[key]), (key, echoed)


def test_option_table_rows():
    rows = {row["key"]: row for row in distsim.options()}
    assert rows["micro_batch_size"]["flag"] == "--micro-batch-size"
    assert rows["micro_batch_size"]["type"] == "positive_integer"
    assert rows["schedule"]["type"] == "choice"
    assert "interleaved" in rows["schedule"]["allowed"]
    assert rows["sequence_parallel"]["type"] == "boolean"
    assert rows["tokens"]["type"] == "positive_number" and rows["tokens"]["section"] == "goodput"
    assert rows["failure_rate_gpu"]["type"] == "non_negative_number"
    assert rows["model"]["section"] == ""


def test_stub_names_every_option(source_dir):
    """The typed stub's Job(...) lists exactly the table's keys, so editors complete them all."""
    import ast

    tree = ast.parse((source_dir / "python" / "distsim" / "__init__.pyi").read_text())
    job = next(node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == "Job")
    init = next(node for node in job.body if isinstance(node, ast.FunctionDef) and node.name == "__init__")
    assert [arg.arg for arg in init.args.kwonlyargs] == [option["key"] for option in distsim.options()]
