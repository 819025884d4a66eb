"""The solver's compact view of a :class:`~solvers.trees.gametree.GameTree`.

The CFR passes (:mod:`solvers.history._kernel`) and the best response
(:mod:`solvers.history.best_response`) do not read the tree's seven per-node arrays
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

``seg_start``, ``seg_kind`` (0, 1: decision of that player,
:data:`~solvers.kinds.SEG_CHANCE`: chance) and ``seg_nc`` describe the
segments. Nodes of one level do not depend on each
other in either direction, so their order is free; blocks keep each
segment's accesses to the reach and value buffers within a window of a few
thousand histories, so a tree larger than the caches is still read about
once per pass. Payoffs live in the value buffers at the terminals, where the
passes never write. The index arrays are uint32 when the tree fits (uint64
otherwise, another compiled specialisation): 12 bytes per non-terminal,
about 4 per history in games where two thirds of the histories are terminal
(as in poker).

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

Only two-player zero-sum trees have a layout (the segment codes name two players
and chance, the passes negate player 0's payoff for player 1): the CFR solvers
therefore refuse a tree with ``payoffs`` here, naming what takes it.

A layout is built once per tree (three numba passes in
:mod:`solvers.history._layout_fill`, well under a second per million histories) and
cached while the tree lives. Kernels take the arrays they read as one
:class:`LayoutArrays` named tuple (:attr:`Layout.arrays`).
"""

from __future__ import annotations

import weakref
from typing import NamedTuple

import numpy as np

from solvers.history import _layout_fill as F
from solvers.kinds import CHANCE, TERMINAL
from solvers.memory import check_fits

__all__ = ["Layout", "LayoutArrays", "layout_for", "cached", "BLOCK", "PARTS"]

#: Most non-terminals per block (see the module docstring).
BLOCK = 4096
#: Number of parts (groups of whole subtrees) below the cut; the most threads a solve uses.
PARTS = 16


class LayoutArrays(NamedTuple):
    """What the kernels read of a layout (one named tuple instead of 20 arguments).

    ``I`` is the index dtype (uint32, or uint64 for trees of ``2**32``
    entries and more); ``nt`` non-terminals, ``S`` segments, ``L`` levels,
    ``m`` information sets.

    Attributes
    ----------
    node, child, aux, par, edge : ndarray, I, shape (nt,)
        Per non-terminal slot: node index, first child, strategy or chance
        offset, parent slot, edge into it (``(x << 2) | owner``).
    cprob : ndarray, float64, shape (chance_edges,)
    seg_start : ndarray, int64, shape (S + 1,)
    seg_kind : ndarray, int8, shape (S,)
    seg_nc : ndarray, int64, shape (S,)
    level_seg : ndarray, int64, shape (L + 1,)
    part_seg : ndarray, int64, shape (L, PARTS + 1)
    cut : int
        First level split into parts.
    one : int
        Index of the constant 1 in the solver's edge table.
    order : ndarray, int64, shape (m,)
        Information sets in visiting order (player 0's, then player 1's from ``split``).
    split : int
    level_order : ndarray, int64, shape (2, L + 1)
    info_offset, info_actions, info_parent : ndarray, I, shape (m,)
        In ``order``: internal offset, number of actions, previous own action.
    info_count : ndarray, float64, shape (m,)
        In ``order``: number of histories.
    iparent, ioff : ndarray, int64, shape (m,)
        Per information set (tree numbering): internal index of the previous
        own action (-1 at the root), internal offset.
    num_actions : ndarray, int32, shape (m,)
        The tree's ``infoset_num_actions``.
    """

    node: np.ndarray
    child: np.ndarray
    aux: np.ndarray
    par: np.ndarray
    edge: np.ndarray
    cprob: np.ndarray
    seg_start: np.ndarray
    seg_kind: np.ndarray
    seg_nc: np.ndarray
    level_seg: np.ndarray
    part_seg: np.ndarray
    cut: int
    one: int
    order: np.ndarray
    split: int
    level_order: np.ndarray
    info_offset: np.ndarray
    info_actions: np.ndarray
    info_parent: np.ndarray
    info_count: np.ndarray
    iparent: np.ndarray
    ioff: np.ndarray
    num_actions: np.ndarray


