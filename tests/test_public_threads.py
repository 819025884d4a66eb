"""A public tree's iterates do not depend on the threads its passes run on.

The nodes of a level are independent (each reads its parent's entries and writes its own entries,
information sets and children's entries), so however a level is shared between threads, and whether a
small level runs on the calling thread (``solvers.public._node.LEVEL_MIN_ENTRIES``), every value is
computed by the same arithmetic in the same order. Checked bit for bit on Coup at turn limit 2 (levels
of both kinds) on the serial drivers, on the parallel ones on one thread and on two, and on Leduc
poker with the drivers' thresholds lowered so that its small tree runs the parallel drivers on two
threads.
"""

import numba
import numpy as np
import pyspiel
import pytest

import coupsolve
from coupsolve.trees.classwalk.build import build_class_tree
from solvers import GameTree, PublicTree, Solver
from solvers.public import rep as public_rep
from solvers.public._node import LEVEL_MIN_ENTRIES
from solvers.trees.derive import openspiel_labels

THREADS = min(2, numba.config.NUMBA_NUM_THREADS)


@pytest.fixture(scope="module")
def coup2():
    return build_class_tree(coupsolve.Rules.two_player_selection(turn_limit=2)).tree


def _solve(tree, algorithm, threads, iterations, updates="alternating", prange=None):
    """The state after ``iterations``, the exploitability and a best response's value; ``prange``
    forces the parallel drivers (True) or the serial ones (False, one loop over the nodes)."""
    solver = Solver(tree, algorithm, threads=threads, updates=updates)
    if prange is not None:
        solver.representation._prange = prange
    solver.step(iterations)
    value, _ = solver.representation.best_response(solver.average_policy(), 1)
    return solver.representation.get_state(), solver.exploitability(), value, solver


def _assert_same(a, b):
    for name in ("regret", "cumulative", "sigma"):
        assert np.array_equal(a[0][name], b[0][name]), name
    assert a[1] == b[1] and a[2] == b[2]


@pytest.mark.parametrize("algorithm,updates", [("cfr+", "alternating"),
                                               pytest.param("dcfr", "alternating", marks=pytest.mark.slow),
                                               pytest.param("pcfr+", "alternating", marks=pytest.mark.slow),
                                               pytest.param("cfr+", "simultaneous", marks=pytest.mark.slow)])
def test_coup_iterates_are_the_same_on_any_threads(coup2, algorithm, updates):
    work = np.diff(coup2.entry_start[coup2.level_start])
    assert (work < LEVEL_MIN_ENTRIES).sum() >= 2 and (work >= LEVEL_MIN_ENTRIES).sum() >= 2
    serial = _solve(coup2, algorithm, 1, 6, updates)
    assert not serial[3].representation._prange  # one thread: the serial drivers
    for threads in sorted({1, THREADS}):
        got = _solve(coup2, algorithm, threads, 6, updates, prange=True)
        assert got[3].representation.threads == threads
        _assert_same(got, serial)


def test_leduc_on_the_parallel_drivers_is_the_serial_solve(monkeypatch):
    game = pyspiel.load_game("leduc_poker")
    tree = PublicTree.from_game_tree(GameTree.from_openspiel(game), openspiel_labels(game))
    serial = _solve(tree, "cfr+", 1, 10)
    assert not serial[3].representation._prange
    monkeypatch.setattr(public_rep, "PARALLEL_MIN_ENTRIES", 0)
    monkeypatch.setattr(public_rep, "PRANGE_MIN_ENTRIES", 0)
    got = _solve(tree, "cfr+", THREADS, 10)
    assert got[3].representation._prange and got[3].representation.threads == THREADS
    _assert_same(got, serial)
