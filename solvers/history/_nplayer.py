"""Exact best response over a :class:`~solvers.trees.gametree.GameTree` of any number of players.

The two-player zero-sum best response (:mod:`solvers.history.best_response`) reads the tree through the
solver layout, whose segment codes name two players and chance. A tree with ``payoffs`` (three or
more players, or a general-sum game) is read here straight from its node arrays, which are in level
order, with the same sequence-form algorithm: for the best responder ``b``

1. a forward pass in node order gives every history the reach of chance and of every player but
   ``b`` (``q``); with ``b = -1`` (nobody left out) the full reach, whose terminal entries weight
   every player's on-policy value;
2. a backward pass, deepest level first, carries ``w``: ``q`` times ``b``'s payoff summed over the
   terminals below a history and above ``b``'s next decisions, adds the ``w`` of the children of
   ``b``'s decisions to the accumulators of their actions, and after each level picks the best
   action of every information set of ``b`` whose first history lies in that level (first on ties),
   adding its value to the information set's parent sequence (or to the root value).

An information set's histories are all at its first history's level or deeper, and every
information set of ``b`` below it has a deeper first history, so each is final when picked (perfect
recall, checked by the tree). :class:`NPlayerLayout` holds, per tree, the first level and the parent
sequence of every information set, and each player's information sets by first level.
"""

from __future__ import annotations

import weakref

import numba
import numpy as np

from solvers.trees.check import own_sequences
from solvers.kinds import CHANCE, DECISION, TERMINAL

__all__ = ["NPlayerLayout", "nplayer_layout", "br_values", "onpolicy_values", "pick_best"]


@numba.njit(cache=True)
def reach(tree, sigma, b, q):
    """Reach of chance and of every player but ``b`` at every history (``b = -1``: everyone's).

    ``tree`` a FlatTree, ``sigma`` (float64, num_actions) a flat policy in the tree's order, ``q``
    (float64, num_nodes) out.
    """
    kind, player, infoset = tree.node_kind, tree.node_player, tree.node_infoset
    child_start, num_children, cprob, ioff = (tree.child_start, tree.num_children,
                                              tree.chance_prob, tree.infoset_offset)
    q[0] = 1.0
    for i in range(kind.shape[0]):
        k = kind[i]
        if k == TERMINAL:
            continue
        c0 = child_start[i]
        for a in range(num_children[i]):
            if k == CHANCE:
                q[c0 + a] = q[i] * cprob[c0 + a]
            elif player[i] == b:
                q[c0 + a] = q[i]
            else:
                q[c0 + a] = q[i] * sigma[ioff[infoset[i]] + a]


@numba.njit(cache=True, inline="always")
def pick_best(acc, o, m, br_policy):
    """The largest of ``acc[o:o + m]`` (an information set's action values); its action (the first on
    ties) gets probability 1 in ``br_policy`` unless that is empty. Shared with the two-player kernel."""
    best = acc[o]
    best_a = 0
    for a in range(1, m):
        if acc[o + a] > best:
            best = acc[o + a]
            best_a = a
    if br_policy.shape[0] > 0:
        for a in range(m):
            br_policy[o + a] = 0.0
        br_policy[o + best_a] = 1.0
    return best


