"""The analysis on the public tree (no histories) equals the history tree's analysis of the same policy.

Every figure (claims by turn and by influence, the card choice and its two values, the starting hands
and their two values, the game value) to 1e-9, on Coup turn limits 1 and 2 under both limit payoffs,
for a solved strategy and for a random one (which reaches every claim, bluffs included).
"""

import math

import numpy as np
import pytest

import coupsolve
from coupsolve.analysis.history import analyse
from coupsolve.analysis.public import analyse_public
from solvers import Solver
from test_public_coup import history_public_pair as _pair


def _close(a, b, path="analysis"):
    if isinstance(a, dict):
        assert set(a) == set(b), path
        for k in a:
            _close(a[k], b[k], f"{path}[{k!r}]")
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b)):
            _close(x, y, f"{path}[{i}]")
    elif isinstance(a, float) or isinstance(b, float):
        if a is None or b is None or (math.isnan(a) and math.isnan(b)):
            assert a is None and b is None or math.isnan(a) and math.isnan(b), path
        else:
            assert abs(a - b) <= 1e-9 * max(1.0, abs(a)), f"{path}: {a} != {b}"
    else:
        assert a == b, path


def _random_policy(public, seed):
    rng = np.random.default_rng(seed)
    x = rng.random(public.tree.num_actions) + 0.05
    sums = np.add.reduceat(x, public.tree.infoset_offset)
    return x / np.repeat(sums, public.tree.infoset_num_actions)


@pytest.mark.parametrize("turn_limit, payoff", [
    (1, "draw"), (1, "influence"), (2, "influence"),
    pytest.param(2, "draw", marks=pytest.mark.slow)])
def test_public_analysis_equals_the_history_analysis(turn_limit, payoff):
    rules = coupsolve.Rules.two_player_selection(turn_limit=turn_limit, limit_payoff=payoff)
    history, public, perm = _pair(rules)
    solver = Solver(public.tree, "cfr+")
    solver.step(20)
    for policy in (solver.average_policy(), _random_policy(public, turn_limit)):
        mine = analyse_public(public, policy).to_dict()
        theirs = analyse(history, policy[perm]).to_dict()
        _close(mine, theirs)
    # the random policy bluffs and is caught: the comparison covered bluffs and failed proofs
    rows = analyse_public(public, _random_policy(public, 0)).claims
    assert any(r.bluff > 0 for r in rows) and any(r.challenge_success > 0 for r in rows)
    assert any(0 < r.challenge_success < 1 for r in rows)


def test_public_analysis_refuses_other_trees():
    with pytest.raises(ValueError, match="CoupPublicTree"):
        analyse_public(object(), np.zeros(1))
