"""The class walk's output (:mod:`coupsolve.trees.classwalk.walk`): a node's information sets and arrays, its
children on the next level, and the loop over a level's nodes.

A level (:class:`Level`) holds its public nodes, their entries (two token hashes, bucket, parent,
slot) and their buckets (class, anchor row, entries in it). The tree's arrays (``O``, a
:class:`coupsolve.trees.classwalk.build.ClassOut`) are written only with ``fill``; the anchor matrices and the
information sets' first hashes always are (the walk reads the first, the collision check the second).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from solvers import CHANCE, DECISION, TERMINAL

from coupsolve import engine as E
from coupsolve.engine.core import pack_hand
from coupsolve.trees.classwalk.walk import (DONE, I_ACTOR, I_DECHIST, I_KIND, I_NCH, I_NEWCELL, I_NEWDENSE, I_NEWMAT,
                        I_NEWROWS, I_PAIRS, I_PHASE, I_STEPPED, NEED_LBUCK, NEED_LENT, NEED_LNODE,
                        NEED_OACT, NEED_OENT, NEED_OINF, NEED_ONODE, NEED_ORD, find_cell, step_pairs)
from coupsolve.trees.classwalk.children import (G_ACTIONS, G_CELLS, G_CHPAIRS, G_DECHIST, G_DENSE, G_ENTRIES,
                                 G_ERRNODE, G_INFOSETS, G_MATRICES, G_NEED, G_NODES, G_PAIRS,
                                 G_ROWS, G_STAMP, G_STEPPED, G_TERMPAIRS, settle_children)
from coupsolve.trees.classwalk.state import C_HAND, compose
from coupsolve.trees.classwalk.table import hash_tokens


class Level(NamedTuple):
    """One level of public nodes (N nodes, E entries, B buckets; capacities may be larger)."""

    pub: np.ndarray  # int32 (N, S_SIZE) public part of the state
    amat: np.ndarray  # int64 (N,) anchor matrix
    elo: np.ndarray  # int64 (N + 1,) entries: player 0's then player 1's
    ne0: np.ndarray  # int32 (N,)
    blo: np.ndarray  # int64 (N + 1,) buckets: player 0's then player 1's
    nb0: np.ndarray  # int32 (N,)
    e_h: np.ndarray  # uint64 (E, 2) the entry's two token hashes
    e_bk: np.ndarray  # int32 (E,) its bucket, local to its player at its node
    e_par: np.ndarray  # int32 (E,) its parent entry, local to its player at the parent node
    e_slot: np.ndarray  # int16 (E,)
    b_cls: np.ndarray  # int8 (B, NCL) (a count of cards; a bucket is about one entry, so its bytes count)
    b_row: np.ndarray  # int32 (B,) row (player 0) or column (player 1) in the anchor matrix
    b_cnt: np.ndarray  # int32 (B,) entries in the bucket


@njit(cache=True)
def _sort_entries(cur, i, S):
    """``S.ord``: the node's entries (global level indices) by player and bucket; ``S.o_lo`` the start
    of each bucket (player 0's buckets first). Returns False when the arrays are too small."""
    e_lo, e_hi, ne0 = cur.elo[i], cur.elo[i + 1], cur.ne0[i]
    nb = cur.blo[i + 1] - cur.blo[i]
    nb0 = cur.nb0[i]
    if e_hi - e_lo > S.ord.shape[0] or nb + 1 > S.o_lo.shape[0]:
        return False
    S.o_lo[:nb + 1] = 0
    for e in range(e_lo, e_hi):
        S.o_lo[1 + cur.e_bk[e] + (nb0 if e - e_lo >= ne0 else 0)] += 1
    for b in range(nb):
        S.o_lo[b + 1] += S.o_lo[b]
    fill = S.o_lo[:nb].copy()
    for e in range(e_lo, e_hi):
        b = cur.e_bk[e] + (nb0 if e - e_lo >= ne0 else 0)
        S.ord[fill[b]] = e
        fill[b] += 1
    return True


@njit(cache=True)
def _infosets(P, cur, i, O, S, G, fill, v, ent_inf):
    """Give the actor's entries of decision node ``i`` (global ``v``) whose bucket decides their
    information sets: ``ent_inf[e - elo]``; returns a status code (infosets not yet counted)."""
    e_lo, ne0 = cur.elo[i], cur.ne0[i]
    b_lo, nb0 = cur.blo[i], cur.nb0[i]
    nb1 = cur.blo[i + 1] - b_lo - nb0
    p = S.info[I_ACTOR]
    lo, n = (e_lo, ne0) if p == 0 else (e_lo + ne0, cur.elo[i + 1] - e_lo - ne0)
    ni, na = G[G_INFOSETS], G[G_ACTIONS]
    bearing = S.info[I_PHASE] == E.PH_TURN
    need = 0  # the entries that get an information set (exactly: a build sized by its count grows nothing)
    for e in range(lo, lo + n):
        if bearing or S.a_k[cur.e_bk[e]] > 1:
            need += 1
    if ni + need > O.infoset_hash.shape[0]:
        G[G_NEED] = ni + need
        return NEED_OINF
    m = cur.amat[i]
    for e in range(lo, lo + n):
        j = cur.e_bk[e]
        k = S.a_k[j]
        ent_inf[e - e_lo] = -1
        if not (k > 1 or bearing):
            continue
        ent_inf[e - e_lo] = ni
        O.infoset_hash[ni] = cur.e_h[e, 0]
        if fill:
            if na + k > O.infoset_actions.shape[0]:
                G[G_NEED] = na + k + n * 16
                return NEED_OACT
            rj = cur.b_row[b_lo + (0 if p == 0 else nb0) + j]
            count = 0
            first = -1
            for jo in range(nb1 if p == 0 else nb0):
                ro = cur.b_row[b_lo + (nb0 if p == 0 else 0) + jo]
                cell = find_cell(O, m, rj if p == 0 else ro, ro if p == 0 else rj)
                cnt = O.matrix_cnt[cell] if cell >= 0 else 0
                count += cnt * cur.b_cnt[b_lo + (nb0 if p == 0 else 0) + jo]
                if cnt > 0 and first < 0:
                    first = jo
            S.cls[p] = cur.b_cls[b_lo + (0 if p == 0 else nb0) + j]
            S.cls[1 - p] = cur.b_cls[b_lo + (nb0 if p == 0 else 0) + first]
            compose(P, cur.pub[i], S.cls, S.s)
            O.infoset_player[ni], O.infoset_num_actions[ni], O.infoset_offset[ni] = p, k, na
            O.infoset_count[ni], O.infoset_node[ni] = count, v
            O.infoset_context[ni] = E.node_context(S.s)
            O.infoset_actions[na:na + k] = S.acts[S.a_lo[j]:S.a_lo[j] + k]
        ni += 1
        na += k
    G[G_INFOSETS], G[G_ACTIONS] = ni, na
    return DONE


@njit(cache=True)
def _write_node(cur, i, O, S, G, v, ent_inf, child0, nch):
    """Write node ``i`` (global ``v``) and its entries into the tree arrays."""
    kind = S.info[I_KIND]
    e_lo, e_hi, ne0 = cur.elo[i], cur.elo[i + 1], cur.ne0[i]
    b_lo, nb0 = cur.blo[i], cur.nb0[i]
    O.node_kind[v], O.node_player[v] = kind, S.info[I_ACTOR] if kind == DECISION else -1
    O.child_start[v], O.num_children[v] = child0, nch
    eo = G[G_ENTRIES]
    O.entry_start[v], O.num_entries0[v] = eo, ne0
    O.term_matrix[v] = cur.amat[i] if kind == TERMINAL else -1
    O.term_scale[v] = S.payoff[0] if kind == TERMINAL else 0.0
    for e in range(e_lo, e_hi):
        b = b_lo + cur.e_bk[e] + (nb0 if e - e_lo >= ne0 else 0)
        g = eo + e - e_lo
        O.entry_parent[g], O.entry_slot[g] = cur.e_par[e], cur.e_slot[e]
        O.entry_ref[g] = cur.b_row[b] if kind == TERMINAL else ent_inf[e - e_lo]
        O.entry_hand[g] = pack_hand(cur.b_cls[b], C_HAND)


@njit(cache=True)
def _emit_children(cur, i, nxt, LC, S, G):
    """Write node ``i``'s children as the next nodes of level ``nxt`` (``LC``: its nodes, entries and
    buckets so far, advanced here): public part, anchor, buckets and entries (the parent's entries of
    each pre-bucket's parent bucket, with the step's own tokens). Returns a status code."""
    nch = S.info[I_NCH]
    e_lo, ne0, nb0 = cur.elo[i], cur.ne0[i], cur.nb0[i]
    u0, eo, bo = LC[0], LC[1], LC[2]
    if u0 + nch + 1 > nxt.amat.shape[0]:
        G[G_NEED] = u0 + nch + 1
        return NEED_LNODE
    nbk, nent = 0, 0
    for c in range(nch):
        nbk += S.c_nb[c, 0] + S.c_nb[c, 1]
        for q in range(2):
            for a in range(S.c_npre[c, q]):
                b = S.k_par[S.plist[S.c_plo[c, q] + a]] + (nb0 if q == 1 else 0)
                nent += S.o_lo[b + 1] - S.o_lo[b]
    if bo + nbk > nxt.b_row.shape[0]:
        G[G_NEED] = bo + nbk
        return NEED_LBUCK
    if eo + nent > nxt.e_bk.shape[0]:
        G[G_NEED] = eo + nent
        return NEED_LENT
    for c in range(nch):
        u = u0 + c
        nxt.pub[u] = S.c_pub[c]
        nxt.amat[u] = S.c_mat[c]
        nxt.elo[u] = eo
        nxt.blo[u] = bo
        nxt.nb0[u] = S.c_nb[c, 0]
        inherit = S.c_mat[c] == cur.amat[i]
        for q in range(2):
            boff = bo + (S.c_nb[c, 0] if q == 1 else 0)
            nxt.b_cnt[boff:boff + S.c_nb[c, q]] = 0
            for a in range(S.c_npre[c, q]):
                k = S.plist[S.c_plo[c, q] + a]
                fb = S.k_fin[k]
                pb = S.k_par[k] + (nb0 if q == 1 else 0)
                nxt.b_cls[boff + fb] = S.k_cls[k]
                nxt.b_row[boff + fb] = cur.b_row[cur.blo[i] + pb] if inherit else fb
                for o in range(S.o_lo[pb], S.o_lo[pb + 1]):
                    e = S.ord[o]
                    for lane in range(2):
                        nxt.e_h[eo, lane] = hash_tokens(cur.e_h[e, lane], S.k_tok[k], S.k_ntok[k],
                                                        lane)
                    nxt.e_bk[eo] = fb
                    nxt.e_par[eo] = e - e_lo - (ne0 if q == 1 else 0)
                    nxt.e_slot[eo] = S.k_slot[k]
                    nxt.b_cnt[boff + fb] += 1
                    eo += 1
            if q == 0:
                nxt.ne0[u] = eo - nxt.elo[u]
        bo += S.c_nb[c, 0] + S.c_nb[c, 1]
    LC[0], LC[1], LC[2] = u0 + nch, eo, bo
    nxt.elo[u0 + nch] = eo
    nxt.blo[u0 + nch] = bo
    return DONE


@njit(cache=True)
def _node(P, cur, i, nxt, LC, O, S, G, fill, next_base):
    """Walk node ``i`` of ``cur`` whole (global node ``G[G_NODES]``): a status code. Nothing is counted
    unless it succeeds, so after a ``NEED_*`` the driver grows an array and calls again."""
    G[G_STAMP] += 1
    st = step_pairs(P, cur, i, O, S, G[G_STAMP], S.t_k1.shape[0] - 1)
    if st != DONE:
        return st
    kind = S.info[I_KIND]
    if kind != TERMINAL:
        st = settle_children(cur, i, O, S, G)
        if st != DONE:
            return st
    if not _sort_entries(cur, i, S):
        G[G_NEED] = cur.elo[i + 1] - cur.elo[i] + cur.blo[i + 1] - cur.blo[i] + 1
        return NEED_ORD
    v = G[G_NODES]
    ni, na = G[G_INFOSETS], G[G_ACTIONS]
    n_ent = cur.elo[i + 1] - cur.elo[i]
    S.ent[:n_ent] = -1
    if kind == DECISION:
        st = _infosets(P, cur, i, O, S, G, fill, v, S.ent)
        if st != DONE:
            return st
    lc = LC.copy()
    if kind != TERMINAL:
        st = _emit_children(cur, i, nxt, LC, S, G)
        if st != DONE:
            G[G_INFOSETS], G[G_ACTIONS] = ni, na
            LC[:] = lc
            return st
    if fill:
        if v >= O.node_kind.shape[0] or G[G_ENTRIES] + n_ent > O.entry_parent.shape[0]:
            G[G_INFOSETS], G[G_ACTIONS] = ni, na
            LC[:] = lc
            G[G_NEED] = G[G_ENTRIES] + n_ent
            return NEED_ONODE if v >= O.node_kind.shape[0] else NEED_OENT
        _write_node(cur, i, O, S, G, v, S.ent, next_base + lc[0], LC[0] - lc[0])
    if kind != TERMINAL:
        G[G_MATRICES] += S.info[I_NEWMAT]
        G[G_CELLS] += S.info[I_NEWCELL]
        G[G_ROWS] += S.info[I_NEWROWS]
        G[G_DENSE] += S.info[I_NEWDENSE]
    G[G_NODES] = v + 1
    G[G_ENTRIES] += n_ent
    G[G_DECHIST] += S.info[I_DECHIST]
    G[G_PAIRS] += S.info[I_PAIRS]
    G[G_STEPPED] += S.info[I_STEPPED]
    if kind == TERMINAL:
        G[G_TERMPAIRS] += S.info[I_PAIRS]
    elif kind == CHANCE:
        G[G_CHPAIRS] += S.info[I_PAIRS]
    return DONE


@njit(cache=True, nogil=True)
def walk_level(P, cur, nxt, LC, O, S, G, fill, next_base, lo, hi):
    """Walk nodes ``lo`` .. ``hi - 1`` of ``cur`` in order. Returns ``(status, node)``: ``DONE`` and
    ``hi``, or the status of the node where it stopped (``G[G_ERRNODE]`` is that node)."""
    for i in range(lo, hi):
        st = _node(P, cur, i, nxt, LC, O, S, G, fill, next_base)
        if st != DONE:
            G[G_ERRNODE] = i
            return st, i
    return DONE, hi
