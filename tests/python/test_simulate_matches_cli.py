"""distsim.simulate gives what `distsim simulate --json` prints, for several kinds of job."""

import json
from pathlib import Path

import pytest

import distsim
from conftest import FIXTURES, SMALL_MOE, TINY_GPT, flags_of, run_cli

JOBS = [
    # the CLI's defaults
    {},
    # tensor and pipeline parallel GPT on the default A40 cluster
    {"model": "gpt2-345m", "tp": 2, "pp": 2, "dp": 1},
    # interleaved schedule with sequence parallelism and the distributed optimizer on H100s
    {"model": "gpt2-345m", "gpu": "h100-sxm", "tp": 2, "pp": 2, "dp": 2, "micro_batch_size": 1,
     "global_batch_size": 16, "schedule": "interleaved", "virtual_stages": 2, "sequence_parallel": True,
     "distributed_optimizer": True},
    # a model file, context parallelism and full recomputation
    {"model": TINY_GPT, "cp": 2, "dp": 2, "recompute": "full", "global_batch_size": 8, "micro_batch_size": 2},
    # a mixture-of-experts model with expert parallelism and fp8
    {"model": SMALL_MOE, "gpu": "h100-sxm", "gpus_per_node": 4, "tp": 1, "pp": 1, "dp": 4, "ep": 4, "micro_batch_size": 1,
     "global_batch_size": 8, "seq_length": 512, "precision": "fp8"},
    # a long pipeline: both run 14 of its 64 micro-batches and extend the repeating steady state
    {"model": "gpt2-345m", "tp": 1, "pp": 4, "dp": 4, "micro_batch_size": 1, "global_batch_size": 256},
]


@pytest.mark.parametrize("settings", JOBS, ids=[str(i) for i in range(len(JOBS))])
def test_json_is_the_cli_json(settings):
    result = distsim.simulate(distsim.Job(**settings))
    _, stdout, _ = run_cli("simulate", "--json", *flags_of(settings))
    assert result.to_json() == stdout
    assert result.summary == json.loads(stdout)


def test_a_steady_state_timeline_holds_every_micro_batch():
    """The long pipeline runs 14 micro-batches and repeats its middle: stage 0 (rank 0) still shows
    each of the 64 micro-batches' forward and backward, the same work for each (1F1B runs every
    micro-batch through the stage alike), and its last activity ends within the iteration."""
    result = distsim.simulate(distsim.Job(**JOBS[-1]))
    rows = result.timeline(rank=0)
    per_micro_batch = {}
    for row in rows:
        if row["micro_batch"] is not None and row["stream"] == "compute":
            per_micro_batch.setdefault(row["micro_batch"], []).append((row["phase"], row["event"]))
    assert sorted(per_micro_batch) == list(range(64))
    assert all(work == per_micro_batch[0] for work in per_micro_batch.values())
    assert {phase for phase, _ in per_micro_batch[0]} == {"fwd", "bwd"}
    assert max(row["end_ns"] for row in rows) <= round(result.iteration_time_s * 1e9)


def test_all_ranks_matches_the_cli():
    settings = {"model": TINY_GPT, "tp": 2, "pp": 2, "dp": 1, "global_batch_size": 4}
    result = distsim.simulate(distsim.Job(**settings), all_ranks=True)
    _, stdout, _ = run_cli("simulate", "--json", "--all-ranks", *flags_of(settings))
    assert result.to_json() == stdout


def test_attributes_read_the_json():
    result = distsim.simulate(distsim.Job(model="gpt2-345m", tp=2, pp=2, dp=1))
    cli_json = run_cli("simulate", "--json", "--json-ranks", "--model", "gpt2-345m", "--tp", "2", "--pp", "2", "--dp", "1")[1]
    data = json.loads(cli_json)
    # the CLI writes the ranks one at a time, Python's document holds them: the same bytes
    assert result._simulation.to_json(every_rank=True) == cli_json
    assert result.iteration_time_s == data["iteration_time_s"]
    assert result.mfu == data["mfu"]
    assert result.events.unique == data["events"]["unique"]
    # peak_gib is peak_bytes in units of 2^30 bytes
    assert result.memory.peak_gib == data["memory"]["peak_bytes"] / 1073741824
    assert result.devices == data["devices"]
    # 2M2P1D: four ranks, one record each
    assert [d["rank"] for d in result.devices] == [0, 1, 2, 3]


