"""The per-node steps of the public-tree walk (:mod:`coupsolve.trees.stepwalk.walk`): its layout and codes.

A public node of the walk is a *frame*: the histories that share one public observation sequence, kept
in a history pool as engine state vectors (``int32[S_SIZE]``), both players' two token hashes
(:func:`coupsolve.engine.hashing.absorb`), each player's entry at the node and at its parent, the slot of the
action that led there and the chance probability. The steps here group a frame's histories into each
player's entries (:func:`_entries`), check that they are all of one kind (:func:`_classify`), decide
whether the node's pair weights need a matrix of their own (:func:`_weights`), read a terminal's payoff
(:func:`_terminal`) and a decision's action lists (:func:`_lists`). Every step first checks that its
pool is large enough and else returns a ``NEED_*`` code with the size it needs in ``G[G_NEED]``: the
caller grows the pool and visits the node again, so a step never leaves a half-made node behind.

The work arrays (a :class:`Work`; capacities grown by :mod:`coupsolve.trees.stepwalk.build`):

============  ===============  ==================================================================
array         dtype, shape     meaning
============  ===============  ==================================================================
``frame``     int64 (D, NF)    one row per depth of the stack, columns ``F_*``
``st``        int32 (SC, S)    the engine states of the histories of the nodes on the stack: the
                               node at depth ``d`` holds ``st[F_SLO:F_SLO + F_OHI - F_OLO]``, in
                               frame order, made when it is visited (:func:`_materialize`)
``h_h``       uint64 (H, 2, 2) both players' two token hashes
``h_ent``     int32 (H, 2)     each player's local entry at the history's node
``h_par``     int32 (H, 2)     each player's local entry at the parent node
``h_slot``    int32 (H,)       the action's index in the actor's legal list (-1 after chance)
``h_prob``    float64 (H,)     the history's chance probability
``h_kid``     int32 (H,)       the child (public outcome) it belongs to, during an expansion
``h_np``      int32 (H,)       event rows of its last step not yet absorbed (0: the history stops
                               at its node; else it is in *transit*, :mod:`coupsolve.trees.stepwalk.build`)
``h_poff``    int64 (H,)       where they are in ``rows``
``h_src``     int64 (H,)       its parent history's state (index into ``st``)
``h_act``     int32 (H,)       the action or outcome that made it from there (-1: carried in transit)
``rows``      int32 (R, 3)     the pending event rows of histories in transit, stacked by depth
``order``     int64 (H,)       history slots sorted by child; a frame is ``order[F_OLO:F_OHI]``
``e_*``       (EC,)            entry pool: hashes, row, parent, slot, first history (its index in
                               ``order``), count, action
                               list (``e_alo`` into ``acts``, ``e_nact``)
``acts``      int32 (AC,)      the node's action lists, one per entry of the actor
``t_*``       (TC,)            an open-addressing hash table, cleared by bumping ``G[G_STAMP]``
``c_*``       (C, ...)         child table: histories, start, public token count, hash, tokens,
                               the prefix child it merges into and its final index
``mpool``     float64 (MC,)    the dense matrices of the anchors on the current path (+ scratch)
``lvl_*``     int64 (D + 1,)   per level: public nodes and entries counted; next free node and entry
============  ===============  ==================================================================
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from solvers import CHANCE, DECISION, TERMINAL

from coupsolve import engine as E

# frame columns
(F_OLO, F_OHI, F_BASE, F_M, F_NCH, F_NXT, F_CPLO, F_NODE, F_CHILD0, F_ELO, F_EN0, F_EN1, F_ANCHOR,
 F_MLO, F_MCOLS, F_MTOP, F_MID, F_PHASE, F_KIND, F_PLAYER, F_NSTOP, F_SLO, F_RTOP, F_WHY) = range(24)
NF = 24
PHASE_ENTER, PHASE_ITER = 0, 1
# global counters
(G_DEPTH, G_NODES, G_ENTRIES, G_INFOSETS, G_ACTIONS, G_MATRICES, G_CELLS, G_HISTORIES, G_STAMP,
 G_NEED, G_DECHIST, G_MAXH, G_MAXE, G_MAXM, G_MAXC, G_TERMHIST, G_CELLS_WHY) = range(17)
G_ROWS0 = 19  # the pending event rows of the root's histories in transit (a walk rooted mid-game)
NG = 20  # G_CELLS_WHY + ANCHOR_* (the cells of the matrices stored, by why their node is an anchor), G_ROWS0
ANCHOR_CHANCE, ANCHOR_WEIGHTS, ANCHOR_PAYOFF = 0, 1, 2  # the root or a chance child; weights; payoffs
# status codes
DONE, MORE = 0, 1
(NEED_HIST, NEED_ENTRY, NEED_TABLE, NEED_MATRIX, NEED_CHILD, NEED_ACTS, NEED_STATE,
 NEED_ROWS) = range(2, 10)
ERR_COLLISION, ERR_RECALL, ERR_ACTIONS, ERR_MIXED, ERR_SPLIT, ERR_EVENTS, ERR_SILENT = range(10, 17)
WEIGHT_RTOL = 1e-10  # two chance weights are the same cell when they agree to this (summing order)
TOK_WIDTH = E.MAX_EVENTS_PER_STEP


class Work(NamedTuple):
    """The walk's resumable state (module docstring)."""

    frame: np.ndarray
    st: np.ndarray
    h_h: np.ndarray
    h_ent: np.ndarray
    h_par: np.ndarray
    h_slot: np.ndarray
    h_prob: np.ndarray
    h_kid: np.ndarray
    h_np: np.ndarray
    h_poff: np.ndarray
    h_src: np.ndarray
    h_act: np.ndarray
    rows: np.ndarray
    order: np.ndarray
    e_h1: np.ndarray
    e_h2: np.ndarray
    e_row: np.ndarray
    e_par: np.ndarray
    e_slot: np.ndarray
    e_first: np.ndarray
    e_count: np.ndarray
    e_alo: np.ndarray
    e_nact: np.ndarray
    acts: np.ndarray
    t_key: np.ndarray
    t_val: np.ndarray
    t_stamp: np.ndarray
    c_cnt: np.ndarray
    c_start: np.ndarray
    c_ntok: np.ndarray
    c_hash: np.ndarray
    c_tok: np.ndarray
    c_tgt: np.ndarray
    c_new: np.ndarray
    mpool: np.ndarray
    lvl_nodes: np.ndarray
    lvl_ent: np.ndarray
    free_node: np.ndarray
    free_ent: np.ndarray


