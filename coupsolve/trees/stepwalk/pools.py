"""The work pools of the public-tree walk (:mod:`coupsolve.trees.stepwalk.node` has their layout): made,
grown when a step asks for more, and seeded with the root's histories.

A walk starts from the game's start (:func:`coupsolve.trees.stepwalk.walk.init`) or, for a tree rooted
mid-game (:mod:`coupsolve.trees.rooted`), from a :class:`Start`: the histories of one public node, with
their states, token hashes, weights and any event rows still pending (histories in transit there),
put on the stack by :func:`seed` as the walk from the game's start would hold them there.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from solvers.memory import check_fits

from coupsolve import engine as E
from coupsolve.trees.stepwalk import node as N

__all__ = ["LeafOut", "Start", "grow", "leaf_out", "new_work", "seed"]


class LeafOut(NamedTuple):
    """Every terminal history of a walk (:func:`coupsolve.trees.stepwalk.node._terminal` writes them with ``fill``; empty arrays:
    none are written): its public ``node``, each player's local ``entry`` there (int32, (n, 2)), its
    chance ``prob``ability (the walk's: a rooted walk's includes the ranges) and its engine ``state``
    (int32, (n, S_SIZE))."""

    node: np.ndarray
    entry: np.ndarray
    prob: np.ndarray
    state: np.ndarray


def leaf_out(n: int = 0) -> LeafOut:
    """Room for ``n`` terminal histories (0: none are recorded)."""
    return LeafOut(np.zeros(n, np.int64), np.zeros((n, 2), np.int32), np.zeros(n, np.float64),
                   np.zeros((n, E.S_SIZE), np.int32))


# The work pools: (fields, what grows them, first capacity); tables and capacities are powers of two.
_POOLS = (
    (("h_h", "h_ent", "h_par", "h_slot", "h_prob", "h_kid", "h_np", "h_poff", "h_src", "h_act",
      "order"), N.NEED_HIST, 1 << 14),
    (("st",), N.NEED_STATE, 1 << 12),
    (("rows",), N.NEED_ROWS, 1 << 10),
    (("e_h1", "e_h2", "e_row", "e_par", "e_slot", "e_first", "e_count", "e_alo", "e_nact"),
     N.NEED_ENTRY, 1 << 12),
    (("acts",), N.NEED_ACTS, 1 << 12),
    (("t_key", "t_val", "t_stamp"), N.NEED_TABLE, 1 << 13),
    (("c_cnt", "c_start", "c_ntok", "c_hash", "c_tok", "c_tgt", "c_new"), N.NEED_CHILD, 1 << 8),
    (("mpool",), N.NEED_MATRIX, 1 << 12),
)
_ROW = dict(st=(E.S_SIZE,), h_h=(2, 2), h_ent=(2,), h_par=(2,), c_tok=(N.TOK_WIDTH,), rows=(3,))
_WDT = dict(st=np.int32, rows=np.int32, h_poff=np.int64, h_act=np.int32, h_h=np.uint64,
            h_ent=np.int32, h_par=np.int32, h_slot=np.int32, h_prob=np.float64, h_kid=np.int32,
            h_np=np.int32, h_src=np.int64, order=np.int64, e_h1=np.uint64, e_h2=np.uint64,
            e_row=np.int32, e_par=np.int32, e_slot=np.int32, e_first=np.int64, e_count=np.int64,
            e_alo=np.int64, e_nact=np.int32, acts=np.int32, t_key=np.uint64, t_val=np.int64,
            t_stamp=np.int64, c_cnt=np.int64, c_start=np.int64, c_ntok=np.int32, c_hash=np.uint64,
            c_tok=np.int32, c_tgt=np.int64, c_new=np.int64, mpool=np.float64)


def new_work(depths):
    """A :class:`~coupsolve.trees.stepwalk.node.Work` with the first capacities, for a stack of ``depths`` frames."""
    arrays = {f: np.zeros((cap,) + _ROW.get(f, ()), _WDT[f]) for fields, _, cap in _POOLS
              for f in fields}
    levels = {f: np.zeros(depths + 1, np.int64) for f in ("lvl_nodes", "lvl_ent", "free_node",
                                                            "free_ent")}
    return N.Work(frame=np.zeros((depths, N.NF), np.int64), **arrays, **levels)


def grow(W, status, need):
    """``W`` with the pool that ``status`` names grown to at least ``need`` (and at least doubled)."""
    for fields, code, _ in _POOLS:
        if code == status:
            old = getattr(W, fields[0]).shape[0]
            cap = max(2 * old, 1 << int(np.ceil(np.log2(max(need, 1)))))
            grown = sum(getattr(W, f).nbytes // old * cap for f in fields)
            check_fits(grown, f"the public-tree walk's pool {fields[0]} ({cap:,} rows)")
            new = {}
            for f in fields:
                a = np.zeros((cap,) + _ROW.get(f, ()), _WDT[f])
                a[:old] = getattr(W, f)
                new[f] = a
            return W._replace(**new)
    raise AssertionError(status)


class Start(NamedTuple):
    """The histories at the root of a walk that starts elsewhere than the game's start (a tree rooted
    mid-game, :mod:`coupsolve.trees.rooted`), in the order the walk from the start holds them there.

    Attributes
    ----------
    states : ndarray, int32, shape (n, S_SIZE)
        Their engine states.
    hashes : ndarray, uint64, shape (n, 2, 2)
        Both players' two token hashes (:func:`coupsolve.engine.hashing.absorb`), so that the tree's
        information sets keep the keys they have in the tree from the start.
    prob : ndarray, float64, shape (n,)
        Their weights at the root (the root's chance probabilities).
    pending : ndarray, int32, shape (n,)
        How many event rows of each one's last step are still to come (0 but in transit).
    rows : ndarray, int32, shape (pending.sum(), 3)
        Those rows, one history after the other.
    """

    states: np.ndarray
    hashes: np.ndarray
    prob: np.ndarray
    pending: np.ndarray
    rows: np.ndarray


def seed(W, G, start):
    """``W`` (grown as needed) with ``start``'s histories as the root on an empty stack."""
    n, r = start.prob.shape[0], start.rows.shape[0]
    for status, need in ((N.NEED_HIST, 2 * n), (N.NEED_STATE, 2 * n), (N.NEED_ROWS, 2 * r)):
        fields = next(f for f, code, _ in _POOLS if code == status)
        if getattr(W, fields[0]).shape[0] < need:
            W = grow(W, status, need)
    W.st[:n], W.h_h[:n], W.h_prob[:n] = start.states, start.hashes, start.prob
    W.h_par[:n], W.h_slot[:n], W.h_act[:n] = -1, -1, -1
    W.h_np[:n] = start.pending
    W.h_poff[:n] = np.cumsum(start.pending) - start.pending
    W.rows[:r] = start.rows
    W.h_src[:n] = W.order[:n] = np.arange(n)
    W.frame[0, :] = 0
    W.frame[0, N.F_OHI], W.frame[0, N.F_BASE], W.frame[0, N.F_PHASE] = n, n, N.PHASE_ENTER
    G[N.G_DEPTH], G[N.G_ROWS0] = 0, r
    return W
