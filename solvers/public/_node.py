"""A public node's entries and its terminal's sparse products: the pieces of :mod:`solvers.public._kernel`
that read one node (the layout is :mod:`solvers.trees.publictree`'s)."""

import numba
import numpy as np

from solvers.atomics import atomic_add
from solvers.kinds import BOTH_PLAYERS, TERMINAL

#: A node's codes (:mod:`solvers.public._forward`).
LIVE, SILENT, BELOW = 0, 1, 2
#: A level whose work is fewer entries than this runs on the calling thread inside the parallel
#: drivers, with no parallel region: the region's fork and join cost more than the threads would
#: save on it (docs/research/public-speed.md, ninth session). The work of a level is its own entries
#: for the backward and values passes, its children's for the forward pass. Which thread runs a
#: node changes nothing in what it computes (:func:`_small`).
LEVEL_MIN_ENTRIES = 1 << 14
#: A level run in parallel is cut into runs of about this many entries (at most :data:`MAX_RUNS`),
#: which the threads take one at a time, each the next when done with its last (:func:`_claim`): a
#: share fixed in advance by entries left threads idle where entries cost unevenly (terminals that
#: pay nothing, nodes the opponent does not reach: docs/research/public-speed.md, ninth session).
RUN_ENTRIES = 1 << 12
MAX_RUNS = 512

__all__ = ["LIVE", "SILENT", "BELOW", "LEVEL_MIN_ENTRIES", "RUN_ENTRIES", "MAX_RUNS", "scratch"]


@numba.njit(cache=True, inline="always")
def _void(T, s):
    """Whether node ``s`` is a terminal that pays nothing (``term_scale`` 0: for instance a draw
    at a turn limit that pays nothing). Every value there is zero whatever the reach, so the solving
    passes skip such a node: the forward pass writes no reach or code there (when it keeps codes),
    the terminals compute nothing, and the gathering does not read it (adding its zeros changed
    nothing). In a game whose draws pay nothing they can hold a third or more of the entries
    (docs/research/public-speed.md)."""
    return T.node_kind[s] == TERMINAL and T.term_scale[s] == 0.0


@numba.njit(cache=True, inline="always")
def _ix(i):
    """Index ``i`` (never negative) as unsigned: numba then drops its handling of negative indices,
    three more instructions per array access, which the hot loops are bound by (the forward pass
    measured markedly faster with these indices: docs/research/design-measurements.md)."""
    return np.uint64(i)


@numba.njit(cache=True, inline="always")
def _side(T, s, p):
    """First entry and count of player ``p``'s entries at node ``s``."""
    b = T.entry_start[s]
    n0 = T.num_entries0[s]
    if p == 0:
        return b, n0
    return b + n0, T.entry_start[s + 1] - b - n0


@numba.njit(cache=True, inline="always")
def _small(T, d):
    """Whether level ``d`` holds fewer than :data:`LEVEL_MIN_ENTRIES` entries (a level past the last
    holds none). Its nodes are then run by the calling thread in one run: a node reads and writes
    only its own entries, information sets and children's entries, so the split of a level between
    threads changes no value."""
    ls = T.level_start
    if d >= ls.shape[0] - 1:
        return True
    return T.entry_start[ls[d + 1]] - T.entry_start[ls[d]] < LEVEL_MIN_ENTRIES


@numba.njit(cache=True, inline="always")
def _runs(T, a, b):
    """How many runs nodes ``a .. b-1`` are cut into (:data:`RUN_ENTRIES`)."""
    n = (T.entry_start[b] - T.entry_start[a]) // RUN_ENTRIES
    return min(MAX_RUNS, max(1, n))


@numba.njit(cache=True, inline="always")
def _counters(T):
    """Run counters for :func:`_claim`, one per level, zero."""
    return np.zeros(T.level_start.shape[0], np.int64)


@numba.njit(cache=True, inline="always")
def _claim(claim, d):
    """The next run of level ``d`` for the calling thread: ``claim[d]`` counts the runs taken (zero
    at the start of a pass), atomically, so each run is taken by exactly one thread."""
    return atomic_add(claim, d, 1)


