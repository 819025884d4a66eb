"""solve()'s speed options: precision, updates, threads; and the solver layout."""

import importlib

import numba
import numpy as np
import pytest
from open_spiel.python.algorithms import cfr as os_cfr

import solvers
from solvers import from_openspiel_policy
from solvers.history.layout import PARTS, layout_for
from solvers.kinds import CHANCE, SEG_CHANCE, TERMINAL
from solvers.cfr.checkpoint import load_checkpoint

two_threads = pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2,
                                 reason="numba has a single thread here")

history_module = importlib.import_module("solvers.history.rep")  # the GameTree representation


@pytest.fixture
def parallel_small_trees(monkeypatch):
    """Let the test trees (far below PARALLEL_MIN_HISTORIES) run on several threads."""
    monkeypatch.setattr(history_module, "PARALLEL_MIN_HISTORIES", 0)


def test_default_options_are_the_openspiel_exact_mode(leduc):
    _, tree = leduc
    default = solvers.solve(tree, "cfr+", iterations=30, progress=False)
    explicit = solvers.solve(tree, "cfr+", iterations=30, progress=False, precision="float64",
                             updates="alternating", threads=1)
    assert np.array_equal(default.average_policy, explicit.average_policy)
    assert np.array_equal(default.current_policy, explicit.current_policy)


@pytest.mark.parametrize("name", ["kuhn", "leduc"])
@pytest.mark.parametrize("algorithm, plus", [("cfr", False), ("cfr+", True)])
def test_simultaneous_updates_equal_openspiel_simultaneous_solver(name, algorithm, plus, request):
    game, tree = request.getfixturevalue(name)
    iterations = 30
    solver = os_cfr._CFRSolver(game, alternating_updates=False, linear_averaging=plus,
                               regret_matching_plus=plus)
    for _ in range(iterations):
        solver.evaluate_and_update_policy()
    result = solvers.solve(tree, algorithm, iterations=iterations, updates="simultaneous",
                           progress=False)
    average = from_openspiel_policy(tree, solver.average_policy())
    current = from_openspiel_policy(tree, solver.current_policy())
    assert np.max(np.abs(result.average_policy - average)) <= 1e-9
    assert np.max(np.abs(result.current_policy - current)) <= 1e-9


@pytest.mark.parametrize("updates", ["alternating", "simultaneous"])
def test_float32_tracks_float64(updates, leduc):
    _, tree = leduc
    f64 = solvers.solve(tree, "cfr+", iterations=200, progress=False, updates=updates)
    f32 = solvers.solve(tree, "cfr+", iterations=200, progress=False, updates=updates,
                        precision="float32")
    # CFR+'s regret matching amplifies rounding, so the policies drift apart
    # where little is at stake; the exploitability stays the same.
    assert abs(f32.exploitability - f64.exploitability) < 0.1 * f64.exploitability


def test_float32_converges_on_leduc(leduc):
    _, tree = leduc
    result = solvers.solve(tree, "cfr+", iterations=1000, check_every=500, progress=False,
                           precision="float32")
    assert result.exploitability <= 3e-4  # as float64 (test_leduc_cfr_plus_1000_iterations)
    # The exploitability is exact (float64 best response) and agrees with the API.
    assert result.exploitability == pytest.approx(
        solvers.exploitability(tree, result.average_policy), abs=1e-12)


@pytest.mark.parametrize("algorithm, bound", [("cfr+", 0.02), ("dcfr", 0.02), ("pcfr+", 0.005)])
def test_simultaneous_updates_converge(algorithm, bound, leduc):
    _, tree = leduc
    first = solvers.solve(tree, algorithm, iterations=50, updates="simultaneous", progress=False)
    result = solvers.solve(tree, algorithm, iterations=1000, check_every=1000,
                           updates="simultaneous", progress=False)
    assert result.exploitability < min(bound, first.exploitability / 3)


@two_threads
@pytest.mark.parametrize("algorithm", ["cfr+", "dcfr", "pcfr+"])
@pytest.mark.parametrize("updates", ["alternating", "simultaneous"])
def test_two_threads_agree_with_one(algorithm, updates, liars_dice, parallel_small_trees):
    _, tree = liars_dice
    one = solvers.solve(tree, algorithm, iterations=40, updates=updates, progress=False)
    two = solvers.solve(tree, algorithm, iterations=40, updates=updates, threads=2,
                        progress=False)
    assert layout_for(tree).cut < tree.depth  # the tree really is split into parts
    assert np.max(np.abs(one.average_policy - two.average_policy)) < 1e-7
    assert abs(one.exploitability - two.exploitability) < 1e-9


@two_threads
def test_threads_with_float32_converge(liars_dice, parallel_small_trees):
    _, tree = liars_dice
    result = solvers.solve(tree, "cfr+", iterations=200, check_every=200, progress=False,
                           precision="float32", threads=2)
    assert result.exploitability < 2e-3


