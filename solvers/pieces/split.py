"""A public tree cut at a public depth: a *trunk* and *parts* that iterate apart.

Every pass of :mod:`solvers.public._kernel` works node by node, and a node reads only its own entries
and its children's; an information set lies at one public node. So a public tree cut at level ``d``
falls into independent pieces:

- the **trunk**, levels ``0 .. d``: its nodes above level ``d`` and their information sets; the nodes
  of level ``d`` are its leaves, whose entries' values it is given;
- **parts**, each a contiguous run of level ``d``'s nodes with everything below them (a forest: level 0
  of a part is its roots), with their information sets, terminals and chance matrices.

One pass of the whole tree is then: the trunk's forward pass down to level ``d``
(:func:`~solvers.public._kernel.forward_levels`), each part's forward and backward pass from the reach
of its roots' entries (a contiguous run of the tree's entries), the trunk's backward pass from the
values of those entries (:func:`~solvers.public._kernel.backward_levels`). Each node does exactly the
arithmetic it does in the whole tree, so the iterates are the same numbers.

A :class:`Piece` is a :class:`~solvers.trees.publictree.PublicFlat` of the piece's nodes, level by level (node
and entry indices are the piece's own; ``entry_parent`` is a local index, so it needs no change), its
information sets in the tree's order (``infosets``: their ids in the tree) and its actions' positions
in the tree's per-action arrays (``actions``): index arrays, or slices when they are contiguous
(pieces built directly, and :func:`renumbered`, which :class:`~solvers.pieces.local.PublicPieces`
needs). A matrix shared by terminals of several pieces is copied
into each.

Parts are balanced by the entries below their roots (:func:`subtree_entries`), the measure of a part's
memory and time.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from solvers.kinds import DECISION, TERMINAL
from solvers.trees.publictree import PublicFlat, public_flat

__all__ = ["Piece", "split", "renumbered", "check_bounds", "choose_depth", "subtree_entries",
           "piece_bytes", "pack_matrices", "count", "ids"]


class Piece(NamedTuple):
    """A trunk or a part of a cut public tree (module docstring)."""

    flat: PublicFlat
    infosets: object  # per local information set its id in the tree: int64 array, or a slice
    actions: object  # per local action its position in the tree's per-action arrays: the same
    roots: tuple  # (first, end) of the tree's entries that are the piece's level 0 (parts) or its
    # leaves' entries at the cut (trunk)
    num_levels: int  # levels of the piece (the trunk's includes the level of its leaves)


def piece_bytes(piece):
    """Bytes held by a piece's arrays."""
    return sum(a.nbytes for a in piece.flat) + sum(getattr(x, "nbytes", 0)
                                                   for x in (piece.infosets, piece.actions))


def count(ids):
    """How many ids a piece's ``infosets`` or ``actions`` hold (an array, or a slice)."""
    return ids.stop - ids.start if isinstance(ids, slice) else ids.shape[0]


def renumbered(trunk, parts):
    """The pieces with their information sets and actions numbered one piece after the other (the
    trunk's first, then each part's), as slices; and, per information set and per action of the new
    numbering, its id in the old (int64). A policy ``p`` of the old numbering is ``p[actions]`` in
    the new."""
    pieces, out, first = [trunk] + list(parts), [], [0, 0]
    for q in pieces:
        n = (count(q.infosets), count(q.actions))
        out.append(q._replace(infosets=slice(first[0], first[0] + n[0]),
                              actions=slice(first[1], first[1] + n[1])))
        first = [first[0] + n[0], first[1] + n[1]]
    return (out[0], out[1:], np.concatenate([ids(q.infosets) for q in pieces]),
            np.concatenate([ids(q.actions) for q in pieces]))


def ids(x):
    """A piece's ``infosets`` or ``actions`` as an int64 array (a slice spelled out)."""
    return np.arange(x.start, x.stop, dtype=np.int64) if isinstance(x, slice) else \
        np.asarray(x, np.int64)


def _kids(f):
    """Children per node (0 at terminals, whatever ``num_children`` holds there) and their running
    sum: the children of nodes ``a .. b-1`` are nodes ``1 + before[a] .. 1 + before[b] - 1``."""
    kids = np.where(f.node_kind != TERMINAL, f.num_children, 0).astype(np.int64)
    before = np.zeros(kids.shape[0] + 1, np.int64)
    np.cumsum(kids, out=before[1:])
    return kids, before