def test_text_trace_and_report_are_the_cli_files(tmp_path):
    settings = {"model": TINY_GPT, "tp": 2, "pp": 2, "dp": 1, "global_batch_size": 4}
    result = distsim.simulate(distsim.Job(**settings))
    result.write_trace(tmp_path / "py_trace.json")
    result.write_report(tmp_path / "py_report.html")
    _, stdout, _ = run_cli("simulate", *flags_of(settings), "--trace", tmp_path / "cli_trace.json",
                           "--report", tmp_path / "cli_report.html")
    assert result.to_text() == stdout
    assert (tmp_path / "py_trace.json").read_bytes() == (tmp_path / "cli_trace.json").read_bytes()
    assert (tmp_path / "py_report.html").read_bytes() == (tmp_path / "cli_report.html").read_bytes()
    result.write_trace(tmp_path / "all.json", ranks="all")
    run_cli("simulate", *flags_of(settings), "--trace", tmp_path / "cli_all.json", "--trace-ranks", "all")
    assert (tmp_path / "all.json").read_bytes() == (tmp_path / "cli_all.json").read_bytes()


@pytest.mark.parametrize("ranks", ["replica", "all"])
def test_a_chakra_export_is_the_clis(tmp_path, ranks):
    """The long pipeline's result holds a steady state's shorter run; write_chakra simulates it whole
    first, as --chakra does, and writes the same files byte for byte."""
    settings = {"model": "gpt2-345m", "tp": 1, "pp": 4, "dp": 2, "micro_batch_size": 1, "global_batch_size": 128}
    result = distsim.simulate(distsim.Job(**settings))
    (tmp_path / "py").mkdir()
    (tmp_path / "cli").mkdir()
    result.write_chakra(tmp_path / "py" / "job", ranks=ranks)
    run_cli("simulate", *flags_of(settings), "--chakra", tmp_path / "cli" / "job", "--trace-ranks", ranks)
    written = sorted(path.name for path in (tmp_path / "cli").iterdir())
    assert written == sorted(path.name for path in (tmp_path / "py").iterdir())
    assert len(written) == (5 if ranks == "replica" else 9)  # 4 or 8 ranks and the group file
    for name in written:
        assert (tmp_path / "py" / name).read_bytes() == (tmp_path / "cli" / name).read_bytes(), name


def test_an_output_onto_an_input_is_refused(tmp_path):
    """As the CLI's --trace onto --model: the input is left as it was."""
    model = tmp_path / "model.yaml"
    model.write_bytes(Path(TINY_GPT).read_bytes())
    linked = tmp_path / "linked.yaml"
    linked.symlink_to(model)
    result = distsim.simulate(distsim.Job(model=str(model), tp=2, pp=2, dp=1, global_batch_size=4))
    for write, path in ((result.write_trace, model), (result.write_report, linked)):
        with pytest.raises(distsim.InputError, match=f"'{path}' is the job's model '{model}'; writing it would destroy"):
            write(path)
    assert model.read_bytes() == Path(TINY_GPT).read_bytes()
    searched = distsim.search(distsim.Job(model=str(model), global_batch_size=4), tp=[2], pp=[2], dp=[1])
    with pytest.raises(distsim.InputError, match="write_csv '.*model.yaml' is the job's model"):
        searched.write_csv(model)
    result.write_trace(tmp_path / "trace.json")  # a new file is written


def test_model_objects_run_as_inline_mappings():
    model = distsim.Model(base="gpt2-345m", name="gpt2-8-layers", num_layers=8)
    assert model.num_layers == 8 and model.hidden_size == 1024
    result = distsim.simulate(distsim.Job(model=model, gpus_per_node=2, pp=2))
    _, stdout, _ = run_cli("simulate", "--json", "--model", model._inline, "--gpus-per-node", "2", "--pp", "2")
    assert result.to_json() == stdout
    assert result.summary["job"]["model"]["name"] == "gpt2-8-layers"


def test_hf_config(source_dir):
    path = source_dir / "tests" / "fixtures" / "models" / "hf" / "Meta-Llama-3.1-8B" / "config.json"
    config = json.loads(path.read_text())
    model = distsim.Model.from_hf_config(path)
    assert model.num_layers == config["num_hidden_layers"]
    assert model.hidden_size == config["hidden_size"]
    result = distsim.simulate(distsim.Job(model=model, gpu="h100-sxm", tp=8, pp=1, dp=1, global_batch_size=8))
    _, stdout, _ = run_cli("simulate", "--json", "--model", path, "--gpu", "h100-sxm", "--tp", "8", "--pp", "1",
                           "--dp", "1", "--global-batch-size", "8")
    assert result.summary["iteration_time_s"] == json.loads(stdout)["iteration_time_s"]


