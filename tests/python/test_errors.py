"""Bad input raises distsim.InputError with the message the CLI prints after 'distsim: error: '."""

import pytest

import distsim
from conftest import SMALL_MOE, flags_of, run_cli

PREFIX = "distsim: error: "

# Each: settings given to Job and simulate, and to the CLI as flags.
BAD = [
    {"tp": 0},                                     # a value the table refuses
    {"micro_batch_size": "two"},
    {"schedule": "1f1bb"},                         # closest name suggested
    {"recompute": "ful"},
    {"model": "gpt2-354m"},                        # unknown built-in model
    {"gpu": "h100"[::-1]},
    {"tp": 3, "pp": 1, "dp": 1},                   # the job as a whole: 3 does not divide the heads
    {"global_batch_size": 10, "micro_batch_size": 4},
    {"precision": "fp8"},                          # fp8 on the default A40
    {"model": SMALL_MOE, "gpu": "h100-sxm", "gpus_per_node": 4, "tp": 1, "pp": 1, "dp": 4, "ep": 2, "etp": 2,
     "moe_dispatcher": "allgather", "micro_batch_size": 1, "global_batch_size": 8},  # refused: not simulated
]


def cli_message(settings):
    code, _, stderr = run_cli("simulate", *flags_of(settings), check=False)
    assert code == 2, stderr
    assert stderr.startswith(PREFIX)
    return stderr[len(PREFIX):].rstrip("\n")


@pytest.mark.parametrize("settings", BAD, ids=[str(s) for s in BAD])
def test_error_is_the_cli_message(settings):
    expected = cli_message(settings)
    with pytest.raises(distsim.InputError) as raised:
        distsim.simulate(distsim.Job(**settings))
    assert str(raised.value) == expected


def test_value_errors_are_raised_by_job():
    with pytest.raises(distsim.InputError, match=r"^--tp: expected a positive integer \(1 to 2147483647\), got '0'$"):
        distsim.Job(tp=0)


def test_input_error_is_a_value_error():
    assert issubclass(distsim.InputError, ValueError)


def test_unknown_setting_names_the_closest():
    with pytest.raises(distsim.InputError, match=r"^unknown job setting 'tpp'; did you mean 'tp'\?"):
        distsim.Job(tpp=2)


def test_search_errors_are_the_cli_messages():
    code, _, stderr = run_cli("search", "--micro-batch-sizes", "0", check=False)
    assert code == 2
    with pytest.raises(distsim.InputError) as raised:
        distsim.search(distsim.Job(), micro_batch_sizes=[0])
    assert str(raised.value) == stderr[len(PREFIX):].rstrip("\n")
    with pytest.raises(distsim.InputError, match="did you mean 'recompute'"):
        distsim.search(distsim.Job(), recomput=["none"])


def test_missing_calibration_file_is_the_cli_message(tmp_path):
    missing = tmp_path / "none.csv"
    code, _, stderr = run_cli("validate", "--csv", missing, check=False)
    assert code == 2
    with pytest.raises(distsim.InputError) as raised:
        distsim.validate(missing)
    assert str(raised.value) == stderr[len(PREFIX):].rstrip("\n")


def test_bad_rank_and_trace_ranks():
    result = distsim.simulate(distsim.Job(gpus_per_node=1, tp=1, pp=1, dp=1))
    with pytest.raises(distsim.InputError, match=r"^rank: expected 0 to 0 \(the job's ranks\), got 1$"):
        result.timeline(rank=1)
    with pytest.raises(distsim.InputError, match=r"^--trace-ranks: unknown value 'every'"):
        result.write_trace("unused.json", ranks="every")


def test_front_within_below_one_is_refused():
    with pytest.raises(distsim.InputError, match=r"^front_within: expected a factor of at least 1 over the best "
                                                 r"candidate, e\.g\. 1\.5, or all for every candidate, got '0\.5'$"):
        distsim.search(distsim.Job(), front_within=0.5)
