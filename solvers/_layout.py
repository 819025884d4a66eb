"""The solver's compact view of a :class:`~solvers.tree.GameTree`.

The CFR passes (:mod:`solvers._cfr_kernel`) and the best response
(:mod:`solvers.best_response`) do not read the tree's seven per-node arrays
(34 bytes per history). They visit the non-terminal histories only, level by
level, in an order that makes every inner loop branch-free and of constant
length: each level is cut into blocks of at most :data:`BLOCK` non-terminals
(in node order), and inside a block the non-terminals are grouped into
*segments* of one kind (decision of player 0, decision of player 1, chance)
and one number of children ``nc``, in node order within a segment. A pass
runs through the segments and, for each, through three arrays with one entry
per non-terminal ``j``:

``node[j]``
    the node index of the history;
``child[j]``
    its first child (children are contiguous);
``aux[j]``
    for a decision node, the flat offset of its information set's actions
    (into strategies and regrets); for a chance node, the offset of its edge
    probabilities in ``cprob`` (one entry per chance edge).

``seg_start``, ``seg_kind`` (0, 1: decision of that player, 2: chance) and
``seg_nc`` describe the segments. Nodes of one level do not depend on each
other in either direction, so their order is free; blocks keep each
segment's accesses to the reach and value buffers within a window of a few
thousand histories, so a tree larger than the caches is still read about
once per pass. Payoffs live in the value buffers at the terminals, where the
passes never write. The index arrays are uint32 when the tree fits (uint64
otherwise, another compiled specialisation): 12 bytes per non-terminal,
about 4 per history in Coup and poker, where two thirds of the histories are
terminal.

Parts, for threads: the tree is cut at level ``cut``, the first level with at
least ``4 * PARTS`` histories, into :data:`PARTS` groups of whole subtrees of
about equal size; below the cut each part is one contiguous node range per
level (``part_bounds``), so parts are independent and a thread can run its
parts through all the levels below the cut without waiting for the others:
two parallel regions per pass instead of two per level. Blocks never straddle
parts; ``part_seg[d, p]`` is the first segment of part ``p`` at level ``d``
(above the cut, part 0 holds the whole level), ``level_seg[d]`` the first
segment of level ``d``, and :meth:`Layout.parts` assigns the parts to
threads.

Information sets: ``order`` sorts them by owner (player 0's, then player
1's from ``split``), level of the first history, number of actions and first
history, so that ancestors come first and equal action counts run together;
``level_order[p, d]`` is the first position in ``order`` of player ``p``'s
information sets whose first history is at level ``d`` or deeper. The solver
keeps its per-action arrays (strategies, regrets, average weights) in this
order, not the tree's: information set ``s`` starts at the internal offset
``ioff[s]`` (``aux`` holds internal offsets), ``perm[x]`` is the tree's flat
index of internal index ``x`` (:meth:`Layout.to_internal`,
:meth:`Layout.to_tree`), and ``iparent[s]`` is the internal index of the
owner's previous action (-1 at the root). A segment (one player, one number
of actions) then meets its information sets in increasing memory order,
which keeps the strategy and regret rows of a tree larger than the caches
streaming. In ``order``: the internal offset (``info_offset``), the number
of actions (``info_actions``), the number of histories (``info_count``) and
the previous action (``info_parent``; ``num_actions`` at the root, where the
solver keeps a 1). In the tree's numbering: the previous flat action
(``parent_seq``, -1 at the root), the number of histories (``count``), the
first history (``first``) and, per action, the information set
(``action_infoset``).

A layout is built once per tree (three numba passes, well under a second per
million histories) and cached while the tree lives.
"""

from __future__ import annotations

import weakref

import numba
import numpy as np

from ._tree_check import own_sequences
from .memory import check_fits

__all__ = ["Layout", "layout_for", "cached", "BLOCK", "PARTS"]

#: Most non-terminals per block (see the module docstring).
BLOCK = 4096
#: Number of parts (groups of whole subtrees) below the cut; the most threads a solve uses.
PARTS = 16


