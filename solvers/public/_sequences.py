"""The sequence form of a :class:`~solvers.trees.publictree.PublicTree`, read off its entries: what
:mod:`solvers.public.mmd` needs beside the vector passes.

A player's *sequence* is one of its information sets with one of its actions (numbered like the
tree's flat actions, ``0 .. a-1``), or its empty sequence (``a`` for player 0, ``a + 1`` for player 1),
as in :class:`solvers.history.mmd.SequenceForm`. Every entry has its player's *last* sequence: at
the root the empty one; below, the sequence its slot names when its player acted at the parent
(``infoset_offset[entry_ref[parent entry]] + entry_slot``), else its parent entry's. From it, each
information set's parent sequence (its entry's), how many information sets hang below each sequence,
and ``max|A|``, the largest entry of the chance-weighted sequence-form payoff matrix: ``A[s0, s1]`` sums,
over the terminals and the pairs of entries there whose last sequences are ``s0`` and ``s1``, the
cell's chance weight times the terminal's scale (several terminals, and several entries of one,
may share a pair of sequences: a private draw after a player's last action, a public outcome that
ends the game). The pairs are enumerated terminal by terminal and summed per pair after a sort, in
chunks of at most :data:`CHUNK` pairs by range of player 0's sequence, so that the memory this
takes is bounded whatever the tree's size.

References
----------
von Stengel (1996), "Efficient computation of behavior strategies", Games and Economic Behavior:
the sequence form and its payoff matrix.
"""

from __future__ import annotations

import numba
import numpy as np

from solvers.kinds import DECISION, TERMINAL
from solvers.memory import check_fits
from solvers.public._node import _side

__all__ = ["CHUNK", "PublicSequences", "parent_nodes"]

#: The most (sequence pair, weight) records sorted at once when ``max|A|`` is computed (40 bytes
#: each with the sort's copies).
CHUNK = 1 << 22


@numba.njit(cache=True)
def parent_nodes(T):
    """Each public node's parent (-1 at the root), int64."""
    n = T.node_kind.shape[0]
    out = np.full(n, -1, np.int64)
    for s in range(n):
        if T.node_kind[s] != TERMINAL:
            for c in range(T.child_start[s], T.child_start[s] + T.num_children[s]):
                out[c] = s
    return out


@numba.njit(cache=True)
def _entry_sequences(T, pnode, a):
    """Every entry's player's last sequence (module docstring), top down (parents are earlier nodes)."""
    seq = np.empty(T.entry_parent.shape[0], np.int64)
    for q in range(2):
        b, n = _side(T, 0, q)
        for e in range(b, b + n):
            seq[e] = a + q
    for s in range(1, T.node_kind.shape[0]):
        ps = pnode[s]
        for q in range(2):
            pb, _ = _side(T, ps, q)
            b, n = _side(T, s, q)
            for e in range(b, b + n):
                par = pb + T.entry_parent[e]
                k = T.entry_slot[e]
                seq[e] = T.infoset_offset[T.entry_ref[par]] + k if k >= 0 else seq[par]
    return seq


@numba.njit(cache=True)
def _infoset_parents(T, seq):
    """Each information set's parent sequence: its entry's last sequence."""
    parent = np.full(T.infoset_player.shape[0], -1, np.int64)
    for s in range(T.node_kind.shape[0]):
        if T.node_kind[s] == DECISION:
            b, n = _side(T, s, T.node_player[s])
            for x in range(b, b + n):
                if T.entry_ref[x] >= 0:
                    parent[T.entry_ref[x]] = seq[x]
    return parent


