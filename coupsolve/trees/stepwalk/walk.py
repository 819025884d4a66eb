"""The compiled walk of Coup's public tree (driven by :mod:`coupsolve.trees.stepwalk.build`).

Depth first over *public* nodes with an explicit stack of frames (:mod:`coupsolve.trees.stepwalk.node`
has the layout). Visiting a node makes its histories' states, groups them into entries, classifies it,
settles its chance weights and, unless it is a terminal, expands it into its children
(:mod:`coupsolve.trees.stepwalk.expand`), which are then visited one by one. Public nodes are numbered in
level order as :mod:`coupsolve.trees.history.builder` numbers histories: a node's children take the next free block
of the next level when it is visited, and since a depth-first walk visits the nodes of a level in index
order, so are the entries of a level written.

:func:`run` stops after ``budget`` visits (the caller polls for Ctrl-C and reports progress between
chunks) or when a pool is too small (the caller grows it); both resume where they stopped.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from solvers import DECISION, TERMINAL

from coupsolve import engine as E
from coupsolve.engine.core import pack_hand
from coupsolve.engine.hashing import absorb, seed_hashes
from coupsolve.trees.stepwalk.expand import _expand, _split_check
from coupsolve.trees.stepwalk.node import (DONE, F_ANCHOR, F_BASE, F_CHILD0, F_CPLO, F_ELO, F_EN0, F_EN1,
                               F_KIND, F_M, F_MTOP, F_NCH, F_NODE, F_NSTOP, F_NXT, F_OHI, F_OLO,
                               F_PHASE, F_PLAYER, F_SLO, G_ACTIONS, G_DECHIST, G_DEPTH, G_ENTRIES,
                               G_HISTORIES, G_INFOSETS, G_NODES, MORE, PHASE_ENTER,
                               PHASE_ITER, _classify, _entries, _lists, _materialize, _terminal,
                               _weights)


@njit(cache=True)
def _commit(W, O, G, d, fill):
    """Count the node at depth ``d`` and, with ``fill``, write it, its entries and its information
    sets."""
    F = W.frame
    n0, n1, elo = F[d, F_EN0], F[d, F_EN1], F[d, F_ELO]
    kind, p = F[d, F_KIND], F[d, F_PLAYER]
    n = F[d, F_NSTOP]
    W.lvl_nodes[d] += 1
    W.lvl_ent[d] += n0 + n1
    G[G_NODES] += 1
    G[G_ENTRIES] += n0 + n1
    G[G_HISTORIES] += n
    nch = F[d, F_NCH] if kind != TERMINAL else 0
    if fill:
        v = F[d, F_NODE]
        O.node_kind[v], O.node_player[v], O.num_entries0[v] = kind, p, n0
        eo = W.free_ent[d]
        O.entry_start[v] = eo
        for e in range(n0 + n1):
            srow = F[d, F_SLO] + W.e_first[elo + e] - F[d, F_OLO]
            O.entry_hand[eo + e] = pack_hand(W.st[srow], E.S_HAND + E.NCH * (0 if e < n0 else 1))
            O.entry_hash[eo + e] = W.e_h1[elo + e]
            O.entry_parent[eo + e] = W.e_par[elo + e]
            O.entry_slot[eo + e] = W.e_slot[elo + e]
            O.entry_ref[eo + e] = W.e_row[elo + e] if kind == TERMINAL else -1
        O.child_start[v] = W.free_node[d + 1]
        O.num_children[v] = nch
        if kind != TERMINAL:
            O.term_matrix[v], O.term_scale[v] = -1, 0.0
    W.free_ent[d] += n0 + n1
    F[d, F_CHILD0] = W.free_node[d + 1]
    W.free_node[d + 1] += nch
    if kind == DECISION:
        G[G_DECHIST] += n
        off = n0 if p == 1 else 0
        for e in range(n1 if p == 1 else n0):
            g = elo + off + e
            if W.e_nact[g] == 0:  # histories in transit: no information set
                continue
            if fill:
                _write_infoset(W, O, G, g, W.free_ent[d] - n0 - n1 + off + e, p, F[d, F_NODE],
                               F[d, F_SLO] + W.e_first[g] - F[d, F_OLO])
            G[G_INFOSETS] += 1
            G[G_ACTIONS] += W.e_nact[g]


@njit(cache=True)
def _write_infoset(W, O, G, g, ge, p, v, srow):
    """Write information set ``G[G_INFOSETS]``: entry ``g`` of the pool (global entry ``ge``) of player
    ``p`` at public node ``v``, whose first history's state is ``W.st[srow]``."""
    i, a = G[G_INFOSETS], G[G_ACTIONS]
    k, a0 = W.e_nact[g], W.e_alo[g]
    O.entry_ref[ge] = i
    O.infoset_player[i], O.infoset_num_actions[i], O.infoset_offset[i] = p, k, a
    O.infoset_actions[a:a + k] = W.acts[a0:a0 + k]
    O.infoset_count[i], O.infoset_node[i] = W.e_count[g], v
    O.infoset_hash[i] = W.e_h1[g]
    O.infoset_context[i] = E.node_context(W.st[srow])


