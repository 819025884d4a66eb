"""A target exploitability out of the precision's reach is told before the first iteration."""

import warnings

import pytest

import solvers
from solvers.solver import PRECISION_FLOOR, exploitability_floor


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