@njit(cache=True, inline="always")
def _tmask(W, G, n):
    """The mask of a table for ``n`` keys (the first power of two >= 2n slots of ``W.t_*``, so a small
    node's keys stay in cache), or -1 with ``G[G_NEED]`` set when ``W.t_*`` is too short."""
    size = 2
    while size < 2 * n:
        size *= 2
    if size > W.t_key.shape[0]:
        G[G_NEED] = size
        return -1
    return size - 1


@njit(cache=True, inline="always")
def _tslot(W, stamp, key, mask):
    """The table slot holding ``key`` (``W.t_stamp[i] == stamp``) or the empty slot where it goes.

    Linear probing from a Fibonacci hash of the key's high bits, within ``mask + 1`` slots (from
    :func:`_tmask`).
    """
    mixed = (key ^ (key >> np.uint64(31))) * np.uint64(0x9E3779B97F4A7C15)
    i = np.int64(mixed >> np.uint64(32)) & mask
    while W.t_stamp[i] == stamp and W.t_key[i] != key:
        i = (i + 1) & mask
    return i


@njit(cache=True)
def _materialize(P, W, G, d, ev, buf, pbuf):
    """Make the engine states of the node at depth ``d`` (``st`` from ``F_SLO``): each is its parent's
    state, stepped by ``h_act`` unless carried in transit. ``ev``, ``buf``, ``pbuf``: engine scratch.
    Returns ``NEED_STATE`` or ``DONE``."""
    F = W.frame
    olo, ohi, slo = F[d, F_OLO], F[d, F_OHI], F[d, F_SLO]
    if slo + ohi - olo > W.st.shape[0]:
        G[G_NEED] = slo + ohi - olo
        return NEED_STATE
    for i in range(olo, ohi):
        s = W.order[i]
        dst = slo + i - olo
        src = W.h_src[s]
        if src != dst:
            for q in range(W.st.shape[1]):  # a loop: a slice copy made the walk slower
                W.st[dst, q] = W.st[src, q]
        if W.h_act[s] >= 0:
            E.apply(P, W.st[dst], W.h_act[s], ev, 0, buf, pbuf)
    return DONE