@njit(cache=True)
def _visit(P, W, O, G, d, fill, sc, ret, payoff, L):
    """Visit the node at depth ``d``: every step of :mod:`coupsolve.trees.stepwalk.node`, the expansion,
    then the commit (only once every pool was large enough). Returns a status code."""
    st = _materialize(P, W, G, d, sc[0], sc[1], sc[2])
    if st == DONE:
        st = _classify(W, d)
    if st == DONE:
        st = _entries(W, G, d)
    if st == DONE:
        st = _weights(W, G, d, payoff[:0])
    if st != DONE:
        return st
    kind = W.frame[d, F_KIND]
    if kind == TERMINAL:
        st = _terminal(P, W, O, G, d, fill, ret, payoff, L)
    else:
        if kind == DECISION:
            st = _lists(P, W, G, d, sc[1])
        if st == DONE:
            st = _expand(P, W, G, d, sc)
        if st == DONE:
            st = _split_check(W, G, d)
    if st == DONE:
        _commit(W, O, G, d, fill)
        W.frame[d, F_PHASE] = PHASE_ITER
    return st


@njit(cache=True)
def _push(W, d):
    """Make the next child of the node at depth ``d`` the frame at depth ``d + 1``."""
    F = W.frame
    c = F[d, F_NXT]
    F[d, F_NXT] = c + 1
    r = F[d, F_CPLO] + c
    end = F[d, F_BASE] + W.c_start[r]
    F[d + 1, F_OLO], F[d + 1, F_OHI] = end - W.c_cnt[r], end
    F[d + 1, F_BASE] = F[d, F_BASE] + F[d, F_M]
    F[d + 1, F_CPLO] = F[d, F_CPLO] + F[d, F_NCH]
    F[d + 1, F_ELO] = F[d, F_ELO] + F[d, F_EN0] + F[d, F_EN1]
    F[d + 1, F_SLO] = F[d, F_SLO] + F[d, F_OHI] - F[d, F_OLO]
    F[d + 1, F_NODE] = F[d, F_CHILD0] + c
    F[d + 1, F_PHASE] = PHASE_ENTER


@njit(cache=True)
def run(P, W, O, G, fill, budget, L):
    """Walk on from the stack in ``W`` and ``G`` for at most ``budget`` node visits.

    Parameters
    ----------
    P : int32[P_SIZE]
    W : publicbuild_node.Work
    O : publicbuild.PublicOut
        The output arrays (written with ``fill``; empty otherwise).
    G : int64[NG]
        The global counters (``G_*``).
    fill : bool
    budget : int
    L : node.LeafOut
        Where the terminal histories are written (with ``fill``; empty arrays: nowhere).

    Returns
    -------
    int
        ``DONE`` (the walk is over), ``MORE`` (the budget is spent), a ``NEED_*`` code (grow a pool to
        ``G[G_NEED]`` and call again) or an ``ERR_*`` code (``G[G_DEPTH]`` is the depth of the node).
    """
    ev = np.zeros((E.MAX_EVENTS_PER_STEP * 4, 3), dtype=np.int32)
    sc = (ev, np.zeros(E.MAX_MOVES, np.int32), np.zeros(E.MAX_MOVES, np.float64),
          np.zeros(E.MAX_MOVES, np.int32), np.zeros(E.MAX_MOVES, np.float64),
          np.full(E.MAX_MOVES, -1, np.int64), np.zeros(E.S_SIZE, np.int32))
    ret = np.zeros(E.MAXP, dtype=np.float64)
    payoff = np.empty(W.h_prob.shape[0], dtype=np.float64)
    F = W.frame
    visits = 0
    while G[G_DEPTH] >= 0:
        d = G[G_DEPTH]
        if F[d, F_PHASE] == PHASE_ENTER:
            if visits >= budget:
                return MORE
            st = _visit(P, W, O, G, d, fill, sc, ret, payoff, L)
            if st != DONE:
                return st
            visits += 1
        elif F[d, F_KIND] != TERMINAL and F[d, F_NXT] < F[d, F_NCH]:
            _push(W, d)
            G[G_DEPTH] = d + 1
        else:
            G[G_DEPTH] = d - 1
    return DONE


