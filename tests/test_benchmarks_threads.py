"""The threads benchmark's model and timers (benchmarks/threads) on Leduc poker's public tree.

The timed pass must be the solver's own pass (same iterates), the model's split must be the drivers'
split, and the model must give what its formula says at its limits: one thread is the sum of the
nodes, an even split can do no better than the sum over the threads, and a tiny bandwidth makes the
bytes the whole time.
"""

import numpy as np
import pyspiel
import pytest

from benchmarks.threads import kernels as K
from benchmarks.threads.measure import node_times
from benchmarks.threads.model import (PassProfile, best_shares, claimed, level_of, makespans,
                                      model_time, node_bytes, shares)
from benchmarks.threads.report import parallel_mask
from solvers import GameTree, PublicTree, Solver
from solvers.kinds import TERMINAL
from solvers.public._node import _cut
from solvers.trees.derive import openspiel_labels


@pytest.fixture(scope="module")
def leduc_public():
    game = pyspiel.load_game("leduc_poker")
    return PublicTree.from_game_tree(GameTree.from_openspiel(game), openspiel_labels(game))


@pytest.mark.slow  # compiles timed copies of the passes: instrumentation, run by `make test-slow`
def test_the_timed_iteration_is_the_solvers_iteration(leduc_public):
    a, b = Solver(leduc_public, "cfr+"), Solver(leduc_public, "cfr+")
    a.step(4)
    b.step(1)
    rep = b.representation
    n = leduc_public.num_nodes
    fwd, bwd = np.zeros((2, n), np.int64), np.zeros((2, n), np.int64)
    for _ in range(3):
        K.timed_iteration(leduc_public.flat, rep.state, rep.params, fwd, bwd)
    for name in ("regret", "cumulative", "sigma"):
        assert np.array_equal(getattr(rep.state, name), getattr(a.representation.state, name))
    assert b.iterations == 4
    inner = leduc_public.node_kind != TERMINAL
    assert (bwd[:, inner] > 0).all()  # every decision or chance node took some time


@pytest.mark.slow  # compiles timed copies of the passes: instrumentation, run by `make test-slow`
def test_node_times_leave_the_solve_going_on(leduc_public):
    a, b = Solver(leduc_public, "cfr+"), Solver(leduc_public, "cfr+")
    b.step(1)
    times = node_times(b.representation, 2, 1e-9)
    a.step(1 + 1 + 2 + 1)  # node_times runs one iteration, two timed ones and a last one
    assert np.array_equal(b.representation.state.regret, a.representation.state.regret)
    assert set(times) == {"overhead", "forward 0", "forward 1", "backward 0", "backward 1",
                          "values 0"}
    assert all((t >= 0).all() for t in times.values())


def test_shares_are_the_drivers_cut(leduc_public):
    T = leduc_public.flat
    es, ls = T.entry_start, T.level_start
    for d in range(len(ls) - 1):
        a, b = int(ls[d]), int(ls[d + 1])
        for P in (1, 2, 3, 4, 8, 16):
            kernel = [int(_cut(T, np.int64(a), np.int64(b), np.int64(t), np.int64(P)))
                      for t in range(P + 1)]
            assert shares(es, a, b, P).tolist() == kernel
            if 64 % P == 0:  # 64 runs in blocks of 64 / P are the cut into P: the forward pass's
                assert shares(es, a, b, P, 64).tolist() == kernel


def test_makespans_and_the_model_at_their_limits(leduc_public):
    T = leduc_public.flat
    es, ls = T.entry_start, T.level_start
    rng = np.random.default_rng(0)
    n = leduc_public.num_nodes
    cost = rng.random(n) * 1e-6
    nbytes = rng.random(n) * 100
    p = PassProfile("backward 0", cost, nbytes).levels(ls)
    assert np.allclose(makespans(cost, es, ls, 1), p.level_cost)
    for P in (2, 4, 16):
        by_entries = makespans(cost, es, ls, P)
        best = makespans(cost, es, ls, P, rule="cost")
        assert (by_entries <= p.level_cost + 1e-18).all()
        assert (best >= p.level_cost / P - 1e-18).all()
    lv = level_of(ls)
    assert (np.diff(lv) >= 0).all() and lv[-1] == len(ls) - 2
    one = model_time([p], es, ls, 1, 0.0, (np.inf, np.inf))
    assert one[0] == pytest.approx(cost.sum()) and one[3] == len(ls) - 1
    with_regions = model_time([p], es, ls, 4, 1e-3, (np.inf, np.inf))
    assert with_regions[0] == pytest.approx(with_regions[1] + 1e-3 * (len(ls) - 1))
    starved = model_time([p], es, ls, 4, 0.0, (1.0, 1.0))
    assert starved[0] == pytest.approx(nbytes.sum())  # one byte a second: the bytes are all
    prefix = np.concatenate(([0.0], np.cumsum(cost)))
    assert best_shares(prefix, 0, n, 4)[[0, -1]].tolist() == [0, n]


def test_bytes_and_masks(leduc_public):
    T = leduc_public.flat
    nb = node_bytes(T, 8)
    assert set(nb) == {"forward 0", "forward 1", "backward 0", "backward 1", "values 0"}
    terminal = T.node_kind == TERMINAL
    for name, b in nb.items():
        assert (b >= 0).all() and b.sum() > 0
        if name.startswith("forward"):
            assert (b[terminal] == 0).all()  # a terminal passes no reach
    passes = [PassProfile(name, np.ones(len(b)), b) for name, b in nb.items()]
    every = parallel_mask(passes, T.entry_start, T.level_start, 0)
    none = parallel_mask(passes, T.entry_start, T.level_start, 1 << 40)
    assert every["backward 0"].all() and not every["forward 0"][-1]
    assert not any(m.any() for m in none.values())


def test_runs_taken_one_at_a_time_balance_what_fixed_shares_do_not():
    """One expensive node among cheap ones: fixed halves by entries leave one thread with it and
    half the rest (71 of 103); runs taken one at a time share the rest (52, half of 103 rounded
    up to a whole run)."""
    n = 64
    es = np.arange(n + 1, dtype=np.int64) * 100  # 100 entries a node
    cost = np.ones(n)
    cost[0] = 40.0
    prefix = np.concatenate(([0.0], np.cumsum(cost)))
    fixed = makespans(cost, es, np.array([0, n]), 2)[0]
    taken = claimed(prefix, es, 0, n, 2, 100, 512)  # a run per node
    assert fixed == 40 + 31 and taken == 52
    assert claimed(prefix, es, 0, n, 1, 100, 512) == cost.sum()
    assert claimed(prefix, es, 0, n, 2, 10 ** 9, 512) == cost.sum()  # one run: one thread