@numba.njit(cache=True)
def _pairs(T, seq, lo, hi, stride, counts, keys, w):
    """The (sequence pair, weight) records of the terminals whose player-0 sequence is in ``lo ..
    hi-1``: with ``keys`` empty only counted (``counts[s0] += 1``), else written, key ``(s0 - lo) *
    stride + s1``. Returns how many. Player 1's entries of a terminal are chained by column
    (``head``, ``nxt``), so a row's cells find theirs without a search."""
    width = 1
    most = 1
    for s in range(T.node_kind.shape[0]):
        if T.node_kind[s] == TERMINAL:
            width = max(width, T.matrix_cols[T.term_matrix[s]])
            most = max(most, _side(T, s, 1)[1])
    head = np.full(width, -1, np.int64)
    nxt = np.empty(most, np.int64)
    write = keys.shape[0] > 0
    n = 0
    for z in range(T.node_kind.shape[0]):
        if T.node_kind[z] != TERMINAL or T.term_scale[z] == 0.0:
            continue
        m = T.term_matrix[z]
        base, rp, scale = T.matrix_start[m], T.matrix_rowp[m], T.term_scale[z]
        b0, n0 = _side(T, z, 0)
        b1, n1 = _side(T, z, 1)
        for f in range(b1, b1 + n1):
            j = T.entry_ref[f]
            nxt[f - b1] = head[j]
            head[j] = f
        for e in range(b0, b0 + n0):
            s0 = seq[e]
            if s0 < lo or s0 >= hi:
                continue
            r = rp + T.entry_ref[e]
            for k in range(base + T.row_ptr[r], base + T.row_ptr[r + 1]):
                f = head[T.cell_col[k]]
                while f >= 0:
                    if write:
                        keys[n] = (s0 - lo) * stride + seq[f]
                        w[n] = scale * T.matrix_data[k]
                    else:
                        counts[s0] += 1
                    n += 1
                    f = nxt[f - b1]
        for f in range(b1, b1 + n1):
            head[T.entry_ref[f]] = -1
    return n


def _largest_payoff(T, seq, a):
    """``max|A|`` (module docstring), chunk by chunk of player 0's sequences."""
    counts = np.zeros(a + 2, np.int64)
    none = np.empty(0, np.int64)
    _pairs(T, seq, 0, a + 2, a + 2, counts, none, np.empty(0))
    ends = np.cumsum(counts)
    biggest, lo = 0.0, 0
    check_fits(40 * min(int(ends[-1]), max(CHUNK, int(counts.max()))), "the public tree's sequence form")
    while lo < a + 2:
        done = ends[lo - 1] if lo else 0
        hi = max(lo + 1, int(np.searchsorted(ends, done + CHUNK, side="right")))
        size = int(ends[hi - 1] - done)
        if size:
            keys, w = np.empty(size, np.int64), np.empty(size)
            _pairs(T, seq, lo, hi, a + 2, counts, keys, w)
            order = np.argsort(keys, kind="stable")
            keys = keys[order]
            starts = np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:-1])))
            biggest = max(biggest, float(np.abs(np.add.reduceat(w[order], starts)).max()))
        lo = hi
    return biggest


class PublicSequences:
    """The sequence form of a public tree, as :class:`solvers.history.mmd.SequenceForm` has it for a
    history tree, without the matrix (the vector passes stand for it).

    Attributes
    ----------
    edge : ndarray, int32, shape (num_entries,)
        Each entry's sequence where its player acted at the parent node (slot ``>= 0``), else -1:
        the sequence whose utility the entry's value adds to.
    parent : ndarray, int64, shape (num_infosets,)
        Each information set's parent sequence.
    below : ndarray, float64, shape (a + 2,)
        The number of information sets whose parent is each sequence.
    order : ndarray, int64, shape (num_infosets,)
        Information sets, parents before children (by public node: an information set's parent
        sequence belongs to an earlier node).
    scale : float
        ``max |A|``.
    """

    def __init__(self, tree):
        T, a = tree.flat, tree.num_actions
        seq = _entry_sequences(T, parent_nodes(T), a)
        self.edge = np.where(T.entry_slot >= 0, seq, -1).astype(np.int32)
        self.parent = _infoset_parents(T, seq)
        if np.any(self.parent < 0):
            raise ValueError("PublicTree: an information set has no entry (entry_ref)")
        self.below = np.bincount(self.parent, minlength=a + 2).astype(np.float64)
        self.order = np.argsort(T.infoset_node, kind="stable").astype(np.int64)
        self.scale = _largest_payoff(T, seq, a)

    @classmethod
    def estimate_bytes(cls, tree):
        """Bytes kept (4 per entry, 16 per information set, 8 per sequence) and, while building, 8 per
        node and 8 per entry (the chunks of pairs check their own memory)."""
        return 12 * tree.num_entries + 8 * tree.num_nodes + 16 * tree.num_infosets + \
            8 * (tree.num_actions + 2)
