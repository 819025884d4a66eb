"""The exact analysis of a strategy solved in pieces equals the whole public tree's analysis.

:func:`coupsolve.analysis.pieces.analyse_pieces_exact` walks the trunk and the parts apart; every figure
(claims by turn and by influence, the card choice and its two values, the starting hands and their two
values, the game value) must equal :func:`coupsolve.analysis.public.analyse_public` on the whole class
walk's tree (itself checked against the history analysis in ``test_public_analysis.py``) to 1e-9, for
a random policy (every claim is made, bluffed and caught) and a solved one, whether the cut is above or
below the first turn.
"""

import numpy as np
import pytest

import coupsolve
from coupsolve.trees.classwalk.build import build_class_tree
from coupsolve.trees.pieces.build import build_class_pieces
from coupsolve.analysis.pieces import analyse_pieces_exact
from coupsolve.analysis.public import analyse_public
from solvers import PublicPieces, Solver
from solvers.trees.derive import within
from test_public_analysis import _close, _random_policy


def _to_pieces(built, whole):
    """The positions, in the whole tree's per-action arrays, of the pieces' actions (matched by the
    information sets' keys; the actions of an information set are in the same order in both)."""
    t = whole.tree
    where = {int(h): i for i, h in enumerate(whole.infoset_hash)}
    J = np.array([where[int(h)] for h in built.infoset_hash])
    n = t.infoset_num_actions[J]
    starts = np.repeat(t.infoset_offset[J], n)
    out = starts + within(n)
    np.testing.assert_array_equal(t.infoset_actions[out], built.infoset_actions)
    return out


@pytest.fixture(scope="module", params=[(1, "draw"), pytest.param((2, "influence"), marks=pytest.mark.slow)])
def whole(request):
    turn_limit, payoff = request.param
    rules = coupsolve.Rules.two_player_selection(turn_limit=turn_limit, limit_payoff=payoff)
    return rules, build_class_tree(rules)


def _first_turn_in_parts(built, pieces):
    """Whether the first turn's decisions (some of them) are in the parts rather than the trunk."""
    from coupsolve import engine as E
    from coupsolve.engine.context import context_field

    ctx = built.infoset_context
    turn1 = (context_field(ctx, E.CTX_PHASE) == E.PH_TURN) & (context_field(ctx, E.CTX_TURN) == 1)
    return bool(turn1[pieces.trunk.infosets.stop:].any())


@pytest.mark.parametrize("depth, parts, cut_below_turn1", [(2, 3, True), (6, 5, False)])
def test_the_pieces_analysis_equals_the_whole_trees(whole, depth, parts, cut_below_turn1):
    rules, public = whole
    built = build_class_pieces(rules, depth, parts)
    pieces = PublicPieces("coup", built.trunk, built.parts, built.infoset_actions)
    assert _first_turn_in_parts(built, pieces) == cut_below_turn1
    perm = _to_pieces(built, public)
    solver = Solver(public.tree, "cfr+")
    solver.step(10)
    for policy in (_random_policy(public, depth), solver.average_policy()):
        theirs = analyse_public(public, policy).to_dict()
        seen = []
        mine = analyse_pieces_exact(pieces, built, policy[perm], progress=lambda *a: seen.append(a))
        _close(mine.to_dict(), theirs)
        assert seen[-1] == ("analysing the parts", len(pieces.parts), len(pieces.parts))
    # a float32 solve's policy is taken as it is
    low = analyse_pieces_exact(pieces, built, policy[perm].astype(np.float32))
    assert abs(low.game_value[0] - theirs["game_value"][0]) < 1e-5


def test_hands_keys_and_contexts_spilled_to_disk_give_the_same_pieces_and_analysis(whole, tmp_path):
    """``build_class_pieces(spill=folder)`` writes them part by part and maps them back from files
    it has already unlinked (nothing is left in the folder): the same arrays, pieces and analysis
    as a build that holds them."""
    rules, public = whole
    built = build_class_pieces(rules, 6, 4)
    spilled = build_class_pieces(rules, 6, 4, spill=str(tmp_path))
    assert list(tmp_path.iterdir()) == []
    for name in ("infoset_hash", "infoset_actions", "infoset_context"):
        mine = getattr(spilled, name)
        assert isinstance(mine.base, np.memmap), name
        np.testing.assert_array_equal(mine, getattr(built, name))
    assert all(isinstance(h.base.base, np.memmap) for h in spilled.entry_hand)
    assert len(spilled.entry_hand) == len(built.entry_hand)
    for mine, theirs in zip(spilled.entry_hand, built.entry_hand):
        np.testing.assert_array_equal(mine, theirs)
    for mine, theirs in zip([spilled.trunk] + spilled.parts, [built.trunk] + built.parts):
        assert (mine.infosets, mine.actions, mine.roots) == (theirs.infosets, theirs.actions, theirs.roots)
        for a, b in zip(mine.flat, theirs.flat):
            np.testing.assert_array_equal(a, b)
    pieces = PublicPieces("coup", spilled.trunk, spilled.parts, spilled.infoset_actions)
    policy = _random_policy(public, 7)[_to_pieces(built, public)]
    _close(analyse_pieces_exact(pieces, spilled, policy).to_dict(),
           analyse_pieces_exact(pieces, built, policy).to_dict())


def test_the_pieces_analysis_refuses_what_it_cannot_read(whole):
    rules, _ = whole
    built = build_class_pieces(rules, 2, 2)
    pieces = PublicPieces("coup", built.trunk, built.parts, built.infoset_actions)
    with pytest.raises(ValueError, match="shape"):
        analyse_pieces_exact(pieces, built, np.zeros(3))
    with pytest.raises(ValueError, match="hands and contexts"):
        analyse_pieces_exact(pieces, built._replace(entry_hand=[]), np.zeros(pieces.num_actions))
    with pytest.raises(ValueError, match="PublicPieces"):
        analyse_pieces_exact(built, built, np.zeros(pieces.num_actions))
