"""The class walk's tree built in pieces equals the whole tree cut into pieces.

:func:`coupsolve.classpieces.build_class_pieces` walks a trunk and then each part on its own; every
array of every piece must equal what :func:`solvers.public_split.split` cuts from the level-by-level
build at the same level and bounds, and its information sets (keys and action ids) must be the whole
tree's, in the pieces' own numbering.
"""

import numpy as np
import pytest

import coupsolve
from coupsolve.classbuild import build_class_tree
from coupsolve.classpieces import build_class_pieces
from solvers.public import PublicFlat
from solvers.public_split import split


@pytest.fixture(scope="module")
def whole():
    rules = coupsolve.Rules.two_player_selection(turn_limit=2)
    return rules, build_class_tree(rules)


@pytest.mark.parametrize("depth, parts", [(5, 1), (8, 3), (12, 7)])
def test_pieces_equal_the_whole_tree_split(whole, depth, parts):
    rules, tree = whole
    pieces = build_class_pieces(rules, depth, parts)
    assert len(pieces.parts) == pieces.bounds.shape[0] - 1 <= parts
    trunk, cut = split(tree.tree, depth, parts, bounds=pieces.bounds)
    assert len(cut) == len(pieces.parts)
    for mine, theirs in zip([pieces.trunk] + pieces.parts, [trunk] + cut):
        for name in PublicFlat._fields:
            np.testing.assert_array_equal(getattr(mine.flat, name), getattr(theirs.flat, name),
                                          err_msg=name)
        assert (mine.roots, mine.num_levels) == (theirs.roots, theirs.num_levels)
        np.testing.assert_array_equal(pieces.infoset_hash[mine.infosets],
                                      tree.infoset_hash[theirs.infosets])
        np.testing.assert_array_equal(pieces.infoset_actions[mine.actions],
                                      tree.tree.infoset_actions[theirs.actions])
    assert pieces.num_infosets == tree.tree.num_infosets
    assert pieces.num_actions == tree.tree.num_actions


def test_bad_cuts_are_refused(whole):
    rules, _ = whole
    with pytest.raises(ValueError, match="bounds must increase"):
        build_class_pieces(rules, 8, bounds=[0, 0, 3])
    with pytest.raises(ValueError, match="no nodes below level 40"):
        build_class_pieces(rules, 40)
    with pytest.raises(ValueError, match="at least 1"):
        build_class_pieces(rules, 0)
