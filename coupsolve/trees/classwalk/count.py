"""Counting a public tree by subtrees: the class walk cut at a public level (:mod:`coupsolve.trees.classwalk.build`).

The level-by-level count holds two whole levels at a time, and the deep levels of two-player Coup at
turn limit 4 hold more than a machine of 24 GiB (docs/research/design-measurements.md). Every node of a level is walked from that node's own entries, buckets and anchor
matrix, so the levels below a level ``d`` fall into independent *parts*: contiguous runs of level
``d``'s nodes with everything below them, the same parts :func:`solvers.pieces.split.split` cuts a
built tree into. :func:`count_by_parts` walks the *trunk* (levels ``0 .. d - 1``) as the plain count
does, then walks each part to its end on its own, carrying only the part's nodes, entries, buckets and
the anchor matrices its roots read (copied into the part, so a matrix read by two parts is counted once
by the trunk and copied into both). The figures add up to the plain count's exactly (a test checks every
field), and each part's own figures (:class:`PartSize`) are what a machine holding that part would hold:
the measure :mod:`solvers.pieces.ray` places parts by.

A count by parts holds one part's walk per thread at a time, so it reaches turn limits whose whole
walk does not fit (turn limit 4's time and memory, from ``benchmarks.public_count``:
docs/research/design-measurements.md).

Parts are balanced by the entries of their roots (the deeper sizes are not known before walking);
``workers`` threads walk parts at once (the walk's kernel releases the GIL). The only figure shared
by all parts is the information sets' keys (8 bytes each), kept to check that no key comes twice.
Progress is reported per finished part, from the calling thread; Ctrl-C stops the workers at their
next chunk of nodes.
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from typing import NamedTuple

import numpy as np

from solvers.memory import releases_free_memory

from coupsolve.trees.classwalk import build as B
from coupsolve.trees.classwalk import children as CC
from coupsolve.rules import Rules
from coupsolve.trees.classwalk.build import ClassSize
from coupsolve.trees.classwalk.emit import Level

__all__ = ["PartSize", "count_by_parts", "count_some_parts"]

_SUMMED = (CC.G_NODES, CC.G_ENTRIES, CC.G_INFOSETS, CC.G_ACTIONS, CC.G_DECHIST, CC.G_PAIRS,
           CC.G_TERMPAIRS, CC.G_STEPPED, CC.G_CHPAIRS, CC.G_DENSE)


class PartSize(NamedTuple):
    """One part of a count by parts: roots ``first .. first + roots - 1`` of the cut level."""

    first: int
    roots: int
    nodes: int
    entries: int
    infosets: int
    actions: int
    matrices: int  # the part's own: those its roots read (copies) and those below them
    cells: int  # their rows x columns (the tree's dense matrices)
    pair_cells: int  # of them, those with histories (the walk's sparse anchors)
    pairs: int
    stepped: int
    levels: int
    work_bytes: int  # the part's walk: its two largest consecutive levels, matrices and keys (the
    # whole count's ClassSize.work_bytes is the larger of its walk and a level-by-level build's walk)
    seconds: float


def part_bounds(cur, n, parts):
    """Start of each part among ``n`` nodes: contiguous runs with about equal root entries."""
    parts = max(1, min(int(parts), n))
    weight = np.diff(cur.elo[:n + 1]).astype(np.float64) + 1.0
    cum = np.cumsum(weight)
    cuts = np.searchsorted(cum, cum[-1] * np.arange(1, parts) / parts, side="right")
    return np.unique(np.concatenate(([0], cuts, [n]))).astype(np.int64)


def part_level(cur, a, b):
    """Nodes ``a .. b - 1`` of level ``cur`` as a level of their own (copies)."""
    e0, e1, b0, b1 = int(cur.elo[a]), int(cur.elo[b]), int(cur.blo[a]), int(cur.blo[b])
    return Level(pub=cur.pub[a:b].copy(), amat=cur.amat[a:b].copy(),
                 elo=cur.elo[a:b + 1] - e0, ne0=cur.ne0[a:b].copy(),
                 blo=cur.blo[a:b + 1] - b0, nb0=cur.nb0[a:b].copy(),
                 e_h=cur.e_h[e0:e1].copy(), e_bk=cur.e_bk[e0:e1].copy(),
                 e_par=cur.e_par[e0:e1].copy(), e_slot=cur.e_slot[e0:e1].copy(),
                 b_cls=cur.b_cls[b0:b1].copy(), b_row=cur.b_row[b0:b1].copy(),
                 b_cnt=cur.b_cnt[b0:b1].copy())


def part_output(O, level, fill=False):
    """A count's (``fill``: a build's) output arrays holding the anchor matrices ``level`` reads
    (renumbered in ``level.amat``), with a new walk's room to grow; returns ``(O, matrices, cells,
    row pointers)``."""
    used = np.unique(level.amat)
    packed = CC.packed_anchors(O, used)
    P = B._new_out(fill)
    P = P._replace(**{k: np.concatenate((a, np.zeros(getattr(P, k).shape[0], a.dtype)))
                      for k, a in packed.items()})
    level.amat[:] = np.searchsorted(used, level.amat)
    return P, used.shape[0], packed["matrix_data"].shape[0], packed["row_ptr"].shape[0]


class PartWorker:
    """One thread's walk of parts (its own scratch arrays, and table stamps that only grow)."""

    def __init__(self, P, O, cur, stop, every_pair=False):
        self.P, self.O, self.cur, self.stop = P, O, cur, stop
        self.S, self.stamp = B._scratch(every_pair), 0

    def _check(self, *_):
        if self.stop.is_set():
            raise KeyboardInterrupt

    def walk(self, a, b, first):
        t0 = time.perf_counter()
        level = part_level(self.cur, a, b)
        O, n0, c0, r0 = part_output(self.O, level)
        dense0 = int(((np.diff(O.matrix_rowp[:n0 + 1]) - 1) * O.matrix_cols[:n0]).sum())
        G = np.zeros(CC.NG, np.int64)
        G[CC.G_MATRICES], G[CC.G_CELLS], G[CC.G_ROWS], G[CC.G_STAMP] = n0, c0, r0, self.stamp
        _, _, self.S, O, ln, le, work, gone = B._levels(
            self.P, level, b - a, O, self.S, G, False, self._check, first=first)
        self.stamp = int(G[CC.G_STAMP])
        keys = O.infoset_hash[:G[CC.G_INFOSETS]].copy()
        CC.add_gone(G, gone)
        mats, cells, rows = int(G[CC.G_MATRICES]), int(G[CC.G_CELLS]), int(G[CC.G_ROWS])
        size = PartSize(int(a), int(b - a), int(G[CC.G_NODES]), int(G[CC.G_ENTRIES]),
                        int(G[CC.G_INFOSETS]), int(G[CC.G_ACTIONS]), mats,
                        dense0 + int(G[CC.G_DENSE]), cells, int(G[CC.G_PAIRS]),
                        int(G[CC.G_STEPPED]), len(ln), int(work), time.perf_counter() - t0)
        return size, G, (mats - n0, cells - c0, rows - r0), ln, le, keys


