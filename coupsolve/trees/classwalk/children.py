"""The children of a node of the class walk (:mod:`coupsolve.trees.classwalk.walk`): their buckets and anchors.

After :func:`coupsolve.trees.classwalk.walk.step_pairs`, each child has *pre-buckets* per player (a parent
bucket with the step's own tokens, action slot and new class). :func:`settle_children` turns them into
the child's buckets:

- a child of a decision node whose pairs of pre-buckets with histories are exactly the results that
  reached it *inherits* its parent's anchor: a bucket is a (row of the anchor, class), and the weights of
  its pairs are the anchor's cells, unchanged by a decision;
- any other child (every child of a chance node, a decision child whose public outcome depended on both
  players) is an *anchor*: the results reaching it are summed per pair of pre-buckets (chance weight
  and history count; only the pairs with histories, :func:`_sparse`), pre-buckets with the same class
  and the same row are merged into one bucket, and the merged matrix is stored (rows player 0's
  buckets, columns player 1's).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from solvers import CHANCE
from solvers.pieces.split import pack_matrices

from coupsolve.engine.hashing import HASH_MUL, mix
from coupsolve.trees.classwalk.walk import (DONE, I_KIND, I_NCH, I_NEWCELL, I_NEWDENSE, I_NEWMAT, I_NEWROWS, I_NPRE,
                        I_NRES, NEED_CELL, NEED_MAT, NEED_ROWS, spread_cell,
                        spread_row)
from coupsolve.trees.classwalk.state import NCL
from coupsolve.trees.classwalk.table import EMPTY, table_slot

SEED_GROUP = np.uint64(0x3C6EF372FE94F82B)
# G counters shared with the emit step and the driver
(G_NODES, G_ENTRIES, G_INFOSETS, G_ACTIONS, G_MATRICES, G_CELLS, G_STAMP, G_NEED, G_DECHIST,
 G_PAIRS, G_TERMPAIRS, G_STEPPED, G_ERRNODE, G_CHPAIRS, G_ROWS, G_DENSE) = range(16)
# G_CELLS: the anchors' cells (pairs with histories), G_ROWS: their row pointers (both live ones while
# counting), G_DENSE: every anchor's rows x columns (the tree's matrices hold them dense)
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
    """Whether the results reaching child ``c`` are every pair of its pre-buckets with histories
    (:func:`coupsolve.trees.classwalk.walk.step_pairs` has sized the row map for the node's anchor)."""
    b_lo, nb0, m = cur.blo[i], cur.nb0[i], cur.amat[i]
    pairs = 0
    for a in range(S.c_npre[c, 0]):
        row = spread_row(O, S, m, cur.b_row[b_lo + S.k_par[S.plist[S.c_plo[c, 0] + a]]])
        for b in range(S.c_npre[c, 1]):
            rb = cur.b_row[b_lo + nb0 + S.k_par[S.plist[S.c_plo[c, 1] + b]]]
            if spread_cell(S, row, rb) >= 0:
                pairs += 1
    return pairs == S.c_nres[c]


class Sparse(NamedTuple):
    """The results reaching one anchor child, summed per pair of pre-buckets (never a dense
    pre-buckets x pre-buckets matrix: at turn limit 4 one such matrix held 870 million cells)."""

    a: np.ndarray  # int64 (U,) player 0's pre-bucket (its position at the child), the pairs by (a, b)
    b: np.ndarray  # int64 (U,) player 1's
    w: np.ndarray  # int64 (U,) the summed chance weight's bits (float64 viewed as int64)
    n: np.ndarray  # int64 (U,) the summed history counts
    rows: np.ndarray  # int64 (n0 + 1,) the pairs of row a: rows[a] .. rows[a + 1] - 1
    cols: np.ndarray  # int64 (n1 + 1,) the same for columns, over ``by_col``
    by_col: np.ndarray  # int64 (U,) the pairs ordered by (b, a)


@njit(cache=True)
def _sparse(S, c, results):
    """Sum the results ``results`` (those reaching child ``c``, in the order they were made) per pair
    of pre-buckets, in that order within a pair (the same sums as summing them one by one)."""
    n0, n1 = S.c_npre[c, 0], S.c_npre[c, 1]
    m = results.shape[0]
    key = np.empty(m, np.int64)
    for t in range(m):
        r = results[t]
        key[t] = S.k_idx[S.r_k[r, 0]] * n1 + S.k_idx[S.r_k[r, 1]]
    order = np.argsort(key, kind="mergesort")
    pa, pb = np.empty(m, np.int64), np.empty(m, np.int64)
    w, n = np.empty(m, np.float64), np.empty(m, np.int64)
    u = -1
    for t in range(m):
        kk, r = key[order[t]], results[order[t]]
        if u < 0 or pa[u] * n1 + pb[u] != kk:
            u += 1
            pa[u], pb[u], w[u], n[u] = kk // n1, kk % n1, 0.0, 0
        w[u] += S.r_w[r]
        n[u] += S.r_n[r]
    u += 1
    rows, cols = np.zeros(n0 + 1, np.int64), np.zeros(n1 + 1, np.int64)
    for t in range(u):
        rows[pa[t] + 1] += 1
        cols[pb[t] + 1] += 1
    for x in range(n0):
        rows[x + 1] += rows[x]
    for x in range(n1):
        cols[x + 1] += cols[x]
    by_col = np.argsort(pb[:u] * n0 + pa[:u], kind="mergesort")
    return Sparse(pa[:u], pb[:u], w[:u].view(np.int64), n[:u], rows, cols, by_col)


@njit(cache=True)
def _group(S, G, c, q, row_key, sp):
    """Merge player ``q``'s pre-buckets at child ``c`` with the same class and the same key:
    ``row_key[a]`` (inheriting: the parent's anchor row) or, given the summed results ``sp``
    (:func:`_sparse`), row (``q == 0``) or column ``a`` of the child's weights and history counts (its
    pairs with histories, in order). Writes ``S.k_fin`` and ``S.grp``; returns the number of
    buckets."""
    G[G_STAMP] += 1
    stamp = G[G_STAMP]
    mask = S.t_k1.shape[0] - 1
    n = S.c_npre[c, q]
    lo = S.c_plo[c, q]
    nb = 0
    for a in range(n):
        k = S.plist[lo + a]
        h1 = SEED_GROUP
        h2 = SEED_GROUP ^ np.uint64(q + 1)
        for f in range(NCL):
            h1, h2 = mix(h1, S.k_cls[k, f], HASH_MUL[0]), mix(h2, S.k_cls[k, f], HASH_MUL[1])
        if sp is None:
            h1, h2 = mix(h1, row_key[a], HASH_MUL[0]), mix(h2, row_key[a], HASH_MUL[1])
        else:
            ptr = sp.rows if q == 0 else sp.cols
            for x in range(ptr[a], ptr[a + 1]):
                t = x if q == 0 else sp.by_col[x]
                other = sp.b[t] if q == 0 else sp.a[t]
                h1 = mix(mix(h1, other, HASH_MUL[0]), sp.w[t], HASH_MUL[0])
                h2 = mix(mix(h2, sp.n[t], HASH_MUL[1]), sp.w[t], HASH_MUL[1])
        sl = table_slot(S.t_k1, S.t_k2, S.t_val, S.t_stamp, stamp, h1, h2, mask)
        if S.t_val[sl] == EMPTY:
            S.t_val[sl] = nb
            S.grp[nb] = a
            nb += 1
        S.k_fin[k] = S.t_val[sl]
    return nb


@njit(cache=True)
def _store(O, S, G, c, nb0, nb1, at, sp):
    """Write child ``c``'s merged matrix (``nb0`` x ``nb1`` buckets) as matrix ``at[0]``, its cells
    from ``at[1]``, its row pointers from ``at[2]``, keeping only the pairs with histories: a status
    code. Pre-buckets merged into one bucket have the same row (column), so pairs of the same buckets
    hold the same cell."""
    mid, cells, rows = at[0], at[1], at[2]
    # every per-matrix array is checked: a part's arrays start from its packed anchors, where
    # matrix_cols is one shorter than matrix_start and matrix_rowp, and each growth doubles the gap
    if mid + 1 >= O.matrix_start.shape[0] or mid + 1 >= O.matrix_rowp.shape[0] or \
            mid >= O.matrix_cols.shape[0]:
        G[G_NEED] = mid + 2
        return NEED_MAT
    if rows + nb0 + 1 > O.row_ptr.shape[0]:
        G[G_NEED] = rows + nb0 + 1
        return NEED_ROWS
    key = np.empty(sp.a.shape[0], np.int64)
    for t in range(sp.a.shape[0]):
        g0 = S.k_fin[S.plist[S.c_plo[c, 0] + sp.a[t]]]
        key[t] = g0 * nb1 + S.k_fin[S.plist[S.c_plo[c, 1] + sp.b[t]]]
    order = np.argsort(key)
    nnz = 0
    for t in range(key.shape[0]):
        if t == 0 or key[order[t]] != key[order[t - 1]]:
            nnz += 1
    if cells + nnz > O.matrix_data.shape[0]:
        G[G_NEED] = cells + nnz
        return NEED_CELL
    O.matrix_start[mid], O.matrix_start[mid + 1] = cells, cells + nnz
    O.matrix_rowp[mid], O.matrix_rowp[mid + 1] = rows, rows + nb0 + 1
    O.matrix_cols[mid] = nb1
    O.row_ptr[rows:rows + nb0 + 1] = 0
    w = sp.w.view(np.float64)
    u = cells - 1
    for t in range(key.shape[0]):
        k = key[order[t]]
        if t == 0 or k != key[order[t - 1]]:
            u += 1
            O.cell_col[u] = k % nb1
            O.matrix_data[u], O.matrix_cnt[u] = w[order[t]], sp.n[order[t]]
            O.row_ptr[rows + 1 + k // nb1] += 1
    for r in range(nb0):
        O.row_ptr[rows + r + 1] += O.row_ptr[rows + r]
    at[0], at[1], at[2], at[3] = mid + 1, cells + nnz, rows + nb0 + 1, at[3] + nb0 * nb1
    return DONE


@njit(cache=True)
def _by_child(S):
    """The node's results grouped by child, each child's in the order they were made: ``(order,
    start)``, child ``c``'s are ``order[start[c] : start[c + 1]]``."""
    nch, nres = S.info[I_NCH], S.info[I_NRES]
    start = np.zeros(nch + 1, np.int64)
    for r in range(nres):
        start[S.r_c[r] + 1] += 1
    for c in range(nch):
        start[c + 1] += start[c]
    fill = start[:nch].copy()
    order = np.empty(nres, np.int64)
    for r in range(nres):
        order[fill[S.r_c[r]]] = r
        fill[S.r_c[r]] += 1
    return order, start


@njit(cache=True)
def settle_children(cur, i, O, S, G):
    """The buckets of every child of node ``i`` (``S.k_fin``, ``S.c_nb``) and their anchor matrices
    (``S.c_mat``; new ones written to ``O`` past ``G[G_MATRICES]`` and ``G[G_CELLS]``, not yet
    counted). Returns a status code; ``G[G_NEED]`` is the size needed."""
    _order_pres(S)
    chance = S.info[I_KIND] == CHANCE
    b_lo, nb0p = cur.blo[i], cur.nb0[i]
    at = np.array([G[G_MATRICES], G[G_CELLS], G[G_ROWS], 0], np.int64)  # where the next matrix goes
    rows = np.empty(0, np.int64)
    order, start = np.empty(0, np.int64), np.empty(0, np.int64)
    for c in range(S.info[I_NCH]):
        if not chance and _rectangle(cur, i, O, S, c):
            S.c_mat[c] = cur.amat[i]
            for q in range(2):
                n = S.c_npre[c, q]
                rows = np.empty(n, np.int64)
                for a in range(n):
                    k = S.plist[S.c_plo[c, q] + a]
                    rows[a] = cur.b_row[b_lo + (0 if q == 0 else nb0p) + S.k_par[k]]
                S.c_nb[c, q] = _group(S, G, c, q, rows, None)
            continue
        if order.shape[0] == 0:
            order, start = _by_child(S)
        sp = _sparse(S, c, order[start[c]:start[c + 1]])
        for q in range(2):  # q a run-time value, as above: no copy of _group compiled per literal seat
            S.c_nb[c, q] = _group(S, G, c, q, rows, sp)
        S.c_mat[c] = at[0]
        st = _store(O, S, G, c, S.c_nb[c, 0], S.c_nb[c, 1], at, sp)
        if st != DONE:
            return st
    S.info[I_NEWMAT], S.info[I_NEWCELL] = at[0] - G[G_MATRICES], at[1] - G[G_CELLS]
    S.info[I_NEWROWS], S.info[I_NEWDENSE] = at[2] - G[G_ROWS], at[3]
    return DONE


ANCHOR_ARRAYS = ("matrix_start", "matrix_cols", "matrix_rowp", "matrix_data", "matrix_cnt",
                  "cell_col", "row_ptr")


def packed_anchors(O, used):
    """The anchor matrices ``used`` (sorted ids) of ``O``, renumbered from 0: their arrays (copies,
    by the names of :data:`ANCHOR_ARRAYS`)."""
    start, cells = pack_matrices(O.matrix_start, used)
    rowp, rows = pack_matrices(O.matrix_rowp, used)
    return dict(matrix_start=start, matrix_cols=O.matrix_cols[used], matrix_rowp=rowp,
                matrix_data=O.matrix_data[cells], matrix_cnt=O.matrix_cnt[cells],
                cell_col=O.cell_col[cells], row_ptr=O.row_ptr[rows])


def keep_read_matrices(O, G, amat):
    """Counting: keep only the anchor matrices the next level reads (``amat``, renumbered in place),
    moved to the front; the walk holds a level's matrices, not the tree's. Returns the numbers of
    matrices, cells and row pointers dropped."""
    used = np.unique(amat)
    packed = packed_anchors(O, used)
    for k, a in packed.items():
        getattr(O, k)[:a.shape[0]] = a
    amat[:] = np.searchsorted(used, amat)
    n, c, r = used.shape[0], packed["matrix_data"].shape[0], packed["row_ptr"].shape[0]
    dropped = np.array([G[G_MATRICES] - n, G[G_CELLS] - c, G[G_ROWS] - r], np.int64)
    G[G_MATRICES], G[G_CELLS], G[G_ROWS] = n, c, r
    return dropped


def add_gone(G, gone):
    G[G_MATRICES] += gone[0]
    G[G_CELLS] += gone[1]
    G[G_ROWS] += gone[2]