def subtree_entries(f, level):
    """Entries (int64) below each node of ``level`` (its own included), in the level's order."""
    ls = f.level_start
    kids, _ = _kids(f)
    size = np.diff(f.entry_start).astype(np.int64)
    for d in range(ls.shape[0] - 3, level - 1, -1):
        lo, hi = ls[d], ls[d + 1]
        inner = np.flatnonzero(kids[lo:hi] > 0) + lo
        if inner.shape[0] == 0:
            continue
        below = size[ls[d + 1]:ls[d + 2]]
        starts = f.child_start[inner] - ls[d + 1]
        size[inner] += np.add.reduceat(below, starts)
    return size[ls[level]:ls[level + 1]]


def _ranges(f, lo, hi, last):
    """Node ranges per level, from ``(lo, hi)`` at one level down to level ``last`` (included)."""
    _, before = _kids(f)
    out = [(int(lo), int(hi))]
    for _ in range(last):
        a, b = out[-1]
        out.append((1 + int(before[a]), 1 + int(before[b])))
    return out


def _cat(a, ranges):
    return np.concatenate([a[lo:hi] for lo, hi in ranges]) if ranges else a[:0]


def _piece(f, ranges, cut, roots):
    """The piece of ``f`` made of node ``ranges`` (one per level); ``cut``: its last level's nodes
    are leaves whose children and information sets belong to others (the trunk)."""
    nodes = [hi - lo for lo, hi in ranges]
    ls = np.zeros(len(ranges) + 1, np.int64)
    np.cumsum(nodes, out=ls[1:])
    a = {name: _cat(getattr(f, name), ranges) for name in
         ("node_kind", "node_player", "child_start", "num_children", "num_entries0", "term_matrix",
          "term_scale")}
    shift = np.zeros(ls[-1], np.int64)  # what turns a child index of the tree into the piece's
    for k in range(len(ranges) - 1):
        shift[ls[k]:ls[k + 1]] = ls[k + 1] - ranges[k + 1][0]
    inner = a["node_kind"] != TERMINAL
    term = ~inner
    if cut:  # the leaves at the cut: their children, terminals and information sets are the parts'
        inner[ls[-2]:] = False
        term[ls[-2]:] = False
        a["num_children"][ls[-2]:] = 0
    a["child_start"] = np.where(inner, a["child_start"] + shift, -1)
    e_ranges = [(int(f.entry_start[lo]), int(f.entry_start[hi])) for lo, hi in ranges]
    counts = [hi - lo for lo, hi in e_ranges]
    es = np.concatenate([np.diff(f.entry_start[lo:hi + 1]) for lo, hi in ranges])
    entry_start = np.zeros(ls[-1] + 1, np.int64)
    np.cumsum(es, out=entry_start[1:])
    for name in ("entry_parent", "entry_slot"):
        a[name] = _cat(getattr(f, name), e_ranges)
    ref = _cat(f.entry_ref, e_ranges)  # information sets at decision nodes, rows at terminals
    if cut:  # the leaves' information sets and matrices are the parts'
        ref[sum(counts[:-1]):] = -1
    infoset = np.repeat(a["node_kind"] == DECISION, es) & (ref >= 0)
    owned = np.unique(ref[infoset]).astype(np.int64)
    a["entry_ref"] = np.where(infoset, np.searchsorted(owned, ref), ref)
    m = f.infoset_num_actions[owned].astype(np.int64)
    offset = np.concatenate(([0], np.cumsum(m)[:-1])).astype(np.int64) if m.shape[0] else m
    actions = np.repeat(f.infoset_offset[owned] - offset, m) + np.arange(int(m.sum()))
    node_lo = np.array([lo for lo, _ in ranges], np.int64)
    gn = f.infoset_node[owned]
    level = np.searchsorted(f.level_start, gn, side="right") - 1 - _first_level(f, ranges)
    local_node = gn - node_lo[level] + ls[level]
    piece_matrices(f, a, term)
    flat = public_flat(dict(
        level_start=ls, entry_start=entry_start, infoset_player=f.infoset_player[owned],
        infoset_num_actions=m, infoset_offset=offset, infoset_count=f.infoset_count[owned],
        infoset_node=local_node, **a))
    return Piece(flat, owned, actions.astype(np.int64), roots, len(ranges))


