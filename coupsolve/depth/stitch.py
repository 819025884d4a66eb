"""A cut game's strategy stitched onto a blueprint of the longer game, and its exploitability there.

The check of depth-limited solving where the truth is known (Brown, Sandholm and Amos, NeurIPS 2018,
table 1): solve the game cut after turn ``k``, play that solution up to the cut and the blueprint after
it, and measure the exact exploitability of the result in the longer game. Leaves that value the
cut well give a stitched strategy about as good as the blueprint; a draw at the cut does not.
:func:`stitch_choices` plays, after the cut, the continuations the solution chose at its leaves
instead of the blueprint itself.
"""

from __future__ import annotations

import numba
import numpy as np

from solvers import exploitability
from solvers.kinds import DECISION, TERMINAL
from solvers.trees.derive import within

from coupsolve.depth.values import node_map

__all__ = ["stitch", "stitch_choices", "stitched_exploitability"]


def stitch(cut_tree, cut_policy, longer_tree, blueprint, *, where=None) -> np.ndarray:
    """A flat policy of ``longer_tree``: ``cut_policy`` (over ``cut_tree``) at every information set of
    the cut game, the ``blueprint`` at the others (those after the cut)."""
    where = where or node_map(cut_tree, longer_tree)
    out = np.array(blueprint, dtype=np.float64, copy=True)
    cut_policy = np.asarray(cut_policy, np.float64)
    n = cut_tree.infoset_num_actions
    src = np.repeat(cut_tree.infoset_offset, n) + within(n)
    dst = np.repeat(longer_tree.infoset_offset[where.infoset], n) + within(n)
    out[dst] = cut_policy[src]
    return out


def stitched_exploitability(cut_tree, cut_policy, longer_tree, blueprint, *, where=None) -> float:
    """The exact exploitability, in the longer game, of :func:`stitch`'s policy."""
    return float(exploitability(longer_tree, stitch(cut_tree, cut_policy, longer_tree, blueprint, where=where)))


@numba.njit(cache=True)
def _own_reach(kind, player, infoset, child_start, num_children, offset, sigma, p, x):
    """Propagate ``x`` (pre-set at the leaves' histories, 0 elsewhere) down the tree, multiplied by
    player ``p``'s action probabilities ``sigma`` only: ``p``'s own reach from the leaves."""
    for v in range(kind.shape[0]):
        if x[v] == 0.0 or kind[v] == TERMINAL:
            continue
        mine = kind[v] == DECISION and player[v] == p
        o = offset[infoset[v]] if mine else 0
        for j in range(num_children[v]):
            x[child_start[v] + j] = x[v] * (sigma[o + j] if mine else 1.0)


def stitch_choices(game, policy, longer, blueprint, k=None, *, where=None, continuations=None) -> np.ndarray:
    """A flat policy of the longer tree that plays a depth-limited solution as it prescribes: its cut
    game's part up to the cut, then at each leaf the continuation it chose there (a mixed choice made
    a behaviour strategy: each information set after the cut plays the continuations' actions weighted
    by the probability of having chosen each and by its own reach under it, Kuhn's theorem).

    Parameters
    ----------
    game : DepthLimitedGame
    policy : ndarray
        A flat policy of ``game.tree``.
    longer : CoupTree
        The longer game the leaf values came from (``context=True``).
    blueprint : ndarray
        The flat policy over ``longer.tree`` whose continuations the leaves hold.
    k : int, optional
        How many of them (``game``'s number of continuations when ``None``).
    continuations : list of ndarray, optional
        The leaves' continuations as flat policies over ``longer.tree``, in the leaves' order, when
        they are not just the blueprint's (``k`` and ``blueprint``'s biases are then not used after
        the cut).
    """
    from coupsolve.depth.continuations import continuation_policies
    from coupsolve.depth.game import leaf_infosets

    cut, tree, choices = game.cut, longer.tree, game.choices
    where = where or node_map(cut.tree, tree)
    out = stitch(cut.tree, game.cut_policy(policy), tree, blueprint, where=where)
    if continuations is None:
        continuations = continuation_policies(longer, blueprint, k or choices.num_continuations[0])
    conts = [np.asarray(c, np.float64) for c in continuations]
    k = len(conts)
    if k != choices.num_continuations[0]:
        raise ValueError(f"{k} continuations for a game whose leaves choose among {choices.num_continuations[0]}")
    ids, sigma = leaf_infosets(cut), np.asarray(policy, np.float64)
    at = where.node[cut.leaf_node]
    above = np.zeros(tree.num_infosets, bool)
    above[where.infoset] = True
    for p in (0, 1):
        first = choices.base_infosets + (0 if p == 0 else choices.num_leaf_infosets[0])
        pick = sigma[game.tree.infoset_offset[first + ids[:, p]][:, None] + np.arange(k)]
        num = np.zeros(tree.num_actions)
        den = np.zeros(tree.num_infosets)
        for c in range(k):
            x = np.zeros(tree.num_nodes)
            x[at] = pick[:, c]
            _own_reach(tree.node_kind, tree.node_player, tree.node_infoset, tree.child_start,
                       tree.num_children, tree.infoset_offset, conts[c], p, x)
            mine = (tree.node_kind == DECISION) & (tree.node_player == p)
            per = np.bincount(tree.node_infoset[mine], weights=x[mine], minlength=tree.num_infosets)
            den += per
            num += np.repeat(per, tree.infoset_num_actions) * conts[c]
        below = (~above) & (tree.infoset_player == p) & (den > 0)
        rows = np.repeat(below, tree.infoset_num_actions)
        out[rows] = (num / np.repeat(np.where(den > 0, den, 1.0), tree.infoset_num_actions))[rows]
    return out