@numba.njit(cache=True)
def _partition(kind, num_children, child_start, level_start, min_nodes, size, bounds):
    """Cut the tree into ``parts`` groups of whole subtrees, one contiguous range per level.

    The cut is made at the first level with at least ``min_nodes`` histories,
    into ranges of about equal total subtree size (``size`` is scratch, one
    per node); below it, a part's range at level ``d + 1`` is the children of
    its range at level ``d``. ``bounds[d, p]`` is the first node of part ``p``
    at level ``d`` (``bounds[d, parts]`` the level's end); above the cut part
    0 holds the whole level. Returns the level of the cut (the number of
    levels when no level is wide enough: everything stays in part 0).
    """
    n = kind.shape[0]
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
    for i in range(n - 1, -1, -1):
        total = 1
        if kind[i] != 2:
            c0 = child_start[i]
            for c in range(c0, c0 + num_children[i]):
                total += size[c]
        size[i] = total
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
                if kind[i] != 2:
                    first = child_start[i]
                    break
            bounds[d + 1, p] = first
    return cut


@numba.njit(cache=True)
def _fill(kind, player, infoset, num_children, child_start, chance_prob, part_bounds,
          infoset_offset, block, max_nc, node, child, aux, par, edge, cprob, seg_start,
          seg_kind, seg_nc, part_seg, first, count, parent_seq, action_infoset, seq,
          infoset_num_actions, counts, cursor, ptmp, etmp, num_actions):
    """Fill the layout; returns the number of segments.

    ``seq`` is scratch, one per node: the flat index of the last action of
    the player being scanned on the path to the node. ``counts`` and
    ``cursor`` are scratch with one entry per class (``kind * (max_nc + 1) +
    nc``); ``ptmp`` and ``etmp`` are scratch, one per node (the parent's slot
    and the edge of each node, until the node gets its own slot).
    """
    n = kind.shape[0]
    m = first.shape[0]
    classes = counts.shape[0]
    for s in range(m):
        first[s] = -1
        count[s] = 0.0
        o = infoset_offset[s]
        for a in range(infoset_num_actions[s]):
            action_infoset[o + a] = s
    levels = part_bounds.shape[0]
    parts = part_bounds.shape[1] - 1
    j = 0      # next non-terminal slot
    kc = 0     # next chance edge
    nseg = 0
    ptmp[0] = 0
    etmp[0] = ((num_actions + cprob.shape[0]) << 2) | 3
    for d in range(levels):
        for pt in range(parts):
            part_seg[d, pt] = nseg
            i = part_bounds[d, pt]
            end = part_bounds[d, pt + 1]
            while i < end:
                # one block: up to `block` non-terminals of this part of the level
                for x in range(classes):
                    counts[x] = 0
                b0 = i
                taken = 0
                while i < end and taken < block:
                    k = kind[i]
                    if k != 2:
                        cls = (2 if k == 1 else player[i]) * (max_nc + 1) + num_children[i]
                        counts[cls] += 1
                        taken += 1
                    i += 1
                pos = j
                for x in range(classes):
                    cursor[x] = pos
                    if counts[x] > 0:
                        seg_start[nseg] = pos
                        seg_kind[nseg] = x // (max_nc + 1)
                        seg_nc[nseg] = x % (max_nc + 1)
                        nseg += 1
                    pos += counts[x]
                for t in range(b0, i):
                    k = kind[t]
                    if k == 2:
                        continue
                    nc = num_children[t]
                    cls = (2 if k == 1 else player[t]) * (max_nc + 1) + nc
                    slot = cursor[cls]
                    cursor[cls] += 1
                    node[slot] = t
                    c0 = child_start[t]
                    child[slot] = c0
                    par[slot] = ptmp[t]
                    edge[slot] = etmp[t]
                    if k == 1:
                        aux[slot] = kc
                        for a in range(nc):
                            cprob[kc + a] = chance_prob[c0 + a]
                            ptmp[c0 + a] = slot
                            etmp[c0 + a] = ((num_actions + kc + a) << 2) | 2
                        kc += nc
                    else:
                        s = infoset[t]
                        o = infoset_offset[s]
                        aux[slot] = o
                        pl = player[t]
                        for a in range(nc):
                            ptmp[c0 + a] = slot
                            etmp[c0 + a] = ((o + a) << 2) | pl
                        count[s] += 1.0
                        if first[s] < 0 or t < first[s]:
                            first[s] = t
                j = pos
        part_seg[d, parts] = nseg
    seg_start[nseg] = j
    for p in range(2):
        own_sequences(kind, player, infoset, child_start, num_children, infoset_offset, p, seq,
                      parent_seq)
    return nseg