@njit(cache=True)
def _classify(W, d):
    """Set ``F_KIND``, ``F_PLAYER`` and ``F_NSTOP`` (histories that stop here, not in transit) of the
    node at depth ``d``; ``ERR_MIXED`` if those are of different kinds or players, or if histories pass
    through a terminal (a public node must be one decision, one chance event or one end)."""
    F = W.frame
    kind, player, nstop = -1, -1, 0
    for i in range(F[d, F_OLO], F[d, F_OHI]):
        if W.h_np[W.order[i]] > 0:
            continue
        s = W.st[F[d, F_SLO] + i - F[d, F_OLO]]
        nstop += 1
        p = -1
        if E.is_terminal(s):
            k = TERMINAL
        elif E.is_chance(s):
            k = CHANCE
        else:
            k = DECISION
            p = E.current_player(s)
        if kind < 0:
            kind, player = k, p
        elif k != kind or p != player:
            return ERR_MIXED
    if kind == TERMINAL and nstop != F[d, F_OHI] - F[d, F_OLO]:
        return ERR_MIXED
    F[d, F_KIND], F[d, F_PLAYER], F[d, F_NSTOP] = kind, player, nstop
    return DONE


@njit(cache=True)
def _entries(W, G, d):
    """Group the histories of the node at depth ``d`` into each player's entries (distinct own hashes,
    in order of first appearance), set ``h_ent`` and the entry pool from ``F_ELO``.

    Returns ``NEED_ENTRY``/``NEED_TABLE`` (pool too small), ``ERR_COLLISION`` (one first hash with two
    second hashes), ``ERR_RECALL`` (one entry reached from two parent entries or actions) or ``DONE``.
    """
    F = W.frame
    olo, ohi, elo = F[d, F_OLO], F[d, F_OHI], F[d, F_ELO]
    n = ohi - olo
    if elo + 2 * n > W.e_h1.shape[0]:
        G[G_NEED] = elo + 2 * n
        return NEED_ENTRY
    mask = _tmask(W, G, n)
    if mask < 0:
        return NEED_TABLE
    pactor = F[d - 1, F_PLAYER] if d > 0 else -1
    base = elo
    for p in range(2):
        G[G_STAMP] += 1
        stamp = G[G_STAMP]
        cnt = 0
        for i in range(olo, ohi):
            s = W.order[i]
            k1, k2 = W.h_h[s, p, 0], W.h_h[s, p, 1]
            t = _tslot(W, stamp, k1, mask)
            par = W.h_par[s, p]
            sl = W.h_slot[s] if p == pactor else -1
            if W.t_stamp[t] == stamp:
                e = W.t_val[t]
                g = base + e
                if W.e_h2[g] != k2:
                    return ERR_COLLISION
                if W.e_par[g] != par or W.e_slot[g] != sl:
                    return ERR_RECALL
                W.e_count[g] += 1
            else:
                e = cnt
                cnt += 1
                W.t_stamp[t] = stamp
                W.t_key[t] = k1
                W.t_val[t] = e
                g = base + e
                W.e_h1[g], W.e_h2[g], W.e_par[g], W.e_slot[g] = k1, k2, par, sl
                W.e_first[g] = i
                W.e_count[g] = 1
            W.h_ent[s, p] = e
        F[d, F_EN0 + p] = cnt
        base += cnt
    G[G_MAXE] = max(G[G_MAXE], base)
    return DONE