@numba.njit(cache=True, inline="always")
def _cut(T, a, b, t, nt):
    """Where run ``t`` of ``nt`` of nodes ``a .. b-1`` starts: the runs hold about as many entries each
    (equal numbers of nodes left one thread with most of the work where a level's nodes differ)."""
    if t == 0 or t == nt:
        return a if t == 0 else b
    es = T.entry_start
    return a + np.searchsorted(es[a:b], es[a] + (es[b] - es[a]) * t // nt)


@numba.njit(cache=True, inline="always")
def _zero_side(T, s, p, v, w, code):
    """Player ``p``'s values at node ``s`` where the opponent has no reach (``code`` not
    :data:`LIVE`): zero, written where the parent reads them (:data:`SILENT`), not below a silent
    parent (:data:`BELOW`), and PCFR+'s predictions ``w`` (if any) alike; ``p``'s side, ``(b, n)``."""
    b, n = _side(T, s, p)
    for i in range(b, b + n if code == SILENT else b):
        v[i] = 0.0
        if w.shape[0] > 0:
            w[i] = 0.0
    return b, n


@numba.njit(cache=True, inline="always")
def _terminals(T, lo, hi, reach, v, w, live, p, col):
    """Values of player ``p``'s entries (or both players', ``BOTH_PLAYERS``) at the terminals among
    nodes ``lo .. hi-1`` (of one level), in one call (:func:`_terminals_body`): one compiled function
    per player, ``p`` a constant in it. With ``p`` an argument of one compiled function the
    terminals took longer, and a call per terminal longer than one per run of nodes
    (docs/research/design-measurements.md).
    Compiled without reference counting, as :func:`solvers.public._kernel._backward_run`."""
    if p == 0:
        _terminals0(T, lo, hi, reach, v, w, live, col)
    elif p == 1:
        _terminals1(T, lo, hi, reach, v, w, live, col)
    else:
        _terminals2(T, lo, hi, reach, v, w, live, col)


@numba.njit(cache=True, _nrt=False)
def _terminals0(T, lo, hi, reach, v, w, live, col):
    _terminals_body(T, lo, hi, reach, v, w, live, 0, col)


@numba.njit(cache=True, _nrt=False)
def _terminals1(T, lo, hi, reach, v, w, live, col):
    _terminals_body(T, lo, hi, reach, v, w, live, 1, col)


@numba.njit(cache=True, _nrt=False)
def _terminals2(T, lo, hi, reach, v, w, live, col):
    _terminals_body(T, lo, hi, reach, v, w, live, BOTH_PLAYERS, col)


@numba.njit(cache=True, inline="always")
def _terminals_body(T, lo, hi, reach, v, w, live, p, col):
    """:func:`_terminals` for ``p`` 0, 1 or 2 (both players). ``live`` the nodes' codes or empty
    (every terminal computed); ``w`` PCFR+'s predictions (a terminal's are its values) or empty.
    Where the opponent has no reach (code not :data:`LIVE`), ``p``'s values are zero: written where
    the parent reads them (:data:`SILENT`), not below a silent parent (:data:`BELOW`). A terminal
    that pays nothing (:func:`_void`) is not computed: its values are written (zero) only without
    codes (``live`` empty: the passes that evaluate), as no solving pass reads them."""
    predictive = w.shape[0] > 0
    for s in range(lo, hi):
        if T.node_kind[s] != TERMINAL:
            continue
        if _void(T, s):  # zeros, written only for the passes that evaluate (their callers may
            if live.shape[0] == 0:  # read every entry's value)
                for i in range(T.entry_start[s], T.entry_start[s + 1]):
                    v[_ix(i)] = 0.0
            continue
        if p != BOTH_PLAYERS and live.shape[0] > 0 and live[2 * s + 1 - p] != LIVE:
            _zero_side(T, s, p, v, w, live[2 * s + 1 - p])
            continue
        _terminal(T, s, reach, v, p, col)
        if predictive:
            for i in range(T.entry_start[s], T.entry_start[s + 1]):
                w[i] = v[i]


@numba.njit(cache=True, inline="always")
def _terminal(T, s, reach, v, p, col):
    """Values of player ``p``'s entries (or both players', ``BOTH_PLAYERS``) at terminal ``s``.

    The matrix is sparse by rows (:mod:`solvers.trees.publictree`); ``col`` (float64, at least the matrix's
    columns, zero) is scratch, left zero: player 1's reach summed per column for player 0's rows, or
    player 0's rows spread by their reach for player 1's columns. Entries with no reach add nothing.
    Consecutive entries of player 0 often share a row (entries below the anchor that differ only in
    what does not change the chance weights: in the large trees measured, most of the entries at
    terminals): a run of them reads the row once, its product reused (player 0) or their reach
    summed before it is spread (player 1).
    Inlined only into :func:`_terminals`: inlined into each player's copy of both passes it made the
    first compilation much longer (docs/research/design-measurements.md).
    """
    m = T.term_matrix[s]
    base = T.matrix_start[m]
    rp = T.matrix_rowp[m]
    scale = T.term_scale[s]
    b0, n0 = _side(T, s, 0)
    b1, n1 = _side(T, s, 1)
    data, cc, ptr, row = T.matrix_data, T.cell_col, T.row_ptr, T.entry_ref
    if p != 1:
        reached = False
        for j in range(b1, b1 + n1):
            x = reach[_ix(j)]
            col[_ix(row[_ix(j)])] += x
            reached |= x != 0.0
        if not reached:  # no reach of player 1's: every product is zero (as the history kernel
            for i in range(b0, b0 + n0):  # passes over histories with no reach)
                v[_ix(i)] = scale * 0.0
        last, total = -1, 0.0
        for i in range(b0, b0 + n0 if reached else b0):
            ri = row[_ix(i)]
            if ri != last:
                last = ri
                r = _ix(rp + ri)
                total = 0.0
                for k in range(base + ptr[r], base + ptr[_ix(rp + ri + 1)]):
                    total += data[_ix(k)] * col[_ix(cc[_ix(k)])]
            v[_ix(i)] = scale * total
        for j in range(b1, b1 + n1):
            col[_ix(row[_ix(j)])] = 0.0
    if p != 0:
        reached = _spread(T, s, reach, col)
        for j in range(b1, b1 + n1):
            v[_ix(j)] = -scale * col[_ix(row[_ix(j)])]
        # Rows may reach columns of entries that are not at this terminal (a matrix shared by
        # several terminals): clearing the matrix's columns costs less than walking the rows again.
        for j in range(T.matrix_cols[m] if reached else 0):
            col[_ix(j)] = 0.0


@numba.njit(cache=True, inline="always")
def _spread(T, s, reach, col):
    """Player 0's rows at terminal ``s`` spread into ``col`` by their reach (a run of entries sharing
    a row spreads it once, their reach summed); whether any had reach."""
    m = T.term_matrix[s]
    base = T.matrix_start[m]
    rp = T.matrix_rowp[m]
    b0, n0 = _side(T, s, 0)
    data, cc, ptr, row = T.matrix_data, T.cell_col, T.row_ptr, T.entry_ref
    reached = False
    x = 0.0
    for i in range(b0, b0 + n0):
        x += reach[_ix(i)]
        ri = row[_ix(i)]
        if i + 1 < b0 + n0 and row[_ix(i + 1)] == ri:
            continue  # the run's reach is spread at its last entry
        if x != 0.0:
            reached = True
            for k in range(base + ptr[_ix(rp + ri)], base + ptr[_ix(rp + ri + 1)]):
                col[_ix(cc[_ix(k)])] += data[_ix(k)] * x
        x = 0.0
    return reached


def scratch(T, threads):
    """The terminals' scratch for passes on ``threads`` threads (:func:`_terminal`): one zero vector
    per thread (float64), as long as the widest matrix of ``T``: the backward and values passes'
    parallel loops have one iteration per row, each taking runs of a level until none is left."""
    width = int(T.matrix_cols.max()) if T.matrix_cols.shape[0] else 1
    return np.zeros((max(1, int(threads)), max(1, width)))
