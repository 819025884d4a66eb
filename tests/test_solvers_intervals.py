"""Intervals over the epsilon-equilibria (sequence-form LPs with HiGHS), against Kuhn poker's known
equilibrium family (Kuhn 1950): player 0 bets a Jack with any probability in [0, 1/3], bets a King with
three times that, calls with a Queen with that plus 1/3; player 1's strategy is unique."""

import numpy as np
import pytest

import solvers
from solvers.history.intervals import EquilibriumPolytope

pytest.importorskip("scipy")


def _probability(tree, key, action):
    """``{sequence: 1}`` over ``{parent sequence: 1}`` of ``action`` at the information set ``key``."""
    from solvers.history.mmd import SequenceForm

    i = tree.infoset_index(key)
    sf = SequenceForm(tree)
    return {int(tree.infoset_offset[i]) + action: 1.0}, {int(sf.parent[i]): 1.0}


@pytest.fixture(scope="module")
def kuhn_polytope(kuhn):
    return EquilibriumPolytope(kuhn[1])


@pytest.mark.parametrize("key, action, low, high", [
    ("0", 1, 0.0, 1 / 3),         # player 0, Jack, bets
    ("2", 1, 0.0, 1.0),           # player 0, King, bets (3 times the Jack's)
    ("1pb", 1, 1 / 3, 2 / 3),     # player 0, Queen, calls after check-bet
    ("0p", 1, 1 / 3, 1 / 3),      # player 1, Jack after a check, bets (unique)
    ("1b", 1, 1 / 3, 1 / 3),      # player 1, Queen facing a bet, calls (unique)
])
def test_kuhn_equilibrium_family(kuhn, kuhn_polytope, key, action, low, high):
    num, den = _probability(kuhn[1], key, action)
    lo, hi = kuhn_polytope.interval(num, den)
    assert lo == pytest.approx(low, abs=1e-7) and hi == pytest.approx(high, abs=1e-7)


def test_epsilon_widens_the_interval_and_contains_a_solve(kuhn, kuhn_polytope):
    _, tree = kuhn
    num, den = _probability(tree, "0p", 1)
    lo, hi = kuhn_polytope.interval(num, den, epsilon=1e-3)
    assert lo < 1 / 3 - 1e-4 and hi > 1 / 3 + 1e-4
    result = solvers.solve(tree, "cfr+", target_exploitability=1e-3, iterations=10_000,
                           progress=False)
    i = tree.infoset_index("0p")
    x = result.average_policy[tree.infoset_offset[i] + 1]
    assert lo - 1e-9 <= x <= hi + 1e-9
