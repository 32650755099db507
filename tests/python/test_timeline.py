"""The timeline of a fixed-cost job equals the one worked out by hand.

The job and its costs are tests/cases/profile/simulate_from_profile.case: a 4-layer GPT
(tests/fixtures/models/tiny_gpt.yaml) on one A40, one micro-batch, every event priced by the
hand-set profile tests/fixtures/profiles/tiny_gpt_a40.json: GEMMs 20 us, the Adam step 500 us,
every other kernel 10 us. One GPU and no communication: every task runs on the compute stream
back to back from t = 0, so task i starts at the sum of the durations before it.
Tasks (from the case): per layer, forward 10 (2 norms, 4 GEMMs, attention, gelu, 2
bias-dropout-adds), backward 14 (8 GEMMs, attention, gelu, 2 bias-dropout-adds, 2 norms); outside
the layers forward 4 (embedding, final norm, head GEMM, loss), backward 5 (loss, 2 head GEMMs,
final norm, embedding); then Adam. 4*10 + 4 + 4*14 + 5 + 1 = 106 tasks; GEMMs 4*4 + 1 + 4*8 + 2 = 51
-> 1020 us, others 4*(6+6) + 3 + 3 = 54 -> 540 us, Adam 500 us: 2060 us in all.
"""

import distsim
from conftest import FIXTURES, TINY_GPT, run_cli

US = 1000  # ns


def hand_duration_ns(event_key):
    operator = event_key.split(" ")[0]
    if operator == "gemm":
        return 20 * US
    if operator == "adam_step":
        return 500 * US
    return 10 * US


def test_fixed_cost_timeline(tmp_path):
    database = tmp_path / "profiles.sqlite"
    run_cli("db", "import", FIXTURES / "profiles" / "tiny_gpt_a40.json", "--profile-db", database)
    job = distsim.Job(model=TINY_GPT, gpu="a40", nodes=1, gpus_per_node=1, strategy="1M1P1D",
                      micro_batch_size=1, global_batch_size=1, host_time="none")
    timeline = distsim.simulate(job, profile_db=database).timeline(rank=0)

    assert len(timeline) == 106
    assert {row["stream"] for row in timeline} == {"compute"}
    assert {row["kind"] for row in timeline} == {"compute"}
    operators = [row["event"].split(" ")[0] for row in timeline]
    assert operators.count("gemm") == 51
    assert operators.count("adam_step") == 1
    # the first task is the embedding of micro-batch 0 in the forward phase, the last the optimizer
    assert operators[0] == "embedding" and timeline[0]["phase"] == "fwd" and timeline[0]["micro_batch"] == 0
    assert operators[-1] == "adam_step" and timeline[-1]["micro_batch"] is None

    start = 0
    for row in timeline:
        duration = hand_duration_ns(row["event"])
        assert (row["start_ns"], row["end_ns"]) == (start, start + duration), row
        assert row["start_s"] == start / 1e9 and row["end_s"] == (start + duration) / 1e9
        start += duration
    assert start == 2060 * US
    assert timeline[-1]["end_s"] == 0.00206


def test_host_thread_rows(tmp_path):
    """With the host modelled, each of the 105 kernels a micro-batch's two passes run has its launch
    on the host stream; the optimizer step, issued with the end of the iteration, has none."""
    database = tmp_path / "profiles.sqlite"
    run_cli("db", "import", FIXTURES / "profiles" / "tiny_gpt_a40.json", "--profile-db", database)
    job = distsim.Job(model=TINY_GPT, gpu="a40", nodes=1, gpus_per_node=1, strategy="1M1P1D",
                      micro_batch_size=1, global_batch_size=1)
    timeline = distsim.simulate(job, profile_db=database).timeline(rank=0)
    assert sum(row["stream"] == "host" for row in timeline) == 105
    assert sum(row["stream"] == "compute" for row in timeline) == 106
