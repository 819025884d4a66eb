"""A target exploitability out of the precision's reach is told before the first iteration."""

import warnings

import pytest

import solvers
from solvers.cfr.solver import PRECISION_FLOOR, exploitability_floor


def test_unreachable_target_warns_up_front(kuhn):
    _, tree = kuhn
    assert exploitability_floor(tree, "float32") == PRECISION_FLOOR["float32"] * 4.0  # payoffs -2 to 2
    with pytest.warns(UserWarning, match="below what float32 reaches.*stop only at iterations"):
        result = solvers.solve(tree, "cfr+", iterations=5, target_exploitability=1e-9,
                               precision="float32", progress=False)
    assert result.iterations == 5


def test_reachable_target_does_not_warn(kuhn):
    _, tree = kuhn
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        solvers.solve(tree, "cfr+", iterations=5, target_exploitability=1e-3, progress=False)


def test_progress_without_a_terminal_logs_one_line_per_check(kuhn, capsys):
    """With no terminal (a solve whose output goes to a log), the progress bar is off and each
    exploitability check is one line instead; progress=False prints nothing."""
    _, tree = kuhn
    result = solvers.solve(tree, "cfr+", iterations=30, check_every=10, progress=True)
    lines = capsys.readouterr().err.strip().splitlines()
    assert [line.split(",")[0] for line in lines] == [f"cfr+: iteration {k}" for k in (10, 20, 30)]
    assert f"exploitability {result.exploitability:.4g}" in lines[-1]
    solvers.solve(tree, "cfr+", iterations=30, check_every=10, progress=False)
    assert capsys.readouterr().err == ""
