"""A public node's entries and its terminal's sparse products: the pieces of :mod:`solvers._public_kernel`
that read one node (the layout is :mod:`solvers.public`'s)."""

import numba
import numpy as np

__all__ = ["scratch"]


@numba.njit(cache=True, inline="always")
def _side(T, s, p):
    """First entry and count of player ``p``'s entries at node ``s``."""
    b = T.entry_start[s]
    n0 = T.num_entries0[s]
    if p == 0:
        return b, n0
    return b + n0, T.entry_start[s + 1] - b - n0


@numba.njit(cache=True)
def _terminal(T, s, reach, v, p, X):
    """Values of player ``p``'s entries (or both players', ``BOTH_PLAYERS``) at terminal ``s``.

    The matrix is sparse by rows (:mod:`solvers.public`). ``X`` is the thread's row of
    :func:`scratch` (zero, left zero): its first part, one per column, holds player 1's reach summed
    per column for player 0's rows, or player 0's rows spread by their reach for player 1's columns;
    the part after it, one per row, holds each row's product (player 0) or player 0's reach summed
    per row (player 1). Several of player 0's entries often share a row (entries below the anchor
    that differ only in what does not change the chance weights): each row is read once per
    terminal. Entries with no reach add nothing.
    Called, not inlined: inlined into each player's copy of both passes it cost 50 s of compilation.
    """
    m = T.term_matrix[s]
    base = T.matrix_start[m]
    rp = T.matrix_rowp[m]
    scale = T.term_scale[s]
    b0, n0 = _side(T, s, 0)
    b1, n1 = _side(T, s, 1)
    data, cc, ptr, row = T.matrix_data, T.cell_col, T.row_ptr, T.entry_ref
    col = X[:X.shape[0] - 1]
    at = int(X[X.shape[0] - 1])  # where the rows' part starts (scratch)
    if p != 1:
        reached = False
        for j in range(b1, b1 + n1):
            col[row[j]] += reach[j]
            reached |= reach[j] != 0.0
        if not reached:  # no reach of player 1's: every product is zero (as the history kernel
            for i in range(b0, b0 + n0):  # passes over histories with no reach)
                v[i] = scale * 0.0
        else:
            for i in range(b0, b0 + n0):  # NaN: the row's product is still to be taken
                col[at + row[i]] = np.nan
            for i in range(b0, b0 + n0):
                total = col[at + row[i]]
                if total != total:
                    r = rp + row[i]
                    total = 0.0
                    for k in range(base + ptr[r], base + ptr[r + 1]):
                        total += data[k] * col[cc[k]]
                    col[at + row[i]] = total
                v[i] = scale * total
            for i in range(b0, b0 + n0):
                col[at + row[i]] = 0.0
        for j in range(b1, b1 + n1):
            col[row[j]] = 0.0
    if p != 0:
        reached = False
        for i in range(b0, b0 + n0):
            x = reach[i]
            if x != 0.0:
                reached = True
                col[at + row[i]] += x
        for i in range(b0, b0 + n0 if reached else b0):
            x = col[at + row[i]]
            if x != 0.0:  # the row's first entry spreads the reach of all of its entries
                col[at + row[i]] = 0.0
                r = rp + row[i]
                for k in range(base + ptr[r], base + ptr[r + 1]):
                    col[cc[k]] += data[k] * x
        for j in range(b1, b1 + n1):
            v[j] = -scale * col[row[j]]
        # Rows may reach columns of entries that are not at this terminal (a matrix shared by
        # several terminals): clearing the matrix's columns costs less than walking the rows again.
        for j in range(T.matrix_cols[m] if reached else 0):
            col[j] = 0.0


def scratch(T, threads):
    """The terminals' scratch for passes on ``threads`` threads (:func:`_terminal`): one row per
    thread (float64), zero but for its last element: as many columns as the widest matrix of ``T``,
    then as many as its most rows, then where those rows start (the last element). Passes split each
    level into ``threads`` contiguous runs of nodes, one per row."""
    cols = int(T.matrix_cols.max()) if T.matrix_cols.shape[0] else 0
    rows = int(np.diff(T.matrix_rowp).max()) - 1 if T.matrix_cols.shape[0] else 0
    X = np.zeros((max(1, int(threads)), cols + max(rows, 0) + 1))
    X[:, -1] = cols
    return X
