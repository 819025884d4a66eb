"""A public tree held as pieces (solvers.PublicPieces) solves like the whole tree.

Leduc poker's public tree cut by ``split`` and Coup's built in pieces by the class walk
(``coupsolve.trees.pieces.build``) give the whole tree's iterates, exploitability, checkpoints and strategy
files, with the parts iterated one after the other over one set of per-entry buffers.
"""

import os

import numpy as np
import pyspiel
import pytest

import coupsolve
import solvers
from coupsolve.trees.classwalk.build import build_class_tree
from coupsolve.trees.pieces.build import build_class_pieces
from solvers import GameTree, PublicPieces, PublicTree, Solver
from solvers.trees.derive import openspiel_labels
from solvers.pieces.local import PiecesRep
from solvers.public.rep import PublicTreeRep
from solvers.pieces.split import renumbered, split


@pytest.fixture(scope="module")
def leduc():
    game = pyspiel.load_game("leduc_poker")
    public = PublicTree.from_game_tree(GameTree.from_openspiel(game), openspiel_labels(game))
    trunk, parts, _, actions = renumbered(*split(public, 3, 4))
    pieces = PublicPieces(public.game_id, trunk, parts, public.infoset_actions[actions])
    return public, pieces, actions


@pytest.mark.parametrize("algorithm, updates", [("cfr+", "alternating"), ("pcfr+", "simultaneous"),
                                                ("dcfr", "alternating")])
def test_leduc_pieces_iterate_like_the_whole_tree(leduc, algorithm, updates):
    public, pieces, order = leduc
    a, b = Solver(public, algorithm, updates=updates), Solver(pieces, algorithm, updates=updates)
    for _ in range(3):
        a.step(4)
        b.step(4)
        assert np.array_equal(a.average_policy()[order], b.average_policy())
        assert np.array_equal(a.current_policy()[order], b.current_policy())
        assert abs(a.exploitability() - b.exploitability()) < 1e-12
    runners = b.representation.part_runners()
    assert len(runners) > 1
    # one set of pass buffers; each piece's state a slice of the numbering's arrays
    assert all(r.state.reach.base is runners[0].state.reach.base for r in runners)
    assert all(r.state.acc.base is runners[0].state.acc.base for r in runners)
    assert all(r.state.regret.base is b.representation.held["regret"] for r in runners)


def test_pieces_checkpoints_and_strategy_files(leduc, tmp_path):
    public, pieces, _ = leduc
    s = Solver(pieces, "cfr+")
    s.step(5)
    path = os.fspath(tmp_path / "c.npz")
    s.save(path)
    r = Solver.load(path, pieces)
    s.step(3)
    r.step(3)
    assert np.array_equal(s.average_policy(), r.average_policy())
    result = solvers.solve(pieces, iterations=4, progress=False)
    result.save(os.fspath(tmp_path / "s.npz"))
    back = solvers.SolveResult.load(os.fspath(tmp_path / "s.npz"), tree=pieces)
    assert np.array_equal(back.average_policy, result.average_policy)
    with pytest.raises(ValueError, match="solved on a PublicPieces"):
        solvers.SolveResult.load(os.fspath(tmp_path / "s.npz"), tree=public)


def test_the_estimate_is_the_buffers_a_solve_holds(leduc):
    public, pieces, _ = leduc
    precision = "float64"  # float32's is the same count of elements (a float32 compile is slow)
    spec = solvers.ALGORITHMS["pcfr+"]
    rep = PiecesRep(pieces, spec, precision, "alternating", 1)
    held = {}
    for r in [rep.trunk] + rep.part_runners():
        for name in ("sigma", "regret", "cumulative", "acc", "acc2", "reach", "v", "w"):
            a = getattr(r.state, name)
            base = a if a.base is None else a.base
            held[id(base)] = base.nbytes
    # the buffers, and nothing else: the exploitability check keeps no best actions
    # (test_a_solve_and_its_checks_hold_no_table_offsets), and a solve's result makes its
    # policies of the buffers (test_a_solve_hands_its_state_to_its_result)
    assert PiecesRep.estimate_bytes(pieces, spec, precision, "alternating", 1) == sum(held.values())
    whole = PublicTreeRep.estimate_bytes(public, spec, precision, "alternating", 1)
    assert sum(held.values()) < whole


def test_a_solve_hands_its_state_to_its_result(leduc):
    """``solvers.solve``'s result on pieces is made of the solver's own arrays (no copies), equal to
    the policies a result made mid-solve copies out; the solver cannot go on after it."""
    _, pieces, _ = leduc
    s = Solver(pieces, "cfr+")
    s.step(6)
    copied = s.result()
    held = dict(s.representation.held)
    last = s.result(last=True)
    assert last.average_policy is held["cumulative"] and last.current_policy is held["sigma"]
    assert np.array_equal(last.average_policy, copied.average_policy)
    assert np.array_equal(last.current_policy, copied.current_policy)
    assert last.exploitability == copied.exploitability
    for go_on in (lambda: s.step(1), lambda: s.save("never-written.npz")):
        with pytest.raises(RuntimeError, match="gave its state to its last result"):
            go_on()
    assert not os.path.exists("never-written.npz")
    whole = solvers.solve(pieces, iterations=6, progress=False)
    assert np.array_equal(whole.average_policy, copied.average_policy)