@njit(cache=True)
def _accumulate(W, d, mlo, payoff):
    """Sum the node's chance probabilities (times ``payoff[slot]`` when given) into the dense
    ``EN0 x EN1`` matrix at ``W.mpool[mlo:]``."""
    F = W.frame
    n1 = F[d, F_EN1]
    size = F[d, F_EN0] * n1
    W.mpool[mlo:mlo + size] = 0.0
    for i in range(F[d, F_OLO], F[d, F_OHI]):
        s = W.order[i]
        w = W.h_prob[s] * (payoff[s] if payoff.shape[0] > 0 else 1.0)
        W.mpool[mlo + W.h_ent[s, 0] * n1 + W.h_ent[s, 1]] += w


@njit(cache=True)
def _same_weights(W, d, mlo):
    """Whether the node's weights (at ``mpool[mlo:]``) are its anchor's matrix read at its entries'
    rows."""
    F = W.frame
    n0, n1, elo = F[d, F_EN0], F[d, F_EN1], F[d, F_ELO]
    a = F[d - 1, F_ANCHOR]
    amlo, acols = F[a, F_MLO], F[a, F_MCOLS]
    for e0 in range(n0):
        r = amlo + W.e_row[elo + e0] * acols
        for e1 in range(n1):
            x = W.mpool[mlo + e0 * n1 + e1]
            y = W.mpool[r + W.e_row[elo + n0 + e1]]
            if abs(x - y) > WEIGHT_RTOL * max(x, y):
                return False
    return True


@njit(cache=True)
def _weights(W, G, d, payoff):
    """Decide whether the node at depth ``d`` is an anchor; set its rows and matrix columns.

    The root and every child of a chance node are anchors; any other node is one when its weights are
    not its parent's anchor's matrix at its entries' inherited rows (``_same_weights``), or when
    ``payoff`` (float64 per history slot, empty for none) is given. Returns ``NEED_MATRIX`` or ``DONE``.
    """
    F = W.frame
    n0, n1, elo = F[d, F_EN0], F[d, F_EN1], F[d, F_ELO]
    mlo = F[d - 1, F_MTOP] if d > 0 else 0
    if mlo + n0 * n1 > W.mpool.shape[0]:
        G[G_NEED] = mlo + n0 * n1
        return NEED_MATRIX
    _accumulate(W, d, mlo, payoff)
    anchor = d == 0 or F[d - 1, F_KIND] == CHANCE or payoff.shape[0] > 0
    why = ANCHOR_PAYOFF if payoff.shape[0] > 0 else ANCHOR_CHANCE
    if not anchor:
        pe = F[d - 1, F_ELO]
        pn0 = F[d - 1, F_EN0]
        for e in range(n0):
            W.e_row[elo + e] = W.e_row[pe + W.e_par[elo + e]]
        for e in range(n1):
            W.e_row[elo + n0 + e] = W.e_row[pe + pn0 + W.e_par[elo + n0 + e]]
        anchor = not _same_weights(W, d, mlo)
        why = ANCHOR_WEIGHTS
    if anchor:
        for e in range(n0):
            W.e_row[elo + e] = e
        for e in range(n1):
            W.e_row[elo + n0 + e] = e
        F[d, F_ANCHOR], F[d, F_MLO], F[d, F_MCOLS] = d, mlo, n1
        F[d, F_MTOP], F[d, F_MID], F[d, F_WHY] = mlo + n0 * n1, -1, why
        G[G_MAXM] = max(G[G_MAXM], mlo + n0 * n1)
    else:
        F[d, F_ANCHOR] = F[d - 1, F_ANCHOR]
        F[d, F_MTOP] = F[d - 1, F_MTOP]
    return DONE