@two_threads
def test_small_trees_run_on_one_thread(liars_dice, parallel_small_trees, monkeypatch):
    _, tree = liars_dice
    one = solvers.solve(tree, "cfr+", iterations=30, progress=False)
    two = solvers.solve(tree, "cfr+", iterations=30, threads=2, progress=False)
    assert not np.array_equal(one.average_policy, two.average_policy)  # really parallel
    monkeypatch.setattr(history_module, "PARALLEL_MIN_HISTORIES", tree.num_nodes + 1)
    small = solvers.solve(tree, "cfr+", iterations=30, threads=2, progress=False)
    assert np.array_equal(one.average_policy, small.average_policy)
    assert np.array_equal(one.current_policy, small.current_policy)


def test_split_run_in_a_fast_mode_equals_uninterrupted(leduc, tmp_path):
    _, tree = leduc
    options = dict(precision="float32", updates="simultaneous", progress=False)
    path = tmp_path / "fast.npz"
    solvers.solve(tree, "cfr+", iterations=20, checkpoint=path, **options)
    resumed = solvers.solve(tree, iterations=45, resume=path, checkpoint=path, **options)
    whole = solvers.solve(tree, "cfr+", iterations=45, **options)
    assert np.array_equal(resumed.average_policy, whole.average_policy)
    assert np.array_equal(resumed.current_policy, whole.current_policy)
    assert load_checkpoint(path, tree)["iterations"] == 45


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(precision="float16"), ValueError, "precision must be one of"),
    (dict(precision=32), ValueError, "precision must be one of"),
    (dict(updates="async"), ValueError, "updates must be one of"),
    (dict(threads=0), ValueError, "threads must be at least 1"),
    (dict(threads=1.5), TypeError, "threads must be an int"),
    (dict(threads=PARTS + numba.config.NUMBA_NUM_THREADS), ValueError, "exceeds"),
])
def test_bad_mode_arguments_are_refused(kwargs, error, message, kuhn):
    _, tree = kuhn
    with pytest.raises(error, match=message):
        solvers.solve(tree, iterations=1, progress=False, **kwargs)


# ----------------------------------------------------------------- the layout
@pytest.mark.parametrize("name", ["kuhn", "leduc", "liars_dice"])
def test_layout_describes_the_tree(name, request):
    _, tree = request.getfixturevalue(name)
    lay = layout_for(tree)
    kind = tree.node_kind
    nonterminal = np.flatnonzero(kind != TERMINAL)
    node = lay.node.astype(np.int64)
    # every non-terminal exactly once, level by level
    assert np.array_equal(np.sort(node), nonterminal)
    level = np.searchsorted(tree.level_start, node, side="right") - 1
    assert np.all(np.diff(level) >= 0)
    assert np.array_equal(lay.child.astype(np.int64), tree.child_start[node])
    # segments: one kind and one number of children each
    for s in range(lay.seg_kind.shape[0]):
        members = node[lay.seg_start[s]:lay.seg_start[s + 1]]
        kinds = np.where(kind[members] == CHANCE, SEG_CHANCE, tree.node_player[members])
        assert np.all(kinds == lay.seg_kind[s])
        assert np.all(tree.num_children[members] == lay.seg_nc[s])
    # parent slots and edge probabilities reproduce the tree's
    parent = np.full(tree.num_nodes, -1)
    for i in nonterminal:
        parent[tree.child_start[i]:tree.child_start[i] + tree.num_children[i]] = i
    par = lay.par.astype(np.int64)
    assert np.array_equal(node[par[1:]], parent[node[1:]])
    # internal action order is a permutation and round-trips
    flat = np.random.default_rng(0).random(tree.num_actions)
    assert np.array_equal(np.sort(lay.perm), np.arange(tree.num_actions))
    assert np.array_equal(lay.to_tree(lay.to_internal(flat)), flat)
    assert np.array_equal(lay.ioff[lay.order], lay.info_offset.astype(np.int64))
    # parts: contiguous ranges per level that cover it
    bounds = lay.part_bounds
    assert np.all(bounds[:, 0] == tree.level_start[:-1])
    assert np.all(bounds[:, -1] == tree.level_start[1:])
    assert np.all(np.diff(bounds, axis=1) >= 0)


def test_parts_group_whole_subtrees(liars_dice):
    _, tree = liars_dice
    lay = layout_for(tree)
    part_of = np.full(tree.num_nodes, -1)
    for d in range(lay.cut, tree.depth + 1):
        for p in range(PARTS):
            part_of[lay.part_bounds[d, p]:lay.part_bounds[d, p + 1]] = p
    for i in range(tree.level_start[lay.cut], tree.num_nodes):
        if tree.node_kind[i] != TERMINAL:
            children = slice(tree.child_start[i], tree.child_start[i] + tree.num_children[i])
            assert np.all(part_of[children] == part_of[i])
