"""Convergence curves (solvers.cfr.convergence): 3-player Kuhn poker sampled by MCCFR, measured by exact
NashConv; NashConv of any policy is never negative."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit

import solvers
from coupsolve.engine.hashing import seed_hashes
from solvers.cfr.convergence import cfr_curve, format_rows, mccfr_curve, strength
from solvers.mccfr.solver import SamplingGame, bind
from test_mccfr import _see  # every player sees a private or a public token

# ------------------------------------------------- N-player Kuhn poker (OpenSpiel's) as a sampling game
# params [players]; state: [cards of the players..., moves taken, moves...]; chance deals seat 0 first.
N = 3


@njit(cache=True)
def kuhn_init(P, s, h, W):
    s[:] = -1
    s[P[0]] = 0
    seed_hashes(h)


@njit(cache=True)
def _first_bet(P, s):
    n = P[0]
    for j in range(s[n]):
        if s[n + 1 + j] == 1:
            return j
    return -1


@njit(cache=True)
def kuhn_player(P, s):
    n = P[0]
    if s[n - 1] < 0:
        return -1
    k, b = s[n], _first_bet(P, s)
    if (b < 0 and k == n) or (b >= 0 and k == b + n):
        return -4
    return k % n


@njit(cache=True)
def kuhn_moves(P, s, out, prob):
    n = P[0]
    if s[n - 1] < 0:
        k = 0
        for c in range(n + 1):
            dealt = False
            for p in range(n):
                dealt = dealt or s[p] == c
            if not dealt:
                out[k] = c
                k += 1
        for j in range(k):
            prob[j] = 1.0 / k
        return k
    out[0] = 0
    out[1] = 1
    return 2


@njit(cache=True)
def kuhn_step(P, s, h, a, W):
    n = P[0]
    for p in range(n):
        if s[p] < 0:
            s[p] = a
            _see(h, p, 10 + a, 5)
            return
    s[n] += 1
    s[n + s[n]] = a
    _see(h, -1, 20 + a, 20 + a)


@njit(cache=True)
def kuhn_returns(P, s, ret):
    n = P[0]
    b = _first_bet(P, s)
    best, pot = -1, n
    for p in range(n):
        ret[p] = -1.0
    for j in range(s[n]):
        p = j % n
        if b < 0 or (j >= b and s[n + 1 + j] == 1):  # in the showdown: nobody bet, or bet/called
            if b >= 0:
                ret[p] = -2.0
                pot += 1
            if best < 0 or s[p] > s[best]:
                best = p
    ret[best] += pot


def kuhn_game(players=N):
    fns = (kuhn_init, kuhn_player, kuhn_moves, kuhn_step, kuhn_returns)
    return SamplingGame(kernels=bind(fns), params=np.array([players], np.int32),
                        scratch=(np.zeros(1, np.int32),), num_players=players,
                        state_size=3 * players + 1, max_depth=3 * players, max_moves=players + 1,
                        game_id=f"kuhn_poker(players={players})", abstraction="exact")


@pytest.fixture(scope="module")
def kuhn3():
    return solvers.GameTree.from_openspiel(f"kuhn_poker(players={N})")


@pytest.mark.slow
def test_mccfr_nash_conv_falls_on_three_player_kuhn(kuhn3):
    uniform = strength(kuhn3, kuhn3.uniform_policy())
    assert uniform[1] == "nash_conv"
    rows = mccfr_curve(kuhn_game(), kuhn3, [10, 100, 3000], seed=5)
    print(format_rows(rows))
    assert [r.iterations for r in rows] == [10, 100, 3000]
    assert all(r.measure == "nash_conv" and r.value >= -1e-12 for r in rows)
    assert rows[0].seconds <= rows[1].seconds <= rows[2].seconds
    # measured: uniform 2.0625; after 3,000 iterations 0.045 (seed 5), 0.052-0.116 (seeds 0-4)
    assert rows[-1].value < 0.15 < uniform[0]
    assert rows[-1].value < rows[0].value


@pytest.mark.slow  # compiles the CFR kernels when their cache is cold (40 s here)
def test_cfr_curve_on_a_two_player_tree_measures_exploitability():
    tree = solvers.GameTree.from_openspiel("kuhn_poker")
    rows = cfr_curve(tree, [1, 10, 100])
    assert [r.measure for r in rows] == ["exploitability"] * 3
    assert rows[-1].value < rows[0].value and rows[-1].value < 0.01
    with pytest.raises(ValueError, match="increasing"):
        cfr_curve(tree, [10, 10])


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1), power=st.floats(0.0, 6.0))
def test_nash_conv_of_any_policy_is_not_negative(kuhn3, seed, power):
    w = np.random.default_rng(seed).random(kuhn3.num_actions) ** power  # power 6: nearly pure
    policy = w / np.repeat(np.add.reduceat(w, kuhn3.infoset_offset), kuhn3.infoset_num_actions)
    assert solvers.nash_conv(kuhn3, policy) >= -1e-12