def test_inconsistent_pieces_are_refused(leduc):
    public, pieces, _ = leduc
    acts = pieces.infoset_actions
    with pytest.raises(ValueError, match="one piece after the other"):
        PublicPieces("x", pieces.trunk, pieces.parts[1:], acts)
    with pytest.raises(ValueError, match="one piece after the other"):
        PublicPieces("x", *split(public, 3, 4), public.infoset_actions)  # not renumbered
    with pytest.raises(ValueError, match="one id per action"):
        PublicPieces("x", pieces.trunk, pieces.parts, acts[:-1])
    first = pieces.parts[0]
    moved = [first._replace(roots=(first.roots[0] + 1, first.roots[1]))] + pieces.parts[1:]
    with pytest.raises(ValueError, match="follow each other"):
        PublicPieces("x", pieces.trunk, moved, acts)


@pytest.mark.slow  # compiles the parallel level kernels of the pieces' passes (minutes, cold)
def test_coup_built_in_pieces_solves_like_the_whole_tree():
    """Under the influence payoff (under the draw payoff nearly every leaf pays 0 and hides a leaf
    valued wrong), in both precisions: the same iterates, and the same best responses to them."""
    rules = coupsolve.Rules.two_player_selection(turn_limit=2, limit_payoff="influence")
    whole = build_class_tree(rules)
    built = build_class_pieces(rules, 8, 5)
    pieces = PublicPieces("coup tl2", built.trunk, built.parts, built.infoset_actions)
    a, b = Solver(whole.tree, "cfr+"), Solver(pieces, "cfr+")
    a.step(6)
    b.step(6)
    assert abs(a.exploitability() - b.exploitability()) < 1e-12
    index = {int(h): i for i, h in enumerate(whole.infoset_hash)}
    j = np.array([index[int(h)] for h in built.infoset_hash])
    n = pieces.infoset_num_actions
    pos = np.repeat(whole.tree.infoset_offset[j] - pieces.infoset_offset, n) + np.arange(n.sum())
    assert np.array_equal(whole.tree.infoset_actions[pos], pieces.infoset_actions)
    assert np.array_equal(a.average_policy()[pos], b.average_policy())
    assert np.array_equal(a.current_policy()[pos], b.current_policy())
    for precision in ("float64", "float32"):
        avg = a.average_policy().astype(precision)
        whole_rep = Solver(whole.tree, "cfr+", precision=precision).representation
        pieces_rep = Solver(pieces, "cfr+", precision=precision).representation
        for seat in (0, 1):
            v, choice = whole_rep.best_choices(avg, seat)
            w, theirs = pieces_rep.best_choices(avg[pos], seat)
            assert v == w and np.array_equal(choice[j], theirs)


def test_a_solve_and_its_checks_hold_no_table_offsets(leduc):
    """A solve of pieces, its exploitability checks and its result read each piece's own offsets:
    the table's (8 bytes an information set) are made only when asked, for a best response, which
    is the whole tree's."""
    public, pieces, order = leduc
    fresh = PublicPieces(pieces.game_id, pieces.trunk, pieces.parts, pieces.infoset_actions)
    s, whole = Solver(fresh, "cfr+"), Solver(public, "cfr+")
    s.step(5)
    whole.step(5)
    assert abs(s.exploitability() - whole.exploitability()) < 1e-12
    assert np.array_equal(s.average_policy(), whole.average_policy()[order])
    before = fresh.nbytes
    last = s.result(last=True)
    assert np.array_equal(last.average_policy, whole.average_policy()[order])
    assert "infoset_offset" not in vars(fresh)
    n = fresh.infoset_num_actions
    assert np.array_equal(fresh.infoset_offset, np.concatenate(([0], np.cumsum(n)[:-1])))
    assert fresh.nbytes == before + 8 * fresh.num_infosets
    policy = whole.average_policy()
    for player in (0, 1):
        v, br = PiecesRep(fresh, solvers.ALGORITHMS["cfr+"], "float64", "alternating",
                          1).best_response(policy[order], player)
        w, theirs = whole.representation.best_response(policy, player)
        assert abs(v - w) < 1e-12
        assert np.array_equal(br, theirs[order])


def test_an_information_set_of_more_than_127_actions_is_refused():
    """A public tree's entry slots are int8 (1 byte an entry: 0.7 GiB at turn limit 4 of Coup)."""
    from solvers.trees.publictree import MAX_ACTIONS, check_num_actions, flat_array

    assert MAX_ACTIONS == 127
    check_num_actions(np.array([2, 127], np.int32))
    with pytest.raises(ValueError, match="has 128 actions; a public tree holds at most 127"):
        check_num_actions(np.array([2, 128], np.int32))
    assert flat_array("entry_slot", np.array([-1, 126], np.int16)).dtype == np.int8
    with pytest.raises(ValueError, match="slot 200 .* at most 127 actions"):
        flat_array("entry_slot", np.array([-1, 200], np.int16))