#: ``depth="auto"`` cuts at the first level with this many nodes per part (no cut when there is none):
#: parts of several roots each, so that the parts' sizes even out.
AUTO_NODES_PER_PART = 32


@releases_free_memory
def count_class_tree(rules: Rules, progress=None, *, split_depth: int | str | None = None,
                     parts: int = 64, workers: int = 1, on_part=None) -> "ClassSize":
    """The size of ``rules``' public tree, walking two levels at a time (nothing of the tree kept but
    its anchor matrices). With ``split_depth`` (a level, or ``"auto"``: the first level of at least
    32 nodes per part) the levels below it are walked by parts, ``workers`` at a time
    (:func:`count_by_parts`: the same figures in far less memory, and each
    part's own in ``ClassSize.parts``)."""
    if split_depth is not None:
        return count_by_parts(rules, split_depth, parts, workers, progress, on_part)
    O, G, ln, le, work, sec = B._walk(rules, False, progress)
    B._check_keys(O.infoset_hash[:G[CC.G_INFOSETS]])
    return B._size(rules, G, ln, le, work, sec)


def count_by_parts(rules, depth, parts=64, workers=1, progress=None, on_part=None, walk=None):
    """The count of :func:`count_class_tree`, walking levels ``0 .. depth - 1``
    whole and then ``parts`` parts below level ``depth`` one by one (module docstring), ``workers`` at a
    time; ``depth="auto"``: the first level of :data:`AUTO_NODES_PER_PART` nodes per part or more.
    ``on_part(PartSize)`` is called as each part finishes (from the calling thread), e.g. to log it.
    ``walk`` counts the parts elsewhere (:func:`coupsolve.trees.pieces.remote.count_on_ray`; the signature of
    :func:`_walk`). Returns the :class:`~coupsolve.trees.classwalk.build.ClassSize`, its ``parts`` the parts'
    figures."""
    auto = isinstance(depth, str) and depth == "auto"
    if (not auto and not (isinstance(depth, (int, np.integer)) and depth >= 1)) or int(parts) < 1 \
            or int(workers) < 1:
        raise ValueError(f"depth, parts and workers must be at least 1 (depth may be 'auto'), got "
                         f"{depth}, {parts} and {workers}")
    P, cur, O, S, G, t0 = B._start(rules, False)
    cur, n, S, O, ln, le, work, gone = B._levels(
        P, cur, 1, O, S, G, False, progress, depth=None if auto else depth,
        until_nodes=AUTO_NODES_PER_PART * int(parts) if auto else None)
    CC.add_gone(G, gone)
    level_nodes, level_entries, part_work = ln, le, 0
    keys, sizes = [O.infoset_hash[:G[CC.G_INFOSETS]].copy()], []
    if n:
        bounds = part_bounds(cur, n, parts)

        def take(result):
            nonlocal level_nodes, level_entries, part_work
            size, g, new, pln, ple, k = result
            G[list(_SUMMED)] += g[list(_SUMMED)]
            CC.add_gone(G, new)
            level_nodes = _add(level_nodes, pln, len(ln))
            level_entries = _add(level_entries, ple, len(ln))
            keys.append(k)
            sizes.append(size)
            part_work = max(part_work, size.work_bytes)
            if on_part is not None:
                on_part(size)
            if progress is not None:
                progress("parts below level %d" % len(ln), len(sizes), len(bounds) - 1)

        (walk or _walk)(P, O, cur, len(ln), zip(bounds[:-1], bounds[1:]), workers, take)
    keys = np.concatenate(keys)
    B._check_keys(keys)
    # the build walks level by level: its walk, not the parts', is what a build beside the tree needs
    work = max(work, int(workers) * part_work, B.level_walk_bytes(level_nodes, level_entries))
    work += keys.nbytes
    return B._size(rules, G, np.array(level_nodes), np.array(level_entries),
                   work, time.perf_counter() - t0,
                   tuple(sorted(sizes, key=lambda s: s.first)))


