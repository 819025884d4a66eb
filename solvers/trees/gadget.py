"""The re-solving gadget on a public tree: a subgame the opponent may decline to enter.

Re-solving a subgame with the opponent's range fixed (what a blueprint says it plays) is unsafe: the
new strategy may do worse than the one it replaces against an opponent whose range is not that one.
Burch, Johanson and Bowling ("Solving imperfect information games using decomposition", AAAI 2014)
make it safe with a gadget. Above the subgame's root, each private state of the opponent chooses to
*enter* the subgame or to *decline* and take a given value instead: its value under the strategy being
replaced. Chance weighs the pairs of private states by chance and the re-solving player's range alone;
the opponent's range in the subgame is what its choices make it. In an equilibrium of the gadget game
no private state of the opponent gets more by entering than by declining, so the re-solved strategy
gives each of them at most its given value, up to the solve's exploitability: given the old
strategy's best-response values, the new one is no more exploitable in the subgame ("Resolve" in
Brown and Sandholm, "Safe and nested subgame solving for imperfect-information games", NeurIPS 2017,
section 4, where the given values are the opponent's best-response values against the blueprint).
With values no strategy allows, the guarantee is void and the solve does the best it can.

:func:`graft_gadget` puts that choice on a :class:`~solvers.PublicTree` above a public node ``x``
whose ancestors are chance nodes with one child each (a tree rooted mid-game under a chance node
over the pairs of private states, or a game whose first moves deal the cards): a decision of the
opponent whose entries are ``x``'s, its children a terminal (:data:`DECLINE`) and ``x``
(:data:`ENTER`). The caller builds the tree with the opponent's weights at ``x`` as it wants them
(uniform in Burch, Johanson and Bowling's gadget; each private state chooses by its own values
whatever its weight, so the weights set only how the re-solving player trades one against another)
and gives the pairs' weights there; every solver, the exact best response and the exploitability take the result as
they take any public tree. The new information sets come after the tree's, so a policy's first
``tree.num_actions`` entries are the subgame's.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from solvers.kinds import CHANCE, DECISION, TERMINAL
from solvers.trees.publictree import PublicTree

__all__ = ["DECLINE", "ENTER", "Gadget", "gadget_node", "graft_gadget"]

#: The gadget's two actions (``infoset_actions`` of its information sets).
DECLINE, ENTER = 0, 1


class Gadget(NamedTuple):
    """Where :func:`graft_gadget` put the choice: its ``player`` (the opponent), the public ``node`` of
    the choice and ``subgame``, the new number of ``x``; the choice of ``player``'s entry ``e`` at
    ``x`` is information set ``first_infoset + e``."""

    player: int
    node: int
    subgame: int
    first_infoset: int


def gadget_node(tree) -> int:
    """The first public node of ``tree`` that is not a chance node with one child, where every node
    above it is one: where :func:`graft_gadget` puts the choice by default."""
    f, x = tree.flat, 0
    while f.node_kind[x] == CHANCE and f.num_children[x] == 1:
        x = int(f.child_start[x])
    return x


def _check(tree, player, weights, values, x):
    f = tree.flat
    if player not in (0, 1):
        raise ValueError(f"player must be 0 or 1, got {player!r}")
    if not 0 <= x < tree.num_nodes or f.node_kind[x] == TERMINAL:
        raise ValueError(f"node {x} is not a public node of the tree that continues")
    for v in range(x):  # level order: a chain of chance nodes numbers its nodes 0 .. x - 1
        if f.node_kind[v] != CHANCE or f.num_children[v] != 1 or f.child_start[v] != v + 1:
            raise ValueError(f"node {x} has an ancestor that is not a chance node with one child")
    lo, n0 = int(f.entry_start[x]), int(f.num_entries0[x])
    n1 = int(f.entry_start[x + 1]) - lo - n0
    w = np.asarray(weights, np.float64)
    if w.shape != (n0, n1) or not np.isfinite(w).all() or (w < 0).any():
        raise ValueError(f"weights must be {n0} x {n1} finite non-negative numbers (the pairs of private "
                         f"states at node {x}), got shape {w.shape}")
    v = np.asarray(values, np.float64)
    if v.shape != ((n0, n1)[player],) or not np.isfinite(v).all():
        raise ValueError(f"values must be {(n0, n1)[player]} finite numbers (player {player}'s private "
                         f"states at node {x}), got shape {v.shape}")
    return lo, n0, n1, w, v


def graft_gadget(tree, player: int, weights, values, node: int | None = None, *, game_id=None):
    """``tree`` with ``player`` choosing, for each of its private states at ``node`` (default:
    :func:`gadget_node`), to enter the game there or to take ``values`` instead (module docstring).

    Parameters
    ----------
    tree : solvers.PublicTree
        A two-player zero-sum public tree, ``player``'s weights at ``node`` as the gadget should have
        them (module docstring).
    player : int
        Who may decline (the opponent of the player re-solving).
    weights : array_like, float, shape (n0, n1)
        The chance weight of each pair of private states (entries) at ``node``, as the tree weighs them.
    values : array_like, float
        ``player``'s own payoff, per unit of weight, for declining with each of its private states there.
    game_id : str, optional
        The new tree's (default: the tree's, with ``+gadget(player)``).

    Returns
    -------
    PublicTree, Gadget
    """
    x = gadget_node(tree) if node is None else int(node)
    lo, n0, n1, w, v = _check(tree, player, weights, values, x)
    f, hi = tree.flat, lo + n0 + n1
    ins = lambda a, g, t: np.concatenate([a[:x], np.array([g, t], a.dtype), a[x:]])  # noqa: E731
    child = f.child_start.astype(np.int64)
    child[x:] += 2
    sizes = np.diff(f.entry_start)
    nodes = dict(
        level_start=np.concatenate([f.level_start[:x + 1], [x + 1], f.level_start[x + 1:] + 2]),
        node_kind=ins(f.node_kind, DECISION, TERMINAL), node_player=ins(f.node_player, player, -1),
        child_start=ins(child, x + 1, 0), num_children=ins(f.num_children, 2, 0),
        term_matrix=ins(f.term_matrix, -1, f.matrix_cols.size), term_scale=ins(f.term_scale, 0.0, 1.0),
        num_entries0=ins(f.num_entries0, n0, n0),
        entry_start=np.concatenate(([0], np.cumsum(ins(sizes, hi - lo, hi - lo)))))
    local = np.concatenate([np.arange(n0), np.arange(n1)])
    own = np.zeros(n0 + n1, bool)
    own[(slice(0, n0), slice(n0, None))[player]] = True
    base, m = tree.num_infosets, (n0, n1)[player]
    ref = np.full(n0 + n1, -1, np.int64)
    ref[own] = base + np.arange(m)
    slot = lambda a: np.where(own, a, -1)  # noqa: E731
    parent, slots, refs = f.entry_parent, f.entry_slot, f.entry_ref
    entries = dict(
        entry_parent=np.concatenate([parent[:lo], parent[lo:hi], local, local, parent[hi:]]),
        entry_slot=np.concatenate([slots[:lo], np.full(n0 + n1, -1), slot(DECLINE), slot(ENTER), slots[hi:]]),
        entry_ref=np.concatenate([refs[:lo], ref, local, refs[lo:]]))
    entries = {k: a.astype(getattr(f, k).dtype) for k, a in entries.items()}
    pay = w * (v[None, :] if player == 1 else v[:, None]) * (-1.0 if player == 1 else 1.0)
    rows, cols = np.nonzero(w)
    counts = np.bincount(rows, minlength=n0)
    matrices = dict(
        matrix_start=np.append(f.matrix_start, f.matrix_start[-1] + rows.size),
        matrix_cols=np.append(f.matrix_cols, n1), matrix_rowp=np.append(f.matrix_rowp, f.matrix_rowp[-1] + n0 + 1),
        row_ptr=np.concatenate([f.row_ptr, np.concatenate(([0], np.cumsum(counts)))]),
        cell_col=np.concatenate([f.cell_col, cols]), matrix_data=np.concatenate([f.matrix_data, pay[rows, cols]]))
    matrices = {k: a.astype(getattr(f, k).dtype) for k, a in matrices.items()}
    held = np.count_nonzero(w, axis=1 - player)
    node_of = f.infoset_node.astype(np.int64)
    infosets = dict(
        infoset_player=np.append(f.infoset_player, np.full(m, player)),
        infoset_num_actions=np.append(f.infoset_num_actions, np.full(m, 2)),
        infoset_offset=np.append(f.infoset_offset, tree.num_actions + 2 * np.arange(m)),
        infoset_count=np.append(f.infoset_count, np.maximum(held, 1)),
        infoset_node=np.append(np.where(node_of >= x, node_of + 2, node_of), np.full(m, x)))
    infosets = {k: a.astype(getattr(f, k).dtype) for k, a in infosets.items()}

    def key(i):
        return tree.infoset_key(i) if i < base else f"gadget: player {player}, entry {i - base}: decline or enter"

    out = PublicTree(game_id or f"{tree.game_id}+gadget({player})", keys=key,
                     infoset_actions=np.concatenate([tree.infoset_actions,
                                                     np.tile(np.array([DECLINE, ENTER]), m)]).astype(
                                                         tree.infoset_actions.dtype),
                     **nodes, **entries, **matrices, **infosets)
    return out, Gadget(player, x, x + 2, base)