@numba.njit(cache=True)
def br_kernel(tree, u, sigma, b, first_level, parent_seq, order, q, w, acc, br_policy):
    """Best-response value of ``b`` (any seat) against ``sigma`` (flat, tree order).

    Parameters
    ----------
    tree : FlatTree
    u : ndarray, float64, shape (num_nodes,)
        ``b``'s payoff at the terminals.
    sigma : ndarray, float64, shape (num_actions,)
    b : int
    first_level, parent_seq : ndarray, int64, shape (num_infosets,)
        Level of each information set's first history; the flat index of its owner's previous
        action (-1 at the root).
    order : ndarray, int64
        ``b``'s information sets by first level, deepest first.
    q, w : ndarray, float64, shape (num_nodes,)
        Scratch.
    acc : ndarray, float64, shape (num_actions,)
        Scratch.
    br_policy : ndarray, float64, shape (num_actions,) or (0,)
        When not empty, receives a pure best response at ``b``'s information sets.

    Returns
    -------
    float
    """
    kind, player = tree.node_kind, tree.node_player
    child_start, num_children, level_start = tree.child_start, tree.num_children, tree.level_start
    ioff, nact, infoset = tree.infoset_offset, tree.infoset_num_actions, tree.node_infoset
    reach(tree, sigma, b, q)
    acc[:] = 0.0
    root = 0.0
    y = 0
    for d in range(level_start.shape[0] - 2, -1, -1):
        for i in range(level_start[d], level_start[d + 1]):
            k = kind[i]
            if k == TERMINAL:
                w[i] = q[i] * u[i]
                continue
            c0 = child_start[i]
            nc = num_children[i]
            if k == DECISION and player[i] == b:
                o = ioff[infoset[i]]
                for a in range(nc):
                    acc[o + a] += w[c0 + a]
                w[i] = 0.0
            else:
                total = 0.0
                for a in range(nc):
                    total += w[c0 + a]
                w[i] = total
        while y < order.shape[0] and first_level[order[y]] == d:
            s = order[y]
            best = pick_best(acc, ioff[s], nact[s], br_policy)
            if parent_seq[s] >= 0:
                acc[parent_seq[s]] += best
            else:
                root += best
            y += 1
    return root + w[0]


class NPlayerLayout:
    """Per tree: each information set's first level and parent sequence, each player's visiting order.

    Attributes
    ----------
    first_level, parent_seq : ndarray, int64, shape (num_infosets,)
    orders : list of ndarray, int64
        Player ``p``'s information sets by first level, deepest first.
    terminal : ndarray, bool, shape (num_nodes,)
    """

    def __init__(self, tree):
        n, m = tree.num_nodes, tree.num_infosets
        dec = np.flatnonzero(tree.node_kind == DECISION)
        first = np.full(m, n, np.int64)
        np.minimum.at(first, tree.node_infoset[dec], dec)
        self.first_level = (np.searchsorted(tree.level_start, first, side="right") - 1).astype(np.int64)
        self.parent_seq = np.full(m, -2, np.int64)
        seq = np.empty(n, np.int64)
        for p in range(tree.num_players):
            own_sequences(tree.flat, p, seq, self.parent_seq)
        self.orders = []
        for p in range(tree.num_players):
            mine = np.flatnonzero(tree.infoset_player == p)
            self.orders.append(mine[np.argsort(-self.first_level[mine], kind="stable")])
        self.terminal = tree.node_kind == TERMINAL


_CACHE = weakref.WeakKeyDictionary()


def nplayer_layout(tree):
    """The :class:`NPlayerLayout` of ``tree``, made on first use and cached while the tree lives."""
    layout = _CACHE.get(tree)
    if layout is None:
        layout = _CACHE[tree] = NPlayerLayout(tree)
    return layout


def br_values(tree, sigma, player, br_policy=None):
    """Best-response value of ``player`` against the flat policy ``sigma`` (validated, tree order).

    ``br_policy`` (float64, num_actions), when given, receives a pure best response at ``player``'s
    information sets (the rest is left alone).
    """
    lay = nplayer_layout(tree)
    n = tree.num_nodes
    out = np.zeros(0) if br_policy is None else br_policy
    return float(br_kernel(tree.flat, np.ascontiguousarray(tree.payoffs[:, player]), sigma,
                           player, lay.first_level, lay.parent_seq, lay.orders[player],
                           np.empty(n), np.empty(n), np.empty(tree.num_actions), out))


def onpolicy_values(tree, sigma):
    """Every player's expected payoff when all follow ``sigma`` (float64, ``num_players``)."""
    q = np.empty(tree.num_nodes)
    reach(tree.flat, sigma, -1, q)
    term = nplayer_layout(tree).terminal
    return q[term] @ tree.payoffs[term]