def test_threads_simulate_at_once():
    from concurrent.futures import ThreadPoolExecutor

    jobs = [distsim.Job(model="gpt2-345m", tp=2, pp=2, dp=1, global_batch_size=64 * (i + 1)) for i in range(4)]
    with ThreadPoolExecutor(max_workers=4) as pool:
        together = [r.to_json() for r in pool.map(distsim.simulate, jobs)]
    assert together == [distsim.simulate(job).to_json() for job in jobs]


def test_simulate_releases_the_gil():
    """While one thread simulates a large job, the main thread keeps running Python code."""
    import threading
    import time

    # 16 stages x 2,048 micro-batches x 5 layers per stage, operator by operator, under GPipe (whose
    # timeline has no steady state to shorten it): about 0.4 s alone on a 2-core machine
    job = distsim.Job(model="llama-3.1-70b", cluster="dgx-h100", nodes=512, tp=8, pp=16, dp=32,
                      micro_batch_size=1, global_batch_size=65536, schedule="gpipe", host_time="none")
    span = {}

    def run():
        span["start"] = time.monotonic()
        distsim.simulate(job)
        span["end"] = time.monotonic()

    worker = threading.Thread(target=run)
    ticks = []
    worker.start()
    while worker.is_alive():
        ticks.append(time.monotonic())
        time.sleep(0.001)
    worker.join()
    assert span["end"] - span["start"] > 0.05, "the job is too small to tell"
    # a tick strictly inside the simulation: the interpreter ran while the C++ core did
    assert any(span["start"] + 0.01 < t < span["end"] - 0.01 for t in ticks)


def test_specs_as_mappings_and_paths():
    from pathlib import Path

    gpu = next(g for g in distsim.catalog.gpus() if g["name"] == "a40")
    by_mapping = distsim.simulate(distsim.Job(model=Path(TINY_GPT), gpu={**gpu, "name": "a40-copy"}, gpus_per_node=1,
                                              tp=1, pp=1, dp=1, global_batch_size=4))
    by_name = distsim.simulate(distsim.Job(model=TINY_GPT, gpu="a40", gpus_per_node=1, tp=1, pp=1, dp=1,
                                           global_batch_size=4))
    # the same GPU under another name gives the same time
    assert by_mapping.iteration_time_s == by_name.iteration_time_s
    assert by_mapping.summary["job"]["gpu"]["name"] == "a40-copy"


LAUNCHES = [
    # a Megatron-LM launch script, with a flag beside it
    ("megatron_args", FIXTURES / "launch" / "megatron_llama31_8b.sh", {"gpu": "h100"}),
    # the argument text itself
    ("megatron_args", "--tensor-model-parallel-size 2 --pipeline-model-parallel-size 2 --num-layers 24 "
     "--hidden-size 1024 --num-attention-heads 16 --seq-length 1024 --max-position-embeddings 1024 "
     "--micro-batch-size 2 --global-batch-size 16", {"model": "gpt2-345m", "nodes": 1}),
    # a torchtitan job TOML
    ("torchtitan", FIXTURES / "launch" / "torchtitan_llama31_8b.toml", {"gpu": "h100", "nodes": 2}),
    # a Megatron-Bridge override file, changing the recipe's model --model names
    ("megatron_bridge", FIXTURES / "launch" / "bridge_mixtral_8x7b_override.yaml",
     {"gpu": "h100", "nodes": 4, "model": "mixtral-8x7b"}),
]


@pytest.mark.parametrize("kind,launch,settings", LAUNCHES, ids=[str(i) for i in range(len(LAUNCHES))])
def test_a_launch_is_the_clis(kind, launch, settings):
    """Job(megatron_args=...), Job(torchtitan=...) and Job(megatron_bridge=...) are --megatron-args,
    --torchtitan and --megatron-bridge: the same summary, and the assumptions and ignored flags the
    CLI says on stderr."""
    job = distsim.Job(**{kind: launch}, **settings)
    result = distsim.simulate(job)
    _, stdout, stderr = run_cli("simulate", "--json", "--" + kind.replace("_", "-"), launch, *flags_of(settings))
    assert result.to_json() == stdout
    for assumption in job.assumptions:
        assert f"distsim: assumed: {assumption}\n" in stderr
    assert ("distsim: ignored" in stderr) == bool(job.ignored)
    assert job.replace(**settings).assumptions == job.assumptions  # the copy keeps the launch


def test_a_launch_refuses_as_the_cli_does():
    with pytest.raises(distsim.InputError, match="more than one of --megatron-args, --torchtitan and --megatron-bridge"):
        distsim.Job(megatron_args="--tensor-model-parallel-size 2",
                    torchtitan=str(FIXTURES / "launch" / "torchtitan_llama31_8b.toml"))
    with pytest.raises(distsim.InputError, match="no such file, and not an argument string"):
        distsim.Job(megatron_args="nonexistent.sh")
