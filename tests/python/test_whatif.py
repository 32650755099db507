"""distsim.whatif: the CLI's what-if replay, the same numbers and bytes."""

import pytest

import distsim
from conftest import FIXTURES, run_cli

TWO_STAGE = FIXTURES / "whatif" / "two_stage.json"


def test_whatif_is_the_cli_whatif():
    result = distsim.whatif(TWO_STAGE)
    _, json_out, _ = run_cli("whatif", TWO_STAGE, "--json")
    _, text_out, _ = run_cli("whatif", TWO_STAGE)
    assert result.to_json() == json_out
    assert result.to_text() == text_out


def test_whatif_figures_by_hand():
    """The hand-worked step of tests/cases/whatif/replay.case: replayed 27 s, ideal 25.5 s, measured
    27.5 s; stage 1 alone at its measured times 28.5 s."""
    result = distsim.whatif(TWO_STAGE)
    assert result.straggler_slowdown == pytest.approx(27.0 / 25.5)
    assert result.launch_slowdown == pytest.approx(27.5 / 27.0)
    assert result.by_stage[0] == {"group": "1", "slowdown": pytest.approx(28.5 / 25.5)}


def test_whatif_refuses_a_missing_trace():
    with pytest.raises(distsim.InputError, match="no_such.json"):
        distsim.whatif(FIXTURES / "whatif" / "no_such.json")
