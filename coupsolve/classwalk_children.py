"""The children of a node of the class walk (:mod:`coupsolve.classwalk`): their buckets and anchors.

After :func:`coupsolve.classwalk.step_pairs`, each child has *pre-buckets* per player (a parent
bucket with the step's own tokens, action slot and new class). :func:`settle_children` turns them into
the child's buckets:

- a child of a decision node whose pairs of pre-buckets with histories are exactly the results that
  reached it *inherits* its parent's anchor: a bucket is a (row of the anchor, class), and the weights of
  its pairs are the anchor's cells, unchanged by a decision;
- any other child (every child of a chance node, a decision child whose public outcome depended on both
  players) is an *anchor*: its pre-buckets' pairs are summed into a dense matrix of chance weight and
  history count, pre-buckets with the same class and the same row are merged into one bucket, and the
  merged matrix is stored (rows player 0's buckets, columns player 1's).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from solvers import CHANCE

from .builder import HASH_MUL, _mix
from .classwalk import (DONE, I_KIND, I_NCH, I_NEWCELL, I_NEWMAT, I_NPRE, I_NRES, NEED_CELL,
                        NEED_DENSE, NEED_MAT, pair_cell)
from .classwalk_state import NCL
from .classwalk_table import EMPTY, table_slot

SEED_GROUP = np.uint64(0x3C6EF372FE94F82B)
# G counters shared with the emit step and the driver
(G_NODES, G_ENTRIES, G_INFOSETS, G_ACTIONS, G_MATRICES, G_CELLS, G_STAMP, G_NEED, G_DECHIST,
 G_PAIRS, G_TERMPAIRS, G_STEPPED, G_ERRNODE, G_CHPAIRS) = range(14)
NG = 16


@njit(cache=True)
def _order_pres(S):
    """``S.c_plo`` and ``S.plist``: the pre-buckets of each child and player, in creation order."""
    nch = S.info[I_NCH]
    at = 0
    for c in range(nch):
        for q in range(2):
            S.c_plo[c, q] = at
            at += S.c_npre[c, q]
    for k in range(S.info[I_NPRE]):
        S.plist[S.c_plo[S.k_c[k], S.k_q[k]] + S.k_idx[k]] = k


@njit(cache=True)
def _rectangle(cur, i, O, S, c):
    """Whether the results reaching child ``c`` are every pair of its pre-buckets with histories."""
    b_lo, nb0, m = cur.blo[i], cur.nb0[i], cur.amat[i]
    pairs = 0
    for a in range(S.c_npre[c, 0]):
        ra = cur.b_row[b_lo + S.k_par[S.plist[S.c_plo[c, 0] + a]]]
        for b in range(S.c_npre[c, 1]):
            rb = cur.b_row[b_lo + nb0 + S.k_par[S.plist[S.c_plo[c, 1] + b]]]
            if O.matrix_cnt[pair_cell(O, m, ra, rb)] > 0:
                pairs += 1
    return pairs == S.c_nres[c]


@njit(cache=True)
def _group(S, G, c, q, row_key, n_other, dense):
    """Merge player ``q``'s pre-buckets at child ``c`` with the same class and the same key:
    ``row_key[a]`` (inheriting: the parent's anchor row) or, with ``dense``, row (``q == 0``) or column
    ``a`` of ``S.dB`` / ``S.dC`` (``n_other`` wide). Writes ``S.k_fin`` and ``S.grp``; returns the
    number of buckets."""
    G[G_STAMP] += 1
    stamp = G[G_STAMP]
    mask = S.t_k1.shape[0] - 1
    n = S.c_npre[c, q]
    lo = S.c_plo[c, q]
    width = S.c_npre[c, 1]
    nb = 0
    for a in range(n):
        k = S.plist[lo + a]
        h1 = SEED_GROUP
        h2 = SEED_GROUP ^ np.uint64(q + 1)
        for f in range(NCL):
            h1, h2 = _mix(h1, S.k_cls[k, f], HASH_MUL[0]), _mix(h2, S.k_cls[k, f], HASH_MUL[1])
        if not dense:
            h1, h2 = _mix(h1, row_key[a], HASH_MUL[0]), _mix(h2, row_key[a], HASH_MUL[1])
        else:
            for b in range(n_other):
                cell = a * width + b if q == 0 else b * width + a
                h1 = _mix(h1, S.dBi[cell], HASH_MUL[0])
                h2 = _mix(h2, S.dC[cell], HASH_MUL[1])
                h2 = _mix(h2, S.dBi[cell], HASH_MUL[1])
        sl = table_slot(S.t_k1, S.t_k2, S.t_val, S.t_stamp, stamp, h1, h2, mask)
        if S.t_val[sl] == EMPTY:
            S.t_val[sl] = nb
            S.grp[nb] = a
            nb += 1
        S.k_fin[k] = S.t_val[sl]
    return nb


@njit(cache=True)
def _dense(S, c):
    """Sum the results reaching child ``c`` into ``S.dB`` / ``S.dC`` (pre-buckets x pre-buckets)."""
    n0, n1 = S.c_npre[c, 0], S.c_npre[c, 1]
    S.dB[:n0 * n1] = 0.0
    S.dC[:n0 * n1] = 0
    for r in range(S.info[I_NRES]):
        if S.r_c[r] == c:
            cell = S.k_idx[S.r_k[r, 0]] * n1 + S.k_idx[S.r_k[r, 1]]
            S.dB[cell] += S.r_w[r]
            S.dC[cell] += S.r_n[r]


@njit(cache=True)
def _store(O, S, G, c, nb0, nb1, mid, cells):
    """Write child ``c``'s merged matrix as matrix ``mid`` at cell ``cells``: a status code."""
    if mid + 1 >= O.matrix_start.shape[0]:
        G[G_NEED] = mid + 2
        return NEED_MAT
    if cells + nb0 * nb1 > O.matrix_data.shape[0]:
        G[G_NEED] = cells + nb0 * nb1
        return NEED_CELL
    n1 = S.c_npre[c, 1]
    # the representatives: grp holds player 1's after the second grouping; player 0's are in k_fin
    rep0 = np.empty(nb0, np.int64)
    for a in range(S.c_npre[c, 0]):
        rep0[S.k_fin[S.plist[S.c_plo[c, 0] + a]]] = a
    O.matrix_start[mid] = cells
    O.matrix_start[mid + 1] = cells + nb0 * nb1
    O.matrix_cols[mid] = nb1
    for g0 in range(nb0):
        for g1 in range(nb1):
            src = rep0[g0] * n1 + S.grp[g1]
            O.matrix_data[cells + g0 * nb1 + g1] = S.dB[src]
            O.matrix_cnt[cells + g0 * nb1 + g1] = S.dC[src]
    return DONE


@njit(cache=True)
def settle_children(cur, i, O, S, G):
    """The buckets of every child of node ``i`` (``S.k_fin``, ``S.c_nb``) and their anchor matrices
    (``S.c_mat``; new ones written to ``O`` past ``G[G_MATRICES]`` and ``G[G_CELLS]``, not yet
    counted). Returns a status code; ``G[G_NEED]`` is the size needed."""
    _order_pres(S)
    chance = S.info[I_KIND] == CHANCE
    b_lo, nb0p = cur.blo[i], cur.nb0[i]
    mid, cells = G[G_MATRICES], G[G_CELLS]
    rows = np.empty(0, np.int64)
    for c in range(S.info[I_NCH]):
        if not chance and _rectangle(cur, i, O, S, c):
            S.c_mat[c] = cur.amat[i]
            for q in range(2):
                n = S.c_npre[c, q]
                rows = np.empty(n, np.int64)
                for a in range(n):
                    k = S.plist[S.c_plo[c, q] + a]
                    rows[a] = cur.b_row[b_lo + (0 if q == 0 else nb0p) + S.k_par[k]]
                S.c_nb[c, q] = _group(S, G, c, q, rows, 0, False)
            continue
        n0, n1 = S.c_npre[c, 0], S.c_npre[c, 1]
        if n0 * n1 > S.dB.shape[0]:
            G[G_NEED] = n0 * n1
            return NEED_DENSE
        _dense(S, c)
        S.c_nb[c, 0] = _group(S, G, c, 0, rows, n1, True)
        S.c_nb[c, 1] = _group(S, G, c, 1, rows, n0, True)
        st = _store(O, S, G, c, S.c_nb[c, 0], S.c_nb[c, 1], mid, cells)
        if st != DONE:
            return st
        S.c_mat[c] = mid
        cells += S.c_nb[c, 0] * S.c_nb[c, 1]
        mid += 1
    S.info[I_NEWMAT] = mid - G[G_MATRICES]
    S.info[I_NEWCELL] = cells - G[G_CELLS]
    return DONE