@numba.njit(cache=True)
def _internal(seg_start, seg_kind, aux, edge, action_infoset, ioff, order, infoset_offset,
              infoset_num_actions, perm):
    """Point decision nodes' ``aux`` and decision edges at internal offsets; fill ``perm``."""
    for s in range(seg_kind.shape[0]):
        if seg_kind[s] == 2:
            continue
        for j in range(seg_start[s], seg_start[s + 1]):
            aux[j] = ioff[action_infoset[aux[j]]]
    for j in range(edge.shape[0]):
        e = np.int64(edge[j])
        k = e & 3
        if k < 2:
            x = e >> 2
            t = action_infoset[x]
            edge[j] = ((ioff[t] + x - infoset_offset[t]) << 2) | k
    for x in range(order.shape[0]):
        s = order[x]
        o = infoset_offset[s]
        for k in range(infoset_num_actions[s]):
            perm[ioff[s] + k] = o + k
    return 0


class Layout:
    """Segmented non-terminal arrays, parts and per-infoset data of one tree.

    See the module docstring. Attributes: ``node``, ``child``, ``aux``,
    ``cprob``, ``seg_start``, ``seg_kind``, ``seg_nc``, ``level_seg``,
    ``cut``, ``part_bounds``, ``part_seg``, ``order``, ``split``,
    ``level_order``, ``ioff``, ``iparent``, ``perm``, ``info_offset``,
    ``info_actions``, ``info_count``, ``info_parent``, ``first``, ``count``,
    ``parent_seq``, ``action_infoset``, ``num_nodes``.
    """

    def __init__(self, tree):
        n, m, a = tree.num_nodes, tree.num_infosets, tree.num_actions
        kind = tree.node_kind
        levels = tree.level_start.shape[0] - 1
        num_nt = int(np.count_nonzero(kind != 2))
        max_nc = int(tree.num_children.max()) if n > 1 else 1
        chance_edges = int(tree.num_children[kind == 1].sum(dtype=np.int64))
        wide = max(n, 4 * (a + chance_edges + 1)) >= 2 ** 32
        index = np.uint64 if wide else np.uint32
        classes = 3 * (max_nc + 1)
        max_segments = (num_nt // BLOCK + levels * PARTS) * classes + 1
        seq_type = np.int64 if max(n, a) >= 2 ** 31 else np.int32
        size = index().itemsize
        check_fits(5 * size * num_nt + 8 * chance_edges + 17 * max_segments
                   + (np.dtype(seq_type).itemsize + 2 * size) * n + 88 * m + 20 * a,
                   "the solver layout")
        seq = np.empty(n, seq_type)
        self.part_bounds = np.empty((levels, PARTS + 1), np.int64)
        self.cut = int(_partition(kind, tree.num_children, tree.child_start, tree.level_start,
                                  4 * PARTS, seq, self.part_bounds))
        self.node = np.empty(num_nt, index)
        self.child = np.empty(num_nt, index)
        self.aux = np.empty(num_nt, index)
        self.par = np.empty(num_nt, index)
        self.edge = np.empty(num_nt, index)
        self.cprob = np.empty(chance_edges)
        seg_start = np.empty(max_segments + 1, np.int64)
        seg_kind = np.empty(max_segments, np.int8)
        seg_nc = np.empty(max_segments, np.int64)
        self.part_seg = np.empty((levels, PARTS + 1), np.int64)
        self.first = np.empty(m, np.int64)
        self.count = np.empty(m)
        self.parent_seq = np.full(m, -2, np.int64)  # all set by _fill (the tree is checked)
        self.action_infoset = np.empty(a, np.int32)
        ptmp = np.empty(n, index)
        etmp = np.empty(n, index)
        nseg = _fill(kind, tree.node_player, tree.node_infoset, tree.num_children,
                     tree.child_start, tree.chance_prob, self.part_bounds,
                     tree.infoset_offset, BLOCK, max_nc, self.node, self.child,
                     self.aux, self.par, self.edge, self.cprob, seg_start, seg_kind, seg_nc,
                     self.part_seg, self.first, self.count, self.parent_seq,
                     self.action_infoset, seq, tree.infoset_num_actions,
                     np.zeros(classes, np.int64), np.zeros(classes, np.int64), ptmp, etmp, a)
        del seq, ptmp, etmp
        self.one = a + chance_edges  # index of the constant 1 in the solver's edge table
        self.seg_start = seg_start[:nseg + 1].copy()
        self.seg_kind = seg_kind[:nseg].copy()
        self.seg_nc = seg_nc[:nseg].copy()
        self.level_seg = np.append(self.part_seg[:, 0], nseg).astype(np.int64)
        # Information sets by (owner, level of the first history, number of
        # actions, first history): ancestors come first (an information set's
        # first history is deeper than its parent's) and equal action counts
        # run together (constant-length inner loops). The solver stores its
        # per-action arrays in this order too (internal offsets ``ioff``): a
        # segment (one player, one number of actions) then meets its
        # information sets in increasing memory order, which keeps the
        # strategy and regret rows of a tree larger than the caches streaming.
        first_level = np.searchsorted(tree.level_start, self.first, side="right") - 1
        owner = tree.infoset_player.astype(np.int64)
        self.order = np.lexsort((self.first, tree.infoset_num_actions, first_level,
                                 owner)).astype(np.int64)
        self.split = int(np.count_nonzero(owner == 0))
        actions = tree.infoset_num_actions[self.order].astype(np.int64)
        self.ioff = np.empty(m, np.int64)
        self.ioff[self.order] = np.cumsum(actions) - actions
        self.perm = np.empty(a, np.int64)
        _internal(self.seg_start, self.seg_kind, self.aux, self.edge, self.action_infoset,
                  self.ioff, self.order, tree.infoset_offset, tree.infoset_num_actions, self.perm)
        inverse = np.empty(a, np.int64)
        inverse[self.perm] = np.arange(a, dtype=np.int64)
        self.iparent = np.where(self.parent_seq < 0, -1,
                                inverse[np.maximum(self.parent_seq, 0)]).astype(np.int64)
        del inverse
        self.info_offset = self.ioff[self.order].astype(index)
        self.info_actions = actions.astype(index)
        self.info_count = self.count[self.order]
        parent = self.iparent[self.order]
        self.info_parent = np.where(parent < 0, a, parent).astype(index)
        levels_in_order = first_level[self.order]
        self.level_order = np.empty((2, levels + 1), np.int64)
        for p, (lo, hi) in enumerate(((0, self.split), (self.split, m))):
            self.level_order[p] = lo + np.searchsorted(levels_in_order[lo:hi],
                                                       np.arange(levels + 1))
        self.num_nodes = n

    @property
    def nbytes(self):
        """Bytes held by the layout's arrays."""
        return int(sum(x.nbytes for x in (
            self.node, self.child, self.aux, self.par, self.edge, self.cprob, self.seg_start,
            self.seg_kind,
            self.seg_nc, self.level_seg, self.part_bounds, self.part_seg, self.first,
            self.count, self.parent_seq, self.action_infoset, self.order, self.level_order,
            self.info_offset, self.info_actions, self.info_count, self.info_parent, self.ioff,
            self.iparent, self.perm)))

    def to_internal(self, flat):
        """A flat per-action array (tree order) in the solver's internal order."""
        return np.ascontiguousarray(np.asarray(flat, dtype=np.float64)[self.perm])

    def to_tree(self, internal, out=None):
        """A per-action array in the solver's internal order back in the tree's order."""
        out = np.empty(self.perm.shape[0]) if out is None else out
        out[self.perm] = internal
        return out

    def parts(self, threads):
        """First part of each thread (``threads + 1`` entries): thread ``t`` runs parts
        ``parts[t]`` to ``parts[t + 1] - 1`` below the cut."""
        threads = max(1, min(int(threads), PARTS))
        return np.array([(t * PARTS) // threads for t in range(threads + 1)], np.int64)


_CACHE = weakref.WeakKeyDictionary()


def cached(tree):
    """Whether ``tree``'s layout is already built."""
    return tree in _CACHE


def layout_for(tree):
    """The :class:`Layout` of ``tree``, built on first use and cached."""
    layout = _CACHE.get(tree)
    if layout is None:
        layout = Layout(tree)
        _CACHE[tree] = layout
    return layout
