"""The class walk's tree built in pieces equals the whole tree cut into pieces.

:func:`coupsolve.trees.pieces.build.build_class_pieces` walks a trunk and then each part on its own; every
array of every piece must equal what :func:`solvers.pieces.split.split` cuts from the level-by-level
build at the same level and bounds, and its information sets (keys and action ids) must be the whole
tree's, in the pieces' own numbering.
"""

import numpy as np
import pytest

import coupsolve
import solvers
from coupsolve.trees.classwalk.build import build_class_tree
from coupsolve.trees.classwalk.count import count_class_tree
from coupsolve.trees.pieces.build import PiecesPlan, build_class_pieces
from solvers import PublicPieces
from solvers.trees.publictree import PublicFlat
from solvers.pieces.local import PiecesRep
from solvers.pieces.split import _ranges, split


@pytest.fixture(scope="module")
def whole():
    rules = coupsolve.Rules.two_player_selection(turn_limit=2)
    return rules, build_class_tree(rules)


@pytest.mark.parametrize("depth, parts, workers", [pytest.param(5, 1, 1, marks=pytest.mark.slow),
                                                    pytest.param(8, 3, 1, marks=pytest.mark.slow), (12, 7, 2)])
def test_pieces_equal_the_whole_tree_split(whole, depth, parts, workers):
    """Two workers walk parts at once, finishing in any order: the same pieces, numbered in order."""
    rules, tree = whole
    pieces = build_class_pieces(rules, depth, parts, workers=workers)
    assert len(pieces.parts) == pieces.bounds.shape[0] - 1 <= parts
    trunk, cut = split(tree.tree, depth, parts, bounds=pieces.bounds)
    assert len(cut) == len(pieces.parts)
    seen = []
    for mine, theirs in zip([pieces.trunk] + pieces.parts, [trunk] + cut):
        for name in PublicFlat._fields:
            np.testing.assert_array_equal(getattr(mine.flat, name), getattr(theirs.flat, name),
                                          err_msg=name)
        assert (mine.roots, mine.num_levels) == (theirs.roots, theirs.num_levels)
        np.testing.assert_array_equal(pieces.infoset_hash[mine.infosets],
                                      tree.infoset_hash[theirs.infosets])
        np.testing.assert_array_equal(pieces.infoset_actions[mine.actions],
                                      tree.tree.infoset_actions[theirs.actions])
        np.testing.assert_array_equal(pieces.infoset_context[mine.infosets],
                                      tree.infoset_context[theirs.infosets])
        np.testing.assert_array_equal(pieces.entry_hand[len(seen)], 
                                      whole_hands(tree, depth, pieces.bounds, len(seen)))
        seen.append(mine)
    assert pieces.num_infosets == tree.tree.num_infosets
    assert pieces.num_actions == tree.tree.num_actions


def whole_hands(tree, depth, bounds, k):
    """The whole tree's hands of the entries of piece ``k`` of ``split`` (0 the trunk: its levels
    down to its leaves; part ``k - 1``: its levels from its roots, :func:`solvers.pieces.split._ranges`)."""
    f, es = tree.tree.flat, tree.tree.flat.entry_start
    base = int(f.level_start[depth])
    if k == 0:
        return tree.entry_hand[:int(es[f.level_start[depth + 1]])]
    ranges = _ranges(f, base + bounds[k - 1], base + bounds[k], f.level_start.shape[0] - 2 - depth)
    return np.concatenate([tree.entry_hand[es[a]:es[b]] for a, b in ranges])


@pytest.mark.slow
def test_a_plan_from_a_count_by_parts_builds_its_pieces_in_the_memory_it_says(whole):
    rules, _ = whole
    size = count_class_tree(rules, split_depth=8, parts=3)
    plan = PiecesPlan.of(size, workers=2)
    assert plan.depth == 8 and len(plan.bounds) == len(size.parts) + 1
    built = build_class_pieces(rules, plan.depth, bounds=plan.bounds, workers=plan.workers)
    np.testing.assert_array_equal(built.bounds, plan.bounds)
    pieces = PublicPieces("tl2", built.trunk, built.parts, built.infoset_actions)
    held = (pieces.nbytes + built.infoset_hash.nbytes + built.infoset_context.nbytes
            + sum(h.nbytes for h in built.entry_hand))
    assert held <= plan.tree_bytes() <= 1.15 * held
    spec = solvers.ALGORITHMS["pcfr+"]
    assert plan.solve_bytes("float32", True) == \
        PiecesRep.estimate_bytes(pieces, spec, "float32", "alternating", 1)
    with pytest.raises(ValueError, match="count by parts"):
        PiecesPlan.of(count_class_tree(rules))


def test_bad_cuts_are_refused(whole):
    rules, _ = whole
    with pytest.raises(ValueError, match="bounds must increase"):
        build_class_pieces(rules, 8, bounds=[0, 0, 3])
    with pytest.raises(ValueError, match="no nodes below level 40"):
        build_class_pieces(rules, 40)
    with pytest.raises(ValueError, match="at least 1"):
        build_class_pieces(rules, 0)
    with pytest.raises(ValueError, match="at least 1"):
        build_class_pieces(rules, 8, workers=0)
