"""Magnetic Mirror Descent on the public tree (solvers.public.mmd) against the history tree's
(solvers.history.mmd, itself OpenSpiel's MMDDilatedEnt iterate for iterate) and OpenSpiel directly.

Kuhn and Leduc poker, random games with hidden and public chance (where several entries and
terminals share a pair of last sequences) and Coup at turn limit 1: the iterates must agree to 1e-9
after every iteration, for both registered runs and other temperatures and magnets, and ``max|A|``
(the step's scale) must be the history tree's. Then the threads, a checkpoint and the exploitability.
"""

import importlib
import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from open_spiel.python.algorithms.mmd_dilated import MMDDilatedEnt

import coupsolve
import solvers
import solvers.public.mmd as public_mmd
from solvers import GameTree, PublicTree, Solver, from_openspiel_policy
from solvers.cfr.mmd import MMDSpec
from solvers.public.mmd import PublicMMD
from solvers.trees.derive import openspiel_labels
from test_public_coup import history_public_pair
from test_solvers_public import random_public_game

SPECS = ["mmd", "mmd-qre", MMDSpec("t", alpha=0.5, magnet="dilated"), MMDSpec("t", alpha=0.2)]


def _public(pair):
    game, tree = pair
    return PublicTree.from_game_tree(tree, openspiel_labels(game))


def assert_same_iterates(tree, public, spec, iterations, perm=None):
    """Step both solvers together; after every iteration the policies agree to 1e-9 (``perm``: the
    public tree's positions of the history tree's actions). Returns the largest difference."""
    perm = np.arange(tree.num_actions) if perm is None else perm
    a, b = Solver(tree, spec), Solver(public, spec)
    assert isinstance(b.representation, PublicMMD)
    assert b.representation.sf.scale == pytest.approx(a.representation.sf.scale, rel=1e-12, abs=1e-300)
    worst = 0.0
    for _ in range(iterations):
        a.step(1)
        b.step(1)
        gap = float(np.max(np.abs(b.current_policy()[perm] - a.current_policy())))
        assert gap <= 1e-9
        worst = max(worst, gap)
    np.testing.assert_array_equal(b.average_policy(), b.current_policy())
    assert abs(b.exploitability() - a.exploitability()) < 1e-9
    assert np.max(np.abs(a.current_policy() - tree.uniform_policy())) > 1e-3  # it moved
    return worst


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: getattr(s, "name", s) + str(getattr(s, "alpha", "")))
@pytest.mark.parametrize("name, iterations", [("kuhn", 40), ("leduc", 4)])
def test_iterates_equal_the_history_trees(name, iterations, spec, request):
    pair = request.getfixturevalue(name)
    assert_same_iterates(pair[1], _public(pair), spec, iterations)


def test_iterates_equal_openspiel_mmd_dilated(kuhn):
    """OpenSpiel's MMDDilatedEnt at alpha 0.05 (its dilated magnet), compared with the public tree
    directly."""
    game, tree = kuhn
    public = _public(kuhn)
    ours = Solver(public, MMDSpec("t", alpha=0.05, magnet="dilated"))
    theirs = MMDDilatedEnt(game, alpha=0.05)
    for _ in range(60):
        ours.step(1)
        theirs.update_sequences()
        reference = from_openspiel_policy(tree, theirs.get_policies())
        assert np.max(np.abs(ours.current_policy() - reference)) <= 1e-9
    assert np.max(np.abs(reference - tree.uniform_policy())) > 0.02


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), spec=st.sampled_from(SPECS[:3]), iterations=st.integers(1, 6))
@example(seed=17168, spec=SPECS[0], iterations=1)  # a hidden outcome seen, then a public one
def test_random_games_with_random_public_partitions(seed, spec, iterations):
    """Hidden chance after a player's last decision and public chance that ends the game: entries
    and terminals share pairs of last sequences, which ``max|A|`` must sum as the matrix does."""
    root, labels = random_public_game(seed, max_depth=5, max_branch=3)
    if root[0] == "terminal":
        return
    tree = GameTree.from_nested(root, f"random-{seed}")
    public = PublicTree.from_game_tree(tree, labels)
    a, b = Solver(tree, spec), Solver(public, spec)
    assert b.representation.sf.scale == pytest.approx(a.representation.sf.scale, rel=1e-12)
    np.testing.assert_array_equal(b.representation.sf.below, a.representation.sf.below)
    np.testing.assert_array_equal(b.representation.sf.parent, a.representation.sf.parent)
    for _ in range(iterations):
        a.step(1)
        b.step(1)
        np.testing.assert_allclose(b.current_policy(), a.current_policy(), atol=1e-9, rtol=0)


