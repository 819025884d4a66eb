"""The sparse matrices of a :class:`~solvers.trees.publictree.PublicTree`: conversion from and to dense ones,
their bytes, and the checks of their arrays (layout in :mod:`solvers.trees.publictree`)."""

from __future__ import annotations

import numba
import numpy as np

from solvers.kinds import DECISION, TERMINAL

__all__ = ["sparse_matrices", "sparse_bytes", "dense_bytes", "dense_matrix", "check_matrices"]


def sparse_matrices(matrix_start, matrix_cols, matrix_data):
    """The sparse matrix arrays of :class:`PublicTree` from dense ones (matrix ``m`` row-major at
    ``matrix_data[matrix_start[m] : matrix_start[m + 1]]``, ``matrix_cols[m]`` columns), keeping the
    non-zero cells: a dict of ``matrix_start``, ``matrix_cols``, ``matrix_rowp``, ``row_ptr``,
    ``cell_col`` and ``matrix_data``. Allocates only the result (:func:`sparse_bytes` of it)."""
    start = np.ascontiguousarray(matrix_start, np.int64)
    cols = np.ascontiguousarray(matrix_cols, np.int32)
    data = np.ascontiguousarray(matrix_data, np.float64)
    size = np.diff(start)
    if np.any(size % np.maximum(cols, 1) != 0) or np.any(size[cols == 0] != 0) or \
            start[-1] != data.shape[0]:
        raise ValueError("sparse_matrices: each matrix must hold rows x matrix_cols cells")
    nnz, rows = _sparse_count(start, cols, data)
    out = dict(matrix_start=np.empty(cols.shape[0] + 1, np.int64), matrix_cols=cols.copy(),
               matrix_rowp=np.empty(cols.shape[0] + 1, np.int64),
               row_ptr=np.empty(rows + cols.shape[0], np.int64), cell_col=np.empty(nnz, np.int32),
               matrix_data=np.empty(nnz, np.float64))
    _sparse_fill(start, cols, data, out["matrix_start"], out["matrix_rowp"], out["row_ptr"],
                 out["cell_col"], out["matrix_data"])
    return out


def sparse_bytes(num_cells, num_rows, num_matrices):
    """Bytes of sparse matrices of these sizes (cells stored, rows): 12 per cell, 8 per row pointer
    (rows + matrices) and 20 per matrix."""
    return 12 * num_cells + 8 * (num_rows + num_matrices) + 20 * num_matrices


@numba.njit(cache=True)
def _sparse_count(start, cols, data):
    nnz, rows = 0, 0
    for m in range(cols.shape[0]):
        if cols[m] > 0:
            rows += (start[m + 1] - start[m]) // cols[m]
    for k in range(data.shape[0]):
        nnz += data[k] != 0.0
    return nnz, rows


@numba.njit(cache=True)
def _sparse_fill(start, cols, data, new_start, rowp, row_ptr, cell_col, out):
    c, k = 0, 0
    new_start[0], rowp[0] = 0, 0
    for m in range(cols.shape[0]):
        w = cols[m]
        nr = (start[m + 1] - start[m]) // w if w > 0 else 0
        row_ptr[k] = 0
        for r in range(nr):
            for j in range(w):
                x = data[start[m] + r * w + j]
                if x != 0.0:
                    cell_col[c], out[c] = j, x
                    c += 1
            row_ptr[k + r + 1] = c - new_start[m]
        k += nr + 1
        new_start[m + 1], rowp[m + 1] = c, k


def dense_bytes(num_cells, num_matrices):
    """Bytes of dense matrices (as the history-stepping builder fills them): 8 per cell and 12 per
    matrix."""
    return 8 * num_cells + 12 * num_matrices


def dense_matrix(f, m):
    """Matrix ``m`` of the arrays ``f`` (a :class:`~solvers.trees.publictree.PublicFlat`) as a dense
    ``rows x columns`` array (zeros where no cell is stored)."""
    rp = f.row_ptr[f.matrix_rowp[m]:f.matrix_rowp[m + 1]]
    out = np.zeros((rp.shape[0] - 1, int(f.matrix_cols[m])))
    cells = slice(f.matrix_start[m], f.matrix_start[m + 1])
    out[np.repeat(np.arange(rp.shape[0] - 1), np.diff(rp)), f.cell_col[cells]] = f.matrix_data[cells]
    return out


_BAD = {1: "a matrix's row pointers must not decrease",
        2: "a cell's column is outside its matrix",
        3: "every terminal needs a matrix in 0 .. num_matrices-1",
        4: "a terminal's entry_ref is outside its matrix's rows (player 0) or columns (player 1)",
        5: "an entry_ref at a decision node is neither -1 nor an information set"}


def check_matrices(f):
    """The sparse matrices' arrays agree with each other and with the terminals that read them, and
    the decision nodes' ``entry_ref`` are information sets or -1 (O(size), allocating O(matrices));
    ``ValueError`` naming the first fault."""
    m, c = f.matrix_cols.shape[0], f.matrix_data.shape[0]
    if f.matrix_start.shape[0] != m + 1 or f.matrix_start[0] != 0 or f.matrix_start[-1] != c \
            or np.any(np.diff(f.matrix_start) < 0) or f.cell_col.shape[0] != c:
        raise ValueError("PublicTree: matrix_start must have num_matrices + 1 entries increasing "
                         "from 0 to the size of matrix_data, and cell_col one per cell")
    rp = f.matrix_rowp
    if rp.shape[0] != m + 1 or rp[0] != 0 or rp[-1] != f.row_ptr.shape[0] or \
            np.any(np.diff(rp) < 1) or np.any(f.matrix_cols < 0):
        raise ValueError("PublicTree: matrix_rowp must have num_matrices + 1 entries from 0 to the "
                         "number of row pointers, at least one per matrix")
    first, last = f.row_ptr[rp[:-1]], f.row_ptr[rp[1:] - 1]
    if np.any(first != 0) or np.any(last != np.diff(f.matrix_start)):
        raise ValueError("PublicTree: each matrix's row pointers must go from 0 to its number of "
                         "cells")
    bad = _fault(f)
    if bad:
        raise ValueError("PublicTree: " + _BAD[bad])


@numba.njit(cache=True)
def _fault(f):
    """0, or the first fault of :data:`_BAD` found: in the cells, then at the nodes."""
    for m in range(f.matrix_cols.shape[0]):
        for k in range(f.matrix_rowp[m], f.matrix_rowp[m + 1] - 1):
            if f.row_ptr[k + 1] < f.row_ptr[k]:
                return 1
        for c in range(f.matrix_start[m], f.matrix_start[m + 1]):
            if f.cell_col[c] < 0 or f.cell_col[c] >= f.matrix_cols[m]:
                return 2
    ni = f.infoset_player.shape[0]
    for s in range(f.node_kind.shape[0]):
        if f.node_kind[s] == DECISION:
            for e in range(f.entry_start[s], f.entry_start[s + 1]):
                if f.entry_ref[e] < -1 or f.entry_ref[e] >= ni:
                    return 5
        if f.node_kind[s] != TERMINAL:
            continue
        m = f.term_matrix[s]
        if m < 0 or m >= f.matrix_cols.shape[0]:
            return 3
        rows = f.matrix_rowp[m + 1] - f.matrix_rowp[m] - 1
        b, n0 = f.entry_start[s], f.num_entries0[s]
        for e in range(b, f.entry_start[s + 1]):
            r = f.entry_ref[e]
            if r < 0 or r >= (rows if e < b + n0 else f.matrix_cols[m]):
                return 4
    return 0