@njit(cache=True)
def _matrix_id(W, O, G, a, fill):
    """The matrix id of the anchor at depth ``a``, given (and, with ``fill``, its cells written to
    ``O.matrix_*``) the first time a terminal uses it."""
    F = W.frame
    if F[a, F_MID] < 0:
        m = G[G_MATRICES]
        lo, size = F[a, F_MLO], F[a, F_MTOP] - F[a, F_MLO]
        if fill:
            c = G[G_CELLS]
            O.matrix_cols[m] = F[a, F_MCOLS]
            O.matrix_start[m] = c
            O.matrix_start[m + 1] = c + size
            O.matrix_data[c:c + size] = W.mpool[lo:lo + size]
        F[a, F_MID] = m
        G[G_MATRICES] = m + 1
        G[G_CELLS] += size
        G[G_CELLS_WHY + F[a, F_WHY]] += size
    return F[a, F_MID]


@njit(cache=True)
def _terminal(P, W, O, G, d, fill, ret, payoff, L):
    """The terminal at depth ``d``: its matrix (its anchor's, or its own of probability x payoff when
    its histories pay player 0 differently) and scale. ``payoff``: float64 scratch, one per slot. With
    ``fill``, its histories are written to ``L`` (a :class:`~coupsolve.trees.stepwalk.pools.LeafOut`) unless empty.

    Returns ``NEED_MATRIX`` or ``DONE``.
    """
    F = W.frame
    olo, ohi = F[d, F_OLO], F[d, F_OHI]
    uniform = True
    first = 0.0
    for i in range(olo, ohi):
        s = W.order[i]
        E.returns(P, W.st[F[d, F_SLO] + i - olo], ret)
        payoff[s] = ret[0]
        if i == olo:
            first = ret[0]
        elif ret[0] != first:
            uniform = False
    scale = first
    if not uniform:
        st = _weights(W, G, d, payoff)
        if st != DONE:
            return st
        scale = 1.0
    m = _matrix_id(W, O, G, F[d, F_ANCHOR], fill)
    if fill:
        v = F[d, F_NODE]
        O.term_matrix[v] = m
        O.term_scale[v] = scale
        if L.node.shape[0] > 0:
            base = G[G_TERMHIST] - olo
            for i in range(olo, ohi):
                s = W.order[i]
                L.node[base + i] = v
                L.entry[base + i, 0], L.entry[base + i, 1] = W.h_ent[s, 0], W.h_ent[s, 1]
                L.prob[base + i] = W.h_prob[s]
                L.state[base + i, :] = W.st[F[d, F_SLO] + i - olo]
    G[G_TERMHIST] += ohi - olo
    return DONE


@njit(cache=True)
def _lists(P, W, G, d, buf):
    """The legal action list of each of the actor's entries at the decision node at depth ``d`` (into
    ``W.acts``, ``e_alo``/``e_nact``; ``e_nact`` 0 for an entry whose histories are in transit: no
    information set). ``ERR_ACTIONS`` if two histories of an entry have different lists (or one acts
    and one is in transit), ``NEED_ACTS`` if ``W.acts`` is too small. ``buf``: int32[MAX_MOVES]."""
    F = W.frame
    p = F[d, F_PLAYER]
    off = F[d, F_ELO] + (F[d, F_EN0] if p == 1 else 0)
    alo = 0
    for i in range(F[d, F_OLO], F[d, F_OHI]):
        s = W.order[i]
        g = off + W.h_ent[s, p]
        k = 0 if W.h_np[s] > 0 else E.legal_actions(P, W.st[F[d, F_SLO] + i - F[d, F_OLO]], buf)
        if W.e_first[g] == i:
            if alo + k > W.acts.shape[0]:
                G[G_NEED] = alo + k + (F[d, F_OHI] - i) * k
                return NEED_ACTS
            W.e_alo[g] = alo
            W.e_nact[g] = k
            W.acts[alo:alo + k] = buf[:k]
            alo += k
        else:
            if W.e_nact[g] != k:
                return ERR_ACTIONS
            a0 = W.e_alo[g]
            for j in range(k):
                if W.acts[a0 + j] != buf[j]:
                    return ERR_ACTIONS
    return DONE
