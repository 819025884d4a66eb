"""The public node one history reaches, with every history that shares it: the walk of
:mod:`coupsolve.trees.stepwalk.walk` along one path.

A tree rooted mid-game (:mod:`coupsolve.trees.rooted`) needs the histories of one public node exactly as
the walk from the game's start holds them there: their engine states, token hashes, chance
probabilities, the entries they group into (in the same order) and any event rows they still have
pending. :func:`descend` runs the same visits as the walk (so the same grouping, transit and checks)
but pushes, at each public node, only the child that holds the given history after its next action
(or, while that history is in transit, after its carried step), until its actions are spent and it
stops at a node. :func:`reach` drives it from Python, growing the pools as the walk's driver does,
and reads the node off the stack.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from solvers import DECISION, TERMINAL

from coupsolve import engine as E
from coupsolve.engine.core import pack_hand
from coupsolve.trees import check_rules, max_depth
from coupsolve.trees.stepwalk import node as N
from coupsolve.trees.stepwalk.build import _ERRORS, _out
from coupsolve.trees.stepwalk.pools import Start, grow, leaf_out, new_work
from coupsolve.trees.stepwalk.walk import _push, _visit, init

__all__ = ["ReachedNode", "descend", "reach"]

PATH_ENDS, PATH_ILLEGAL = 100, 101  # the game ends before the path does; an action not legal


@njit(cache=True)
def descend(P, W, O, G, path, T, L):
    """Walk from the stack's top along the history of ``path`` until it stops at a public node.

    Parameters
    ----------
    P : int32[P_SIZE]
    W : node.Work
        The stack: the root on it (:func:`coupsolve.trees.stepwalk.walk.init`), or where a call left.
    O : build.PublicOut
        Empty arrays (nothing is written).
    G : int64[NG]
    path : int32[L]
        The history's action and chance outcome ids from the game's start.
    T : int64[2]
        The history's slot at the current node (0 at the root) and how many actions of ``path`` it
        has taken.
    L : pools.LeafOut
        Empty arrays (nothing is written).

    Returns
    -------
    int
        ``DONE`` (the node is at depth ``G[G_DEPTH]``), ``PATH_ENDS``, ``PATH_ILLEGAL`` (``T[1]``
        the action's position), or a status of :func:`coupsolve.trees.stepwalk.walk.run` (grow a pool
        and call again; ``ERR_*``: the rules do not decompose).
    """
    sc = (np.zeros((E.MAX_EVENTS_PER_STEP * 4, 3), dtype=np.int32), np.zeros(E.MAX_MOVES, np.int32),
          np.zeros(E.MAX_MOVES, np.float64), np.zeros(E.MAX_MOVES, np.int32),
          np.zeros(E.MAX_MOVES, np.float64), np.full(E.MAX_MOVES, -1, np.int64),
          np.zeros(E.S_SIZE, np.int32))
    ret = np.zeros(E.MAXP, dtype=np.float64)
    payoff = np.empty(W.h_prob.shape[0], dtype=np.float64)
    F = W.frame
    while True:
        d = G[N.G_DEPTH]
        if F[d, N.F_PHASE] == N.PHASE_ENTER:
            st = _visit(P, W, O, G, d, np.bool_(False), sc, ret, payoff, L)  # not a literal: run's copy
            if st != N.DONE:
                return st
        s = T[0]
        if T[1] == path.shape[0] and W.h_np[s] == 0:
            return N.DONE
        if F[d, N.F_KIND] == TERMINAL:
            return PATH_ENDS
        i = F[d, N.F_OLO]
        while W.order[i] != s:
            i += 1
        row = F[d, N.F_SLO] + i - F[d, N.F_OLO]
        want = -1 if W.h_np[s] > 0 else path[T[1]]
        c = -1
        for x in range(F[d, N.F_BASE], F[d, N.F_BASE] + F[d, N.F_M]):
            if W.h_src[x] == row and W.h_act[x] == want:
                c = x
                break
        if c < 0:
            return PATH_ILLEGAL
        if want >= 0:
            T[1] += 1
        F[d, N.F_NXT] = W.h_kid[c]
        _push(W, d)
        G[N.G_DEPTH] = d + 1
        T[0] = c


class ReachedNode(NamedTuple):
    """A public node reached by :func:`reach`, as the walk from the game's start holds it.

    Attributes
    ----------
    start : pools.Start
        Its histories (states, token hashes, chance probabilities, pending rows), in the walk's order.
    entry : ndarray, int32, shape (n, 2)
        Each history's entry (private state) of each player, numbered per player in order of first
        appearance (the public tree's order of the node's entries).
    hand : tuple of two int64 arrays
        Each entry's face-down cards, packed as :attr:`CoupPublicTree.entry_hand`.
    paths : ndarray, int32, shape (n, L)
        Each history's action and chance outcome ids from the game's start, padded with -1.
    public_path : tuple of int
        The child taken at each public node from the root: the node is
        ``child_start[...child_start[0] + k0 ...] + k_last`` in the public tree from the start.
    kind, player : int
        The node's kind (``solvers`` kinds) and actor (-1 unless a decision).
    target : int
        The position of the given history among the node's.
    """

    start: Start
    entry: np.ndarray
    hand: tuple
    paths: np.ndarray
    public_path: tuple
    kind: int
    player: int
    target: int


class TooManyHistories(MemoryError):
    """The walk to a public node would hold more histories at once than it was allowed."""


def reach(rules, actions, max_histories=None) -> ReachedNode:
    """The public node that the history of ``actions`` (engine action and chance outcome ids from the
    game's start, as OpenSpiel's ``state.history()``) stops at, with all its histories.

    Raises
    ------
    ValueError
        An action not legal where it is played, a game over before the actions are, or rules whose
        public tree the walk refuses (the reason given).
    TooManyHistories
        With ``max_histories``, when the walk would hold more histories than that at once (before it
        allocates them).
    """
    check_rules(rules, two_players=True)
    path = np.ascontiguousarray(actions, dtype=np.int32).reshape(-1)
    P = rules.params()
    W = new_work(max_depth(rules) + 2)
    G = np.zeros(N.NG, np.int64)
    T = np.zeros(2, np.int64)
    init(P, W, G)
    O = _out()
    while True:
        status = descend(P, W, O, G, path, T, leaf_out())
        if status == N.DONE:
            return _read(W, int(G[N.G_DEPTH]), int(T[0]))
        if status in (PATH_ENDS, PATH_ILLEGAL):
            at = int(T[1])
            why = ("the game is over before it" if status == PATH_ENDS else "it is not legal there")
            raise ValueError(f"action {at} of the history ({int(path[at])}) cannot be played: {why}")
        if status in _ERRORS:
            raise ValueError(f"{rules}: {_ERRORS[status]}")
        if max_histories is not None and status == N.NEED_HIST and int(G[N.G_NEED]) > max_histories:
            raise TooManyHistories(f"the walk to this public state holds more than {max_histories:,} "
                                   "histories at once")
        W = grow(W, status, int(G[N.G_NEED]))


def _read(W, depth, target):
    """The :class:`ReachedNode` at ``depth`` of the stack, the given history in slot ``target``."""
    F = W.frame
    olo, ohi, slo, elo = (int(F[depth, k]) for k in (N.F_OLO, N.F_OHI, N.F_SLO, N.F_ELO))
    n0, n1 = int(F[depth, N.F_EN0]), int(F[depth, N.F_EN1])
    slots = W.order[olo:ohi].copy()
    pending = W.h_np[slots].astype(np.int32)
    rows = [W.rows[W.h_poff[s]:W.h_poff[s] + W.h_np[s]] for s in slots]
    rows = np.concatenate(rows) if rows else np.zeros((0, 3), np.int32)
    states = W.st[slo:slo + ohi - olo].copy()
    start = Start(states, W.h_h[slots].copy(), W.h_prob[slots].copy(), pending,
                  np.ascontiguousarray(rows, np.int32).reshape(-1, 3))
    entry = W.h_ent[slots].copy()
    hand = []
    for p, count in ((0, n0), (1, n1)):
        first = W.e_first[elo + (n0 if p else 0):elo + (n0 if p else 0) + count] - olo
        hand.append(np.array([pack_hand(states[i], E.S_HAND + E.NCH * p) for i in first], np.int64))
    paths = _paths(W, depth, slots)
    kind = int(F[depth, N.F_KIND])
    return ReachedNode(start, entry, tuple(hand), paths, tuple(int(F[d, N.F_NXT]) - 1 for d in range(depth)),
                       kind, int(F[depth, N.F_PLAYER]) if kind == DECISION else -1,
                       int(np.flatnonzero(slots == target)[0]))


def _paths(W, depth, slots):
    """The action and outcome ids from the game's start of the histories in ``slots`` (at ``depth``),
    read up the stack (a carried step, ``h_act`` -1, adds none), each row padded with -1."""
    F = W.frame
    steps = []
    cur = slots.astype(np.int64)
    for d in range(depth, 0, -1):
        steps.append(W.h_act[cur].copy())
        up = W.h_src[cur] - F[d - 1, N.F_SLO] + F[d - 1, N.F_OLO]
        cur = W.order[up]
    acts = np.array(steps[::-1], np.int32).T if steps else np.zeros((len(slots), 0), np.int32)
    out = np.full(acts.shape, -1, np.int32)
    for i, row in enumerate(acts):
        kept = row[row >= 0]
        out[i, :kept.shape[0]] = kept
    return out