@pytest.fixture(scope="module")
def coup_tl1():
    rules = coupsolve.Rules.two_player_selection(turn_limit=1, limit_payoff="influence")
    return {builder: history_public_pair(rules, builder) for builder in ("walk", "class")}


@pytest.mark.parametrize("builder", ["walk", "class"])
@pytest.mark.parametrize("spec", SPECS[:2])
def test_coup_turn_limit_1_iterates_equal_the_history_trees(coup_tl1, builder, spec):
    """The step walk's public tree (a matrix per terminal) and the class walk's (shared matrices)."""
    history, public, perm = coup_tl1[builder]
    worst = assert_same_iterates(history.tree, public.tree, spec, 8, perm)
    print(f"coup tl1 {builder} {spec}: largest difference {worst:.2e}")


def test_threads_do_not_change_the_iterates(leduc, monkeypatch):
    """The passes as parallel loops on two threads (forced: Leduc is below the thresholds) give the
    iterates of one thread, bit for bit."""
    public = _public(leduc)
    one = Solver(public, "mmd")
    rep = importlib.import_module("solvers.public.rep")
    monkeypatch.setattr(rep, "PARALLEL_MIN_ENTRIES", 0)
    monkeypatch.setattr(rep, "PRANGE_MIN_ENTRIES", 0)  # read by rep.passes_parallel
    two = Solver(public, "mmd", threads=2)
    assert two.representation.threads == 2 and two.representation.X.shape[0] == 2
    for _ in range(5):
        one.step(1)
        two.step(1)
        np.testing.assert_array_equal(two.current_policy(), one.current_policy())
    assert two.exploitability() == one.exploitability()


def test_checkpoint_resumes_bit_for_bit(leduc, tmp_path):
    public = _public(leduc)
    whole = solvers.solve(public, "mmd", iterations=12, progress=False)
    path = tmp_path / "m.npz"
    solvers.solve(public, "mmd", iterations=7, checkpoint=path, progress=False)
    resumed = solvers.solve(public, iterations=12, resume=path, progress=False)
    assert resumed.algorithm == "mmd" and resumed.iterations == 12
    np.testing.assert_array_equal(resumed.average_policy, whole.average_policy)


def test_annealed_mmd_approaches_a_nash_equilibrium(kuhn):
    result = solvers.solve(_public(kuhn), "mmd", iterations=6000, progress=False)
    assert result.exploitability < 0.005
    assert abs(result.game_value[0] + 1 / 18) <= 2 * result.exploitability


def test_pieces_are_refused_naming_what_runs_mmd():
    from solvers.cfr.representation import representation_for
    from solvers.pieces.local import PublicPieces

    with pytest.raises(TypeError, match="for mmd: GameTree, PublicTree"):
        representation_for(PublicPieces.__new__(PublicPieces), solvers.ALGORITHMS["mmd"])


@pytest.mark.parametrize("chunk", [1, 5, 1 << 22])
def test_the_scale_summed_in_chunks_is_the_matrix_entry(leduc, monkeypatch, chunk):
    """``max|A|`` from chunks of a few pairs (many sorts, ranges of one sequence) or one chunk."""
    import solvers.public._sequences as sequences
    from solvers.history.mmd import SequenceForm

    monkeypatch.setattr(sequences, "CHUNK", chunk)
    public = _public(leduc)
    assert sequences.PublicSequences(public).scale == pytest.approx(SequenceForm(leduc[1]).scale,
                                                                     rel=1e-12)
