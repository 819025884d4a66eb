"""Multi-valued leaves on a history tree (:class:`~solvers.GameTree`): :func:`graft_leaf_choices`.

The idea and why it is sound are in :mod:`solvers.trees.leaves`. Here:

- each leaf ``h`` becomes a decision of player 0 with ``K0`` actions (its continuations), in player
  0's *leaf information set* (given: the leaves player 0 cannot tell apart);
- each of those actions leads to a decision of player 1 with ``K1`` actions, in player 1's leaf
  information set, which does not see player 0's pick (the two choices are simultaneous);
- the pair ``(c0, c1)`` ends the game with payoff ``values[h, c0, c1]`` to player 0.

The new information sets come after the tree's own, so the first :attr:`LeafChoices.base_actions`
entries of a policy are the cut game's part.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from solvers.kinds import CHANCE, DECISION, TERMINAL
from solvers.memory import check_fits

__all__ = ["GRAFT_HISTORY_BYTES", "LeafChoices", "graft_leaf_choices", "grafted_histories"]

#: Bytes per history of a grafted tree, as :func:`graft_leaf_choices` estimates it before allocating.
GRAFT_HISTORY_BYTES = 50


class LeafChoices(NamedTuple):
    """Where :func:`graft_leaf_choices` put the continuation choices.

    ``base_infosets`` and ``base_actions``: the cut game's information sets and flat actions, which
    come first and keep their indices. Player ``p``'s leaf information set ``j`` is information set
    ``base_infosets + j`` (player 0) or ``base_infosets + num_leaf_infosets[0] + j`` (player 1).
    ``leaf_decision[i]``: the node of player 0's choice at leaf ``i``; ``old_of_new[v]``: the cut
    tree's node that node ``v`` of the new tree copies (-1 for the continuation choices below a leaf).
    """

    base_infosets: int
    base_actions: int
    num_leaf_infosets: tuple
    num_continuations: tuple
    leaf_decision: np.ndarray
    old_of_new: np.ndarray


@numba.njit(cache=True)
def _graft(kind, player, infoset, child_start, num_children, chance_prob, payoff, leaf_of, leaf_iset,
           values, base, m0, out_kind, out_player, out_infoset, out_start, out_num, out_prob,
           out_payoff, depth, leaf_decision, src):
    """Breadth-first copy of the tree with each leaf replaced by its two choices (see the module).

    ``src`` of a new node: the old node (>= 0), or ``-1 - (leaf * K0 + c0)`` for player 1's choice
    after player 0 picked ``c0`` at ``leaf``; terminals of the choices are written when created.
    Returns the number of nodes written.
    """
    K0, K1 = values.shape[1], values.shape[2]
    n_out = out_kind.shape[0]
    src[0] = 0
    out_prob[0] = 1.0
    depth[0] = 0
    nxt = 1
    for i in range(n_out):
        if i >= nxt:
            break
        s = src[i]
        out_start[i] = nxt
        if s == -(1 << 62):  # a choice's terminal, written by its parent
            continue
        if s < 0:  # player 1's choice at a leaf, after player 0's pick c0
            code = -1 - s
            leaf, c0 = code // K0, code % K0
            out_kind[i], out_player[i] = DECISION, 1
            out_infoset[i] = base + m0 + leaf_iset[leaf, 1]
            out_num[i] = K1
            for c1 in range(K1):
                src[nxt] = -(1 << 62)
                out_kind[nxt], out_player[nxt], out_infoset[nxt] = TERMINAL, -1, -1
                out_num[nxt], out_prob[nxt], out_payoff[nxt] = 0, 1.0, values[leaf, c0, c1]
                depth[nxt] = depth[i] + 1
                nxt += 1
            continue
        leaf = leaf_of[s]
        if leaf >= 0:  # player 0's choice at a leaf
            leaf_decision[leaf] = i
            out_kind[i], out_player[i] = DECISION, 0
            out_infoset[i] = base + leaf_iset[leaf, 0]
            out_num[i], out_payoff[i] = K0, 0.0
            for c0 in range(K0):
                src[nxt] = -1 - (leaf * K0 + c0)
                out_prob[nxt], out_payoff[nxt] = 1.0, 0.0
                depth[nxt] = depth[i] + 1
                nxt += 1
            continue
        out_kind[i], out_player[i], out_infoset[i] = kind[s], player[s], infoset[s]
        out_payoff[i] = payoff[s]
        if kind[s] == TERMINAL:
            out_num[i] = 0
            continue
        out_num[i] = num_children[s]
        for j in range(num_children[s]):
            c = child_start[s] + j
            src[nxt] = c
            out_prob[nxt] = chance_prob[c] if kind[s] == CHANCE else 1.0
            depth[nxt] = depth[i] + 1
            nxt += 1
    return nxt


def grafted_histories(num_nodes, num_leaves, k0, k1):
    """Histories of the tree :func:`graft_leaf_choices` makes from one of ``num_nodes`` with ``num_leaves``
    leaves: each leaf becomes player 0's choice among ``k0``, each of those player 1's among ``k1``
    terminals. Known before any leaf is valued, so a caller can check the graft fits first."""
    return num_nodes + num_leaves * (k0 + k0 * k1)


def graft_leaf_choices(tree, leaves, leaf_infoset, values, *, game_id=None):
    """The depth-limited game of ``tree`` with each leaf a choice of continuations (module docstring).

    Parameters
    ----------
    tree : solvers.GameTree
        A two-player zero-sum tree whose ``leaves`` are terminal histories.
    leaves : array_like, int, shape (L,)
        The terminal histories to replace, distinct.
    leaf_infoset : array_like, int, shape (L, 2)
        Each leaf's information set for each player, numbered from 0 per player: leaves with the
        same number for player ``p`` are ones ``p`` cannot tell apart.
    values : array_like, float, shape (L, K0, K1)
        Player 0's payoff at each leaf when player 0 continues with ``c0`` and player 1 with ``c1``.
    game_id : str, optional
        The new tree's ``game_id`` (default: the tree's, with ``+leaves(K0xK1)``).

    Returns
    -------
    GameTree, LeafChoices
    """
    from solvers.trees.gametree import GameTree

    if not tree.two_player_zero_sum:
        raise ValueError("multi-valued leaves are for two-player zero-sum trees")
    leaves = np.asarray(leaves, dtype=np.int64).reshape(-1)
    leaf_infoset = np.asarray(leaf_infoset, dtype=np.int64)
    values = np.ascontiguousarray(values, dtype=np.float64)
    L = leaves.shape[0]
    if values.ndim != 3 or values.shape[0] != L or min(values.shape[1:], default=0) < 1:
        raise ValueError(f"values must have shape ({L}, K0, K1) with K0, K1 >= 1, got {values.shape}")
    if leaf_infoset.shape != (L, 2) or (L and leaf_infoset.min() < 0):
        raise ValueError(f"leaf_infoset must have shape ({L}, 2) and hold non-negative numbers")
    if not np.isfinite(values).all():
        raise ValueError("values must be finite")
    if L and (leaves.min() < 0 or leaves.max() >= tree.num_nodes
              or (tree.node_kind[leaves] != TERMINAL).any() or np.unique(leaves).size != L):
        raise ValueError("leaves must be distinct terminal histories of the tree")
    K0, K1 = values.shape[1], values.shape[2]
    m0, m1 = (int(leaf_infoset[:, p].max()) + 1 if L else 0 for p in (0, 1))
    n_new = grafted_histories(tree.num_nodes, L, K0, K1)
    check_fits(n_new * GRAFT_HISTORY_BYTES, f"the depth-limited tree ({n_new:,} histories)")
    leaf_of = np.full(tree.num_nodes, -1, np.int64)
    leaf_of[leaves] = np.arange(L)
    out = dict(kind=np.empty(n_new, np.int8), player=np.empty(n_new, np.int8),
               infoset=np.empty(n_new, np.int32), start=np.empty(n_new, np.int64),
               num=np.empty(n_new, np.int32), prob=np.empty(n_new, np.float64),
               payoff=np.zeros(n_new, np.float64))
    depth, leaf_decision, src = np.empty(n_new, np.int64), np.empty(L, np.int64), np.empty(n_new, np.int64)
    t = tree
    written = _graft(t.node_kind, t.node_player, t.node_infoset, t.child_start, t.num_children,
                     t.chance_prob, t.payoff, leaf_of, leaf_infoset, values, t.num_infosets, m0,
                     out["kind"], out["player"], out["infoset"], out["start"], out["num"], out["prob"],
                     out["payoff"], depth, leaf_decision, src)
    assert written == n_new, (written, n_new)
    level_start = np.searchsorted(depth, np.arange(depth[-1] + 2), side="left").astype(np.int64)
    for p, (m, k) in enumerate(((m0, K0), (m1, K1))):  # every leaf information set is used
        if L and np.unique(leaf_infoset[:, p]).size != m:
            raise ValueError(f"player {p}'s leaf information sets must be numbered 0..{m - 1} without gaps")
    num_actions = np.concatenate([t.infoset_num_actions, np.full(m0, K0, np.int32), np.full(m1, K1, np.int32)])
    offset = np.zeros(num_actions.size, np.int64)
    offset[1:] = np.cumsum(num_actions)[:-1]
    base, base_actions = t.num_infosets, t.num_actions
    names = ("continuation of player 0 at its leaf information set {}",
             "continuation of player 1 at its leaf information set {}")

    def key(i):
        if i < base:
            return t.infoset_key(i)
        return names[0].format(i - base) if i < base + m0 else names[1].format(i - base - m0)

    grafted = GameTree(
        node_kind=out["kind"], node_player=out["player"], node_infoset=out["infoset"],
        child_start=out["start"], num_children=out["num"], chance_prob=out["prob"],
        payoff=out["payoff"], level_start=level_start,
        infoset_player=np.concatenate([t.infoset_player, np.zeros(m0, np.int8), np.ones(m1, np.int8)]),
        infoset_num_actions=num_actions, infoset_offset=offset,
        infoset_actions=np.concatenate([t.infoset_actions, np.tile(np.arange(K0, dtype=np.int32), m0),
                                        np.tile(np.arange(K1, dtype=np.int32), m1)]),
        game_id=game_id or f"{t.game_id}+leaves({K0}x{K1})", infoset_keys=key)
    old_of_new = np.where(src >= 0, src, -1)
    old_of_new[leaf_decision] = leaves
    return grafted, LeafChoices(base, base_actions, (m0, m1), (K0, K1), leaf_decision, old_of_new)