def _walk(P, O, cur, first, ranges, workers, take):
    """Walk the parts of ``cur``'s nodes ``ranges`` (``(a, b)`` pairs) below level ``first``,
    ``workers`` at a time on threads; ``take(result of PartWorker.walk)`` from the calling thread as each
    finishes. Ctrl-C (or any error) stops the other walks at their next chunk of nodes."""
    stop, local = threading.Event(), threading.local()

    def run(a, b):
        if not hasattr(local, "w"):
            local.w = PartWorker(P, O, cur, stop)
        return local.w.walk(a, b, first)

    with ThreadPoolExecutor(max_workers=int(workers)) as pool:
        todo = {pool.submit(run, int(a), int(b)) for a, b in ranges}
        try:
            while todo:
                done, todo = wait(todo, return_when=FIRST_COMPLETED)
                for f in done:
                    take(f.result())
        except BaseException:
            stop.set()
            raise


def walk_above(rules, depth, fill, progress=None):
    """The class walk of ``rules`` down to level ``depth`` (the cut), writing the tree with
    ``fill``: ``(P, cut level, O, G, its nodes, level nodes walked)``, or ``ValueError`` when no
    node is below the cut."""
    P, cur, O, S, G, _ = B._start(rules, fill)
    cur, n, S, O, ln, _, _, _ = B._levels(P, cur, 1, O, S, G, fill, progress, depth=depth)
    if len(ln) < depth or not n:
        raise ValueError(f"the public tree of {rules} has no nodes below level {depth}")
    return P, cur, O, G, n, ln


@releases_free_memory
def count_some_parts(rules, depth, parts, which, workers=1, progress=None, on_part=None):
    """The figures of some parts only: the parts numbered ``which`` among those :func:`count_by_parts`
    cuts level ``depth`` into (``parts`` of them, balanced by their roots' entries), each walked
    alone as it walks them; ``which`` may be a function of the number of parts that returns them
    (e.g. a seeded sample), and ``on_part`` is called with each part's figures as it finishes. A
    sample of a tree too large to count whole (turn limit 5 of the selection setup), whose sizes a
    cluster plan is computed from. Returns ``(bounds, cut_entries,
    sizes)``: the parts' first nodes (then the level's number of nodes), the entries of the cut
    level, and the :class:`PartSize` of each part of ``which`` in the order they finished."""
    if not (isinstance(depth, (int, np.integer)) and depth >= 1) or int(parts) < 1:
        raise ValueError(f"depth and parts must be at least 1, got {depth} and {parts}")
    P, cur, O, _, n, ln = walk_above(rules, depth, False, progress)
    bounds = part_bounds(cur, n, parts)
    which = sorted({int(k) for k in (which(len(bounds) - 1) if callable(which) else which)})
    if which and not 0 <= which[0] <= which[-1] < len(bounds) - 1:
        raise ValueError(f"parts are numbered 0 .. {len(bounds) - 2}, not {which}")
    sizes = []

    def take(result):
        sizes.append(result[0])
        if on_part is not None:
            on_part(result[0])
        if progress is not None:
            progress("sampled parts below level %d" % len(ln), len(sizes), len(which))

    _walk(P, O, cur, len(ln), [(bounds[k], bounds[k + 1]) for k in which], workers, take)
    return bounds, int(cur.elo[n]), sizes


def _add(totals, more, offset):
    """Per-level figures ``totals`` plus ``more``, whose level 0 is level ``offset``."""
    out = list(totals) + [0] * max(0, offset + len(more) - len(totals))
    for k, v in enumerate(more):
        out[offset + k] += v
    return out