class Layout:
    """Segmented non-terminal arrays, parts and per-infoset data of one tree.

    See the module docstring. Attributes: ``node``, ``child``, ``aux``,
    ``cprob``, ``seg_start``, ``seg_kind``, ``seg_nc``, ``level_seg``,
    ``cut``, ``part_bounds``, ``part_seg``, ``order``, ``split``,
    ``level_order``, ``ioff``, ``iparent``, ``perm``, ``info_offset``,
    ``info_actions``, ``info_count``, ``info_parent``, ``first``, ``count``,
    ``parent_seq``, ``action_infoset``, ``num_nodes``; ``arrays`` gathers
    what the kernels read (:class:`LayoutArrays`).

    Parameters
    ----------
    tree : GameTree
    """

    def __init__(self, tree):
        if not getattr(tree, "two_player_zero_sum", True):
            raise ValueError(f"the CFR solvers take two-player zero-sum trees; this one has "
                             f"{tree.num_players} players with their own payoffs (solvers.nash_conv "
                             "and solvers.history.best_response take it)")
        n, m, a = tree.num_nodes, tree.num_infosets, tree.num_actions
        kind = tree.node_kind
        levels = tree.level_start.shape[0] - 1
        num_nt = int(np.count_nonzero(kind != TERMINAL))
        max_nc = int(tree.num_children.max()) if n > 1 else 1
        chance_edges = int(tree.num_children[kind == CHANCE].sum(dtype=np.int64))
        wide = max(n, 4 * (a + chance_edges + 1)) >= 2 ** 32
        index = np.uint64 if wide else np.uint32
        classes = 3 * (max_nc + 1)
        max_segments = (num_nt // BLOCK + levels * PARTS) * classes + 1
        seq_type = np.int64 if max(n, a) >= 2 ** 31 else np.int32
        size = index().itemsize
        check_fits(5 * size * num_nt + 8 * chance_edges + 17 * max_segments
                   + (np.dtype(seq_type).itemsize + 2 * size) * n + 88 * m + 20 * a,
                   "the solver layout")
        flat = tree.flat
        seq = np.empty(n, seq_type)
        self.part_bounds = np.empty((levels, PARTS + 1), np.int64)
        self.cut = int(F.partition(flat, 4 * PARTS, seq, self.part_bounds))
        out = F.FillOut(
            node=np.empty(num_nt, index), child=np.empty(num_nt, index),
            aux=np.empty(num_nt, index), par=np.empty(num_nt, index),
            edge=np.empty(num_nt, index), cprob=np.empty(chance_edges),
            seg_start=np.empty(max_segments + 1, np.int64),
            seg_kind=np.empty(max_segments, np.int8), seg_nc=np.empty(max_segments, np.int64),
            part_seg=np.empty((levels, PARTS + 1), np.int64), first=np.empty(m, np.int64),
            count=np.empty(m), parent_seq=np.full(m, -2, np.int64),  # all set (the tree is checked)
            action_infoset=np.empty(a, np.int32))
        scratch = F.FillScratch(seq=seq, counts=np.zeros(classes, np.int64),
                                cursor=np.zeros(classes, np.int64), ptmp=np.empty(n, index),
                                etmp=np.empty(n, index))
        nseg = F.fill(flat, self.part_bounds, BLOCK, max_nc, out, scratch, a)
        del seq, scratch
        for name in ("node", "child", "aux", "par", "edge", "cprob", "part_seg", "first",
                     "count", "parent_seq", "action_infoset"):
            setattr(self, name, getattr(out, name))
        self.one = a + chance_edges  # index of the constant 1 in the solver's edge table
        self.seg_start = out.seg_start[:nseg + 1].copy()
        self.seg_kind = out.seg_kind[:nseg].copy()
        self.seg_nc = out.seg_nc[:nseg].copy()
        del out
        self.level_seg = np.append(self.part_seg[:, 0], nseg).astype(np.int64)
        self._order_infosets(tree, index)
        self.num_nodes = n
        self.arrays = LayoutArrays(*(getattr(self, name) for name in LayoutArrays._fields[:-1]),
                                   num_actions=tree.infoset_num_actions)

    def _order_infosets(self, tree, index):
        """The information sets' visiting order and the internal action order (module docstring)."""
        m, a = tree.num_infosets, tree.num_actions
        levels = tree.level_start.shape[0] - 1
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
        F.to_internal_offsets(self.seg_start, self.seg_kind, self.aux, self.edge,
                              self.action_infoset, self.ioff, self.order, tree.infoset_offset,
                              tree.infoset_num_actions, self.perm)
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
