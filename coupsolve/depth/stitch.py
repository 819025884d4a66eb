"""A cut game's strategy stitched onto a blueprint of the longer game, and its exploitability there.

The check of depth-limited solving where the truth is known (Brown, Sandholm and Amos, NeurIPS 2018,
table 1): solve the game cut after turn ``k``, play that solution up to the cut and the blueprint after
it, and measure the exact exploitability of the result in the longer game. Leaves that value the
cut well give a stitched strategy about as good as the blueprint; a draw at the cut does not.
"""

from __future__ import annotations

import numpy as np

from solvers import exploitability

from coupsolve.depth.values import node_map

__all__ = ["stitch", "stitched_exploitability"]


def stitch(cut_tree, cut_policy, longer_tree, blueprint, *, where=None) -> np.ndarray:
    """A flat policy of ``longer_tree``: ``cut_policy`` (over ``cut_tree``) at every information set of
    the cut game, the ``blueprint`` at the others (those after the cut)."""
    where = where or node_map(cut_tree, longer_tree)
    out = np.array(blueprint, dtype=np.float64, copy=True)
    cut_policy = np.asarray(cut_policy, np.float64)
    n = cut_tree.infoset_num_actions
    src = np.repeat(cut_tree.infoset_offset, n) + _within(n)
    dst = np.repeat(longer_tree.infoset_offset[where.infoset], n) + _within(n)
    out[dst] = cut_policy[src]
    return out


def _within(n):
    """0, 1, ..., n[0]-1, 0, 1, ..., n[1]-1, ...: each action's place in its information set."""
    starts = np.repeat(np.cumsum(n) - n, n)
    return np.arange(int(n.sum())) - starts


def stitched_exploitability(cut_tree, cut_policy, longer_tree, blueprint, *, where=None) -> float:
    """The exact exploitability, in the longer game, of :func:`stitch`'s policy."""
    return float(exploitability(longer_tree, stitch(cut_tree, cut_policy, longer_tree, blueprint, where=where)))