@njit(cache=True)
def init(P, W, G):
    """Put the root (the engine's initial state, after its forced steps) on an empty stack."""
    ev = np.zeros((E.MAX_EVENTS_PER_STEP * 4, 3), dtype=np.int32)
    seed_hashes(W.h_h[0])
    ne = E.initial_state(P, W.st[0], ev, np.zeros(E.MAX_MOVES, np.int32),
                         np.zeros(E.MAX_MOVES, np.float64))
    absorb(W.h_h, 0, 0, ev, ne)
    W.h_prob[0] = 1.0
    W.h_par[0, 0], W.h_par[0, 1], W.h_slot[0], W.h_np[0] = -1, -1, -1, 0
    W.h_src[0], W.h_act[0] = 0, -1
    W.order[0] = 0
    F = W.frame
    F[0, F_OLO], F[0, F_OHI], F[0, F_BASE], F[0, F_CPLO], F[0, F_ELO] = 0, 1, 1, 0, 0
    F[0, F_NODE], F[0, F_PHASE], F[0, F_ANCHOR], F[0, F_MTOP], F[0, F_SLO] = 0, PHASE_ENTER, 0, 0, 0
    G[G_DEPTH] = 0


@njit(cache=True)
def replay(P, paths, by_index, out):
    """Both players' two token hashes after each action sequence (as :func:`coupsolve.trees.history.builder._walk`
    keys information sets).

    Parameters
    ----------
    P : int32[P_SIZE]
    paths : int32[n, L]
        Action or chance outcome ids (or, with ``by_index``, positions in the node's legal action or
        chance outcome list), each row padded with -1.
    by_index : bool
    out : uint64[n, 2, 2]
        Receives ``out[i, p, k]``: hash ``k`` of player ``p``'s token sequence after row ``i``.

    Returns
    -------
    int
        -1, or the first row holding an action that is not legal where it is played.
    """
    none = np.zeros(0, np.int64)
    nobody = np.int64(-1)  # not a literal -1: the copy compiled for own.py's seats serves
    n = replay_choices(P, paths, by_index, out, nobody, none, np.zeros(0, np.int32), np.zeros(0, np.uint64))
    return -1 if n >= 0 else -1 - n


@njit(cache=True)
def replay_choices(P, paths, by_index, out, player, row, move, key):
    """:func:`replay`, also recording every choice of ``player`` (where it acts with more than one legal
    move; none for -1): its ``row``, the ``move`` made (an id) and the ``key`` of its information set
    there (its first token hash before the move). Returns how many choices (the outputs hold at most
    ``paths.size``), or ``-1 - r`` for the first row ``r`` holding an action not legal where it is
    played."""
    s = np.zeros(E.S_SIZE, np.int32)
    ev = np.zeros((E.MAX_EVENTS_PER_STEP * 4, 3), dtype=np.int32)
    buf, pbuf = np.zeros(E.MAX_MOVES, np.int32), np.zeros(E.MAX_MOVES, np.float64)
    moves, mprob = np.zeros(E.MAX_MOVES, np.int32), np.zeros(E.MAX_MOVES, np.float64)
    h = np.zeros((1, 2, 2), np.uint64)
    n = 0
    for r in range(paths.shape[0]):
        seed_hashes(h[0])
        absorb(h, 0, 0, ev, E.initial_state(P, s, ev, buf, pbuf))
        for t in range(paths.shape[1]):
            a = paths[r, t]
            if a < 0:
                break
            chance = E.is_chance(s)
            if chance:
                k = E.chance_outcomes(P, s, moves, mprob)
            else:
                k = E.legal_actions(P, s, moves)
            if by_index:
                if a >= k:
                    return -1 - r
                a = moves[a]
            elif not np.any(moves[:k] == a):
                return -1 - r
            if player >= 0 and not chance and k > 1 and E.current_player(s) == player:
                row[n], move[n], key[n] = r, a, h[0, player, 0]
                n += 1
            absorb(h, 0, 0, ev, E.apply(P, s, a, ev, 0, buf, pbuf))
        for p in range(2):
            out[r, p, 0], out[r, p, 1] = h[0, p, 0], h[0, p, 1]
    return n
