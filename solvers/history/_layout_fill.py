"""The numba passes that build the solver layout (:mod:`solvers.history.layout`).

Three passes over a :class:`~solvers.trees.gametree.FlatTree`: :func:`partition` cuts
the tree into parts of whole subtrees, :func:`fill` lays the non-terminals
out in blocks and segments, :func:`to_internal_offsets` moves the decision
offsets to the layout's internal action order. The arrays they fill, and
their meaning, are described in :mod:`solvers.history.layout`.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from solvers.trees.check import own_sequences
from solvers.kinds import CHANCE, SEG_CHANCE, TERMINAL, EDGE_ROOT


class FillOut(NamedTuple):
    """Arrays :func:`fill` writes (see :mod:`solvers.history.layout` for their meaning).

    The segments: ``seg_start`` (int64, ``max_segments + 1``), ``seg_kind``
    (int8) and ``seg_nc`` (int64, ``max_segments``), ``part_seg`` (int64,
    shape ``(levels, parts + 1)``). ``cprob``: float64, one per chance edge.
    Per non-terminal: ``node``, ``child``, ``aux``, ``par``, ``edge`` (index
    dtype, uint32 or uint64). Per information set: ``first`` (int64),
    ``count`` (float64), ``parent_seq`` (int64, all -2 on entry). Per action:
    ``action_infoset`` (int32).
    """

    seg_start: np.ndarray
    seg_kind: np.ndarray
    seg_nc: np.ndarray
    part_seg: np.ndarray
    cprob: np.ndarray
    node: np.ndarray
    child: np.ndarray
    aux: np.ndarray
    par: np.ndarray
    edge: np.ndarray
    first: np.ndarray
    count: np.ndarray
    parent_seq: np.ndarray
    action_infoset: np.ndarray


class FillScratch(NamedTuple):
    """Scratch of :func:`fill`.

    ``seq`` (int32 or int64, one per node): the last own action on the path to
    a node. ``counts``, ``cursor`` (int64, one per class ``kind * (max_nc + 1)
    + nc``). ``ptmp``, ``etmp`` (index dtype, one per node): the parent's slot
    and the edge of each node until the node gets its own slot.
    """

    seq: np.ndarray
    counts: np.ndarray
    cursor: np.ndarray
    ptmp: np.ndarray
    etmp: np.ndarray


@numba.njit(cache=True)
def _subtree_sizes(tree, size):
    """``size[i]``: number of histories in the subtree of node ``i`` (int, one per node)."""
    kind, child_start, num_children = tree.node_kind, tree.child_start, tree.num_children
    for i in range(kind.shape[0] - 1, -1, -1):
        total = 1
        if kind[i] != TERMINAL:
            c0 = child_start[i]
            for c in range(c0, c0 + num_children[i]):
                total += size[c]
        size[i] = total


@numba.njit(cache=True)
def partition(tree, min_nodes, size, bounds):
    """Cut the tree into ``parts`` groups of whole subtrees, one contiguous range per level.

    Parameters
    ----------
    tree : FlatTree
    min_nodes : int
        The cut is made at the first level with at least this many histories.
    size : ndarray, int32 or int64, shape (num_nodes,)
        Scratch (subtree sizes).
    bounds : ndarray, int64, shape (levels, parts + 1)
        Out: ``bounds[d, p]`` is the first node of part ``p`` at level ``d``
        (``bounds[d, parts]`` the level's end); above the cut part 0 holds the
        whole level. Below the cut a part's range at level ``d + 1`` is the
        children of its range at level ``d``; at the cut, ranges of about equal
        total subtree size.

    Returns
    -------
    int
        The level of the cut (the number of levels when no level is wide
        enough: everything stays in part 0).
    """
    kind, child_start, level_start = tree.node_kind, tree.child_start, tree.level_start
    levels = level_start.shape[0] - 1
    parts = bounds.shape[1] - 1
    cut = levels
    for d in range(levels):
        if level_start[d + 1] - level_start[d] >= min_nodes:
            cut = d
            break
    for d in range(levels):
        bounds[d, 0] = level_start[d]
        for p in range(1, parts + 1):
            bounds[d, p] = level_start[d + 1]
    if cut == levels:
        return cut
    _subtree_sizes(tree, size)
    lo = level_start[cut]
    hi = level_start[cut + 1]
    whole = 0
    for i in range(lo, hi):
        whole += size[i]
    acc = 0
    p = 1
    for i in range(lo, hi):
        while p < parts and acc * parts >= whole * p:
            bounds[cut, p] = i
            p += 1
        acc += size[i]
    for d in range(cut, levels - 1):
        for p in range(1, parts):
            first = level_start[d + 2]
            for i in range(bounds[d, p], level_start[d + 1]):
                if kind[i] != TERMINAL:
                    first = child_start[i]
                    break
            bounds[d + 1, p] = first
    return cut


@numba.njit(cache=True, inline="always")
def _seg_class(kind, player, nc, max_nc):
    """Class of a non-terminal: its segment kind (player or ``SEG_CHANCE``) and child count."""
    return (SEG_CHANCE if kind == CHANCE else player) * (max_nc + 1) + nc


@numba.njit(cache=True)
def _open_segments(tree, i, end, block, max_nc, out, counts, cursor, j, nseg):
    """Count the next block's classes (nodes ``i..``) and open its segments at slot ``j``.

    Returns ``(end of the block, number of segments, the block's end slot)``;
    ``cursor`` gets each class's first slot.
    """
    kind, player, num_children = tree.node_kind, tree.node_player, tree.num_children
    for x in range(counts.shape[0]):
        counts[x] = 0
    taken = 0
    while i < end and taken < block:
        if kind[i] != TERMINAL:
            counts[_seg_class(kind[i], player[i], num_children[i], max_nc)] += 1
            taken += 1
        i += 1
    pos = j
    for x in range(counts.shape[0]):
        cursor[x] = pos
        if counts[x] > 0:
            out.seg_start[nseg] = pos
            out.seg_kind[nseg] = x // (max_nc + 1)
            out.seg_nc[nseg] = x % (max_nc + 1)
            nseg += 1
        pos += counts[x]
    return i, nseg, pos


@numba.njit(cache=True)
def _place_block(tree, b0, b1, max_nc, out, scratch, kc, num_actions):
    """Give each non-terminal of nodes ``b0..b1-1`` its slot; returns the next chance edge."""
    kind, player, infoset = tree.node_kind, tree.node_player, tree.node_infoset
    num_children, child_start, chance_prob = tree.num_children, tree.child_start, tree.chance_prob
    cursor, ptmp, etmp = scratch.cursor, scratch.ptmp, scratch.etmp
    for t in range(b0, b1):
        k = kind[t]
        if k == TERMINAL:
            continue
        nc = num_children[t]
        cls = _seg_class(k, player[t], nc, max_nc)
        slot = cursor[cls]
        cursor[cls] += 1
        out.node[slot] = t
        c0 = child_start[t]
        out.child[slot] = c0
        out.par[slot] = ptmp[t]
        out.edge[slot] = etmp[t]
        if k == CHANCE:
            out.aux[slot] = kc
            for a in range(nc):
                out.cprob[kc + a] = chance_prob[c0 + a]
                ptmp[c0 + a] = slot
                etmp[c0 + a] = ((num_actions + kc + a) << 2) | SEG_CHANCE
            kc += nc
        else:
            s = infoset[t]
            o = tree.infoset_offset[s]
            out.aux[slot] = o
            pl = player[t]
            for a in range(nc):
                ptmp[c0 + a] = slot
                etmp[c0 + a] = ((o + a) << 2) | pl
            out.count[s] += 1.0
            if out.first[s] < 0 or t < out.first[s]:
                out.first[s] = t
    return kc


@numba.njit(cache=True)
def fill(tree, part_bounds, block, max_nc, out, scratch, num_actions):
    """Fill the layout, level by level, part by part, block by block.

    Parameters
    ----------
    tree : FlatTree
    part_bounds : ndarray, int64, shape (levels, parts + 1)
        From :func:`partition`.
    block : int
        Most non-terminals per block.
    max_nc : int
        Largest number of children.
    out : FillOut
    scratch : FillScratch
    num_actions : int
        The tree's number of infoset actions (chance edges are numbered after them).

    Returns
    -------
    int
        The number of segments.
    """
    for s in range(out.first.shape[0]):
        out.first[s] = -1
        out.count[s] = 0.0
        o = tree.infoset_offset[s]
        for a in range(tree.infoset_num_actions[s]):
            out.action_infoset[o + a] = s
    levels = part_bounds.shape[0]
    parts = part_bounds.shape[1] - 1
    # int64s, not literal zeros: typing the loop would also compile the callees for the literals
    j = np.int64(0)      # next non-terminal slot
    kc = np.int64(0)     # next chance edge
    nseg = np.int64(0)
    scratch.ptmp[0] = 0
    scratch.etmp[0] = ((num_actions + out.cprob.shape[0]) << 2) | EDGE_ROOT
    for d in range(levels):
        for pt in range(parts):
            out.part_seg[d, pt] = nseg
            i = part_bounds[d, pt]
            end = part_bounds[d, pt + 1]
            while i < end:
                b0 = i
                i, nseg, j_end = _open_segments(tree, i, end, block, max_nc, out,
                                                scratch.counts, scratch.cursor, j, nseg)
                kc = _place_block(tree, b0, i, max_nc, out, scratch, kc, num_actions)
                j = j_end
        out.part_seg[d, parts] = nseg
    out.seg_start[nseg] = j
    for p in range(2):
        own_sequences(tree, p, scratch.seq, out.parent_seq)
    return nseg


@numba.njit(cache=True)
def to_internal_offsets(seg_start, seg_kind, aux, edge, action_infoset, ioff, order,
                        infoset_offset, infoset_num_actions, perm):
    """Point decision nodes' ``aux`` and decision edges at internal offsets; fill ``perm``.

    Parameters
    ----------
    seg_start, seg_kind : ndarray
        The segments (int64, int8).
    aux, edge : ndarray, index dtype, shape (num_nonterminals,)
        Rewritten in place (tree offsets to internal offsets).
    action_infoset : ndarray, int32, shape (num_actions,)
    ioff, order : ndarray, int64, shape (num_infosets,)
        Internal offset of each information set; the visiting order.
    infoset_offset : ndarray, int64, shape (num_infosets,)
    infoset_num_actions : ndarray, int32, shape (num_infosets,)
    perm : ndarray, int64, shape (num_actions,)
        Out: the tree's flat index of each internal index.
    """
    for s in range(seg_kind.shape[0]):
        if seg_kind[s] == SEG_CHANCE:
            continue
        for j in range(seg_start[s], seg_start[s + 1]):
            aux[j] = ioff[action_infoset[aux[j]]]
    for j in range(edge.shape[0]):
        e = np.int64(edge[j])
        k = e & 3
        if k < SEG_CHANCE:
            x = e >> 2
            t = action_infoset[x]
            edge[j] = ((ioff[t] + x - infoset_offset[t]) << 2) | k
    for x in range(order.shape[0]):
        s = order[x]
        o = infoset_offset[s]
        for k in range(infoset_num_actions[s]):
            perm[ioff[s] + k] = o + k
    return 0