def _first_level(f, ranges):
    return int(np.searchsorted(f.level_start, ranges[0][0], side="right") - 1)


def pack_matrices(matrix_start, used):
    """Matrices ``used`` (ids, ascending) of a tree's ``matrix_start`` (or ``matrix_rowp``), packed one
    after the other in that order: ``(start, cells)``, their new starts (``len(used) + 1``) and, per
    packed cell (row pointer), the index of its cell (row pointer) in the tree's arrays."""
    length = matrix_start[used + 1] - matrix_start[used]
    start = np.zeros(used.shape[0] + 1, np.int64)
    np.cumsum(length, out=start[1:])
    return start, np.repeat(matrix_start[used] - start[:-1], length) + np.arange(int(start[-1]))


def piece_matrices(f, a, term):
    """The matrices of the piece's terminals ``term`` (bool per node), copied and renumbered (into
    ``a``)."""
    used = np.unique(a["term_matrix"][term]).astype(np.int64)
    a["term_matrix"] = np.where(term, np.searchsorted(used, np.maximum(a["term_matrix"], 0)), -1)
    a["matrix_start"], cells = pack_matrices(f.matrix_start, used)
    a["matrix_rowp"], rows = pack_matrices(f.matrix_rowp, used)
    a["matrix_cols"] = f.matrix_cols[used]
    a["matrix_data"], a["cell_col"], a["row_ptr"] = f.matrix_data[cells], f.cell_col[cells], \
        f.row_ptr[rows]


def split(tree, depth, parts, bounds=None):
    """Cut ``tree`` (a :class:`~solvers.trees.publictree.PublicTree`) at level ``depth`` into a trunk and at most
    ``parts`` parts, balanced by entries, or cut at ``bounds`` (the first node of each part among the
    level's nodes, then their number).

    Returns
    -------
    (Piece, list of Piece)
        The trunk and the parts, in the order of their roots.

    Raises
    ------
    ValueError
        ``depth`` not a level with nodes below it, or ``parts`` < 1.
    """
    f = tree.flat
    levels = f.level_start.shape[0] - 1
    if not 1 <= depth <= levels - 1:
        raise ValueError(f"split depth must be 1 .. {levels - 1} (the tree has {levels} levels), "
                         f"got {depth}")
    if parts < 1:
        raise ValueError(f"parts must be at least 1, got {parts}")
    lo, hi = int(f.level_start[depth]), int(f.level_start[depth + 1])
    cut_entries = (int(f.entry_start[lo]), int(f.entry_start[hi]))
    trunk = _piece(f, [(int(f.level_start[d]), int(f.level_start[d + 1])) for d in range(depth + 1)],
                   True, cut_entries)
    if bounds is None:
        cost = np.cumsum(subtree_entries(f, depth))
        cuts = np.searchsorted(cost, cost[-1] * np.arange(1, parts) / parts, side="left") + 1
        edges = np.unique(np.concatenate(([0], np.minimum(cuts, hi - lo), [hi - lo])))
    else:
        edges = check_bounds(bounds, hi - lo, depth)
    out = []
    for a, b in zip(edges[:-1], edges[1:]):
        ranges = _ranges(f, lo + a, lo + b, levels - 1 - depth)
        roots = (int(f.entry_start[lo + a]), int(f.entry_start[lo + b]))
        out.append(_piece(f, ranges, False, roots))
    return trunk, out


def check_bounds(bounds, nodes, depth):
    """``bounds`` (each part's first node among the ``nodes`` of level ``depth``, then ``nodes``) as
    int64, or ``ValueError`` when they do not increase from 0 to ``nodes``."""
    edges = np.asarray(bounds, np.int64)
    if edges.ndim != 1 or edges.shape[0] < 2 or edges[0] != 0 or edges[-1] != nodes or \
            np.any(np.diff(edges) <= 0):
        raise ValueError(f"bounds must increase from 0 to the {nodes} nodes of level {depth}")
    return edges


def choose_depth(tree, workers):
    """The shallowest level with at least ``8 * workers`` public nodes (enough to balance the parts),
    or the deepest level that has children."""
    counts = np.diff(tree.level_start)
    levels = counts.shape[0]
    for d in range(1, levels - 1):
        if counts[d] >= 8 * workers:
            return d
    return levels - 2
