"""Two-player Coup's public tree built in pieces: a trunk and parts, each walked on its own.

:func:`coupsolve.trees.classwalk.build.build_class_tree` walks the whole tree level by level, holding two whole
levels beside the tree; at turn limit 4 that walk alone needs more than a machine of 16 GiB has.
The levels below a level ``d`` fall into independent parts (:mod:`coupsolve.trees.classwalk.count`, which counts them that way), and a part
walked from its roots' entries, buckets and anchor matrices writes exactly the nodes, entries,
information sets and terminal matrices the whole walk writes below those roots, in the same order. So
:func:`build_class_pieces` walks the trunk (levels ``0 .. d - 1``) and then each part with the tree's
writer on, into arrays of the part's own, and hands back the pieces
:func:`solvers.pieces.split.split` would cut from the whole tree (:class:`~solvers.pieces.split.Piece`:
local node, entry, information-set and matrix numbers), without the whole tree or its walk ever being
held: the build needs the pieces plus one part's walk. A test checks every array of every piece
against ``split`` of the level-by-level build.

Numbering: the trunk's information sets and actions come first, then each part's in the order of its
roots (the whole walk numbers them level by level instead, so the ids differ from
``build_class_tree``'s; each piece's ``infosets`` and ``actions`` are slices of this numbering, which
is what :class:`solvers.PublicPieces` takes). A matrix
read by several pieces is copied into each, as ``split`` does. Beside the pieces it keeps what the
exact analysis reads (:mod:`coupsolve.analysis.pieces`): every piece's entries' hands (uint16, the
trunk's leaves' are their parts' roots') and every information set's context (``tables.CTX_DTYPE``),
6 bytes an entry-and-context more. With ``spill`` these, the keys and the
action ids (gigabytes at turn limit 4: docs/research/design-measurements.md) are written to disk part by part as the walk makes them
(:class:`coupsolve.trees.pieces.arrays.PartArrays`) and mapped back copy-on-write: a build and a solve hold
only the pieces and their table.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from types import SimpleNamespace
from typing import NamedTuple

import numpy as np

from solvers.kinds import TERMINAL
from solvers.memory import format_bytes, real_dtype, releases_free_memory
from solvers.trees.publictree import PublicFlat, check_num_actions, estimate_public_tree_bytes, public_flat
from solvers.trees.matrices import sparse_bytes
from solvers.pieces.local import estimate_pieces_solve_bytes
from solvers.pieces.split import Piece, piece_matrices, check_bounds

from coupsolve.trees.classwalk import build as B
from coupsolve.trees.classwalk import children as CC
from coupsolve import engine as E
from coupsolve.trees.classwalk.count import part_bounds, part_level, part_output, walk_above
from coupsolve.trees.pieces.arrays import PartArrays
from coupsolve.rules import Rules

__all__ = ["ClassPieces", "PiecesPlan", "build_class_pieces"]


class ClassPieces(NamedTuple):
    """The pieces of a public tree (module docstring) and its information sets' keys and actions, in
    the pieces' numbering (trunk first)."""

    rules: Rules
    trunk: Piece
    parts: list
    bounds: np.ndarray  # int64: each part's first node among the cut level's, then their number
    infoset_hash: np.ndarray  # uint64, per information set
    infoset_actions: np.ndarray  # int32, per action
    infoset_context: np.ndarray  # CTX_DTYPE, per information set
    entry_hand: list  # uint16 arrays: per piece (the trunk's, then the parts'), per entry

    @property
    def num_infosets(self):
        return self.infoset_hash.shape[0]

    @property
    def num_actions(self):
        return self.infoset_actions.shape[0]


class PiecesPlan(NamedTuple):
    """A build in pieces planned from a count by parts (:func:`coupsolve.trees.classwalk.count.count_class_tree`
    with ``split_depth``: its ``parts``): cut where the count cut, at its parts' bounds, with
    ``workers`` parts walked at a time; and the memory of the build and of a solve, estimated from
    the parts' figures before anything is allocated (checked at turn limit 2 in
    ``tests/test_classpieces.py``)."""

    size: object  # the ClassSize of a count by parts
    depth: int
    bounds: np.ndarray
    workers: int = 1

    @property
    def rules(self):
        """The rules of the tree (the count's)."""
        return self.size.rules

    @classmethod
    def of(cls, size, workers=1):
        """The plan of the count ``size``; ``ValueError`` for a count that was not by parts."""
        if not size.parts:
            raise ValueError("a build in pieces is planned from a count by parts (split_depth)")
        parts = sorted(size.parts, key=lambda q: q.first)
        depth = len(size.level_nodes) - max(q.levels for q in parts)
        bounds = np.array([q.first for q in parts] + [parts[-1].first + parts[-1].roots], np.int64)
        return cls(size, depth, bounds, int(workers))

    def _trunk(self):
        """The trunk's ``(entries, actions)``: the levels above the cut, and its leaves' entries."""
        s, d = self.size, self.depth
        above = int(np.sum(s.level_entries[:d]))
        return above + int(s.level_entries[d]), s.actions - sum(q.actions for q in s.parts)

    def tree_bytes(self) -> int:
        """Bytes of the pieces, their information-set table, keys and the analysis's arrays: the
        tree's layout (action ids included), with the cut level's nodes and entries held twice (the
        trunk's leaves, the parts' roots), a matrix read by several pieces copied into each, per
        information set 13 bytes of table and key beside a piece's 17, and the analysis's hands (2
        bytes an entry) and contexts (4 bytes an information set). Of these, :meth:`extra_bytes`
        wait on disk through the build and the solve."""
        s, d = self.size, self.depth
        # the parts' matrices, copies included, are nearly all (turn limit 4: 114.6 million cells
        # against 114.4 in the whole tree); the trunk's terminals are few
        cells = max(s.pair_cells, sum(q.pair_cells for q in s.parts))
        mats = max(s.matrices, sum(q.matrices for q in s.parts))
        return (estimate_public_tree_bytes(s.nodes + int(s.level_nodes[d]),
                                           s.entries + int(s.level_entries[d]), 0, 0, s.infosets,
                                           s.actions, 0)
                + sparse_bytes(cells, s.row_entries - s.matrices, mats)
                + (1 + 4 + _KEY_BYTES + _CTX_BYTES) * s.infosets
                + _HAND_BYTES * (s.entries + int(s.level_entries[d])))

    def solve_bytes(self, precision="float64", predictive=False) -> int:
        """:func:`solvers.pieces.local.estimate_pieces_solve_bytes` of these pieces."""
        largest = (max(q.entries for q in self.size.parts), max(q.actions for q in self.size.parts))
        return estimate_pieces_solve_bytes(self.size.actions, self._trunk(), largest, precision,
                                           predictive)

    def build_bytes(self) -> int:
        """Beside the pieces: the walk of the levels above the cut, then ``workers`` parts' walks."""
        s, d = self.size, self.depth
        return max(B.level_walk_bytes(s.level_nodes[:d + 1], s.level_entries[:d + 1]),
                   self.workers * max(q.work_bytes for q in s.parts))

    def extra_bytes(self) -> int:
        """The hands, keys, action ids and contexts (within :meth:`tree_bytes`), which the build
        writes to disk as it walks (``build_class_pieces(spill=True)``) and a solve never reads."""
        s = self.size
        return ((_CTX_BYTES + _KEY_BYTES) * s.infosets + _ACTION_BYTES * s.actions
                + _HAND_BYTES * (s.entries + int(s.level_entries[self.depth])))

    def analysis_bytes(self, precision="float64") -> int:
        """Beside the pieces, their exact analysis after a solve (:mod:`coupsolve.analysis.pieces`):
        the solve's average policy, three float64 arrays per entry of the largest part (five when
        the cut is above the first turn) and nine of the trunk (its own reach and four values, and
        its leaves' four values)."""
        real = np.dtype(real_dtype(precision)).itemsize
        largest = max(q.entries for q in self.size.parts)
        return real * self.size.actions + 8 * (3 * largest + 9 * self._trunk()[0])

    def peak_bytes(self, precision="float64", predictive=False) -> int:
        """The largest of: the pieces but their extras (on disk) and their build's walks; the same
        pieces and a solve; the pieces, their extras but the keys read, and the analysis after it."""
        tree, held = self.tree_bytes(), self.tree_bytes() - self.extra_bytes()
        keys = _KEY_BYTES * self.size.infosets  # saved with the strategy, let go before the analysis
        return max(held + self.build_bytes(), held + self.solve_bytes(precision, predictive),
                   tree - keys + self.analysis_bytes(precision))

    def record(self) -> dict:
        """Where the tree was cut and what its rebuild needs, for a strategy file's options
        (``coupsolve analyse`` rebuilds the pieces from it, with no count)."""
        return {"depth": int(self.depth), "bounds": [int(b) for b in self.bounds],
                "tree_bytes": self.tree_bytes(), "build_bytes": self.build_bytes(),
                "analysis_bytes": self.analysis_bytes("float64"),
                # the analysis's passes alone: analyse has loaded the policy before it asks
                "pass_bytes": self.analysis_bytes("float64") - 8 * self.size.actions}

    def describe(self) -> str:
        return (f"in pieces: cut at level {self.depth} into a trunk and {len(self.bounds) - 1} parts "
                f"({self.workers} walked at a time); {format_bytes(self.tree_bytes())} of pieces")


_HAND_BYTES, _CTX_BYTES = np.dtype(np.uint16).itemsize, np.dtype(E.CTX_DTYPE).itemsize
_KEY_BYTES, _ACTION_BYTES = 8, 4  # infoset_hash (uint64), infoset_actions (int32)


def _arrays(O, G, level_nodes):
    """The written arrays of a walk's output ``O`` (:func:`coupsolve.trees.classwalk.build.written`): copies of
    the :class:`~solvers.trees.publictree.PublicFlat` fields but the matrices, and of the hands (``a``), the
    keys, action ids and contexts (``extra``), and every matrix the walk held (``mats``, views:
    :func:`_piece` copies those it keeps)."""
    w = B.written(O, G, level_nodes)
    mats = SimpleNamespace(**{k: w.pop(k) for k in _MATRIX_FIELDS})
    a = {k: w[k].copy() for k in PublicFlat._fields + ("entry_hand",) if k in w}
    extra = SimpleNamespace(**{k: w[k].copy() for k in ("infoset_hash", "infoset_actions",
                                                        "infoset_context")})
    return a, mats, extra


_MATRIX_FIELDS = ("matrix_start", "matrix_rowp", "matrix_cols", "row_ptr", "cell_col", "matrix_data")


def _piece(a, mats, roots, levels, infoset0, action0, cut=False):
    """A :class:`Piece` of the arrays ``a`` keeping only the matrices its terminals read (``cut``: the
    last level's nodes are leaves, whatever their kind, as :func:`solvers.pieces.split.split` has
    them), and its entries' hands."""
    term = a["node_kind"] == TERMINAL
    a["child_start"] = np.where(term, -1, a["child_start"])
    if cut:
        term[a["level_start"][-2]:] = False
    piece_matrices(mats, a, term)
    flat = public_flat(a)
    check_num_actions(flat.infoset_num_actions, "the class walk")  # the walk writes int8 slots
    ni, na = flat.infoset_player.shape[0], int(flat.infoset_num_actions.sum())
    return (Piece(flat, slice(infoset0, infoset0 + ni), slice(action0, action0 + na), roots, levels),
            a["entry_hand"])


def _trunk(O, G, cur, n, level_nodes, roots):
    """The trunk: the levels walked, and level ``d``'s ``n`` nodes (``cur``) as its leaves, whose
    kinds, players, payoffs and hands the parts fill in. Returns ``(arrays, matrices, extra)``."""
    a, mats, extra = _arrays(O, G, level_nodes)
    e0, ne = int(a["entry_start"][-1]), int(cur.elo[n])
    grow = dict(node_kind=np.zeros(n), node_player=np.full(n, -1), child_start=np.full(n, -1),
                num_children=np.zeros(n), num_entries0=cur.ne0[:n], term_matrix=np.full(n, -1),
                term_scale=np.zeros(n), entry_parent=cur.e_par[:ne], entry_slot=cur.e_slot[:ne],
                entry_ref=np.full(ne, -1), entry_hand=np.zeros(ne))
    for k, more in grow.items():
        a[k] = np.concatenate((a[k], np.asarray(more, a[k].dtype)))
    a["entry_start"] = np.concatenate((a["entry_start"][:-1], e0 + cur.elo[:n + 1]))
    a["level_start"] = np.concatenate((a["level_start"], [a["level_start"][-1] + n]))
    return a, mats, extra


class TrunkWalk(NamedTuple):
    """The walk of the levels above the cut (:func:`walk_trunk`): what a part's walk starts from
    (``P``, ``cur``, ``O``, ``e0``) and the trunk's arrays, whose leaves the parts fill in."""

    P: object
    cur: object  # the cut level
    O: object  # the walk's output: the anchor matrices the cut level reads
    n: int  # nodes at the cut
    e0: int  # the tree's entries above the cut
    a: dict  # the trunk's arrays (:func:`_trunk`)
    mats: object
    extra: object
    levels: int

    def piece(self):
        """``(trunk Piece, its entries' hands)`` once :func:`fill_leaves` has filled every leaf."""
        roots = (self.e0, self.e0 + int(self.cur.elo[self.n]))
        return _piece(self.a, self.mats, roots, self.levels + 1, 0, 0, cut=True)

    def part_roots(self, lo, hi):
        """The tree's entries that are the roots of the part of the cut's nodes ``lo .. hi - 1``."""
        return self.e0 + int(self.cur.elo[lo]), self.e0 + int(self.cur.elo[hi])


def walk_trunk(rules, depth, progress=None) -> TrunkWalk:
    """Walk ``rules``' public tree down to level ``depth`` (the cut) with the writer on."""
    P, cur, O, G, n, ln = walk_above(rules, depth, True, progress)
    e0 = int(G[CC.G_ENTRIES])
    a, mats, extra = _trunk(O, G, cur, n, ln, (e0, e0 + int(cur.elo[n])))
    return TrunkWalk(P, cur, O, n, e0, a, mats, extra, len(ln))


def fill_leaves(a, n, lo, hi, leaves):
    """The trunk's leaves ``lo .. hi - 1`` (of ``n``) take their kinds, players and payoffs from the
    part whose roots they are (:meth:`Walker.walk`'s ``leaves``)."""
    for name, v in leaves.items():
        a[name][len(a[name]) - n + lo:len(a[name]) - n + hi] = v


@releases_free_memory
def build_class_pieces(rules: Rules, depth: int, parts: int = 64, *, bounds=None, workers: int = 1,
                       progress=None, spill=False) -> ClassPieces:
    """The pieces of ``rules``' public tree cut at level ``depth`` (module docstring): the trunk and
    at most ``parts`` parts, contiguous runs of level ``depth``'s nodes balanced by their entries, or
    cut at ``bounds`` (the first node of each part, then the level's number of nodes). ``workers``
    parts are walked at a time, on threads (the walk releases the GIL), each with its own walk's
    memory; the pieces are the same whatever their number. With ``spill`` (True, or a folder) the
    hands, keys, action ids and contexts go to disk as each part is walked and come back mapped
    copy-on-write (:class:`coupsolve.trees.pieces.arrays.PartArrays`): a solve never reads them."""
    if not (isinstance(depth, (int, np.integer)) and depth >= 1) or int(parts) < 1 or \
            int(workers) < 1:
        raise ValueError(f"depth, parts and workers must be at least 1, got {depth}, {parts} and "
                         f"{workers}")
    T = walk_trunk(rules, depth, progress)
    P, cur, O, n, e0, a = T.P, T.cur, T.O, T.n, T.e0, T.a
    leaf_entries = len(a["entry_hand"]) - int(cur.elo[n])
    cuts = part_bounds(cur, n, parts) if bounds is None else check_bounds(bounds, n, depth)
    stop, local, walked = threading.Event(), threading.local(), {}
    held = PartArrays(disk=bool(spill), folder=spill if isinstance(spill, (str, os.PathLike)) else None)

    def run(k, lo, hi):
        if not hasattr(local, "walker"):
            local.walker = Walker(P, O, cur, stop, depth, e0)
        return k, lo, hi, local.walker.walk(lo, hi)

    try:
        with ThreadPoolExecutor(max_workers=int(workers)) as pool:
            todo = {pool.submit(run, k, int(lo), int(hi))
                    for k, (lo, hi) in enumerate(zip(cuts[:-1], cuts[1:]))}
            try:
                while todo:
                    done, todo = wait(todo, return_when=FIRST_COMPLETED)
                    for f in done:
                        k, lo, hi, (piece, leaves, pextra) = f.result()
                        fill_leaves(a, n, lo, hi, leaves)
                        a["entry_hand"][leaf_entries + int(cur.elo[lo]):
                                        leaf_entries + int(cur.elo[hi])] = piece[1][:cur.elo[hi] - cur.elo[lo]]
                        held.add(k, entry_hand=piece[1], **vars(pextra))
                        walked[k] = piece[0]
                        if progress is not None:
                            progress("parts below level %d" % depth, len(walked), len(cuts) - 1)
            except BaseException:
                stop.set()
                raise
        trunk, trunk_hand = T.piece()
        held.add(-1, entry_hand=trunk_hand, **vars(T.extra))
        return _assemble(rules, trunk, walked, cuts, held)
    finally:
        held.discard()


def _assemble(rules, trunk, walked, cuts, held):
    """The :class:`ClassPieces` of the trunk and the parts ``walked`` (by number), their hands and
    extras gathered from ``held`` in the pieces' order; their keys checked."""
    order = [-1] + list(range(len(walked)))
    sizes = {name: [held.length(k, name) for k in order] for name in
             ("entry_hand", "infoset_hash", "infoset_actions")}
    i0, a0 = (np.cumsum([0] + sizes[name]) for name in ("infoset_hash", "infoset_actions"))
    out = [walked.pop(k)._replace(infosets=slice(int(i0[k + 1]), int(i0[k + 2])),
                                  actions=slice(int(a0[k + 1]), int(a0[k + 2])))
           for k in range(len(walked))]  # numbered in the order of their roots, after the trunk
    cat = {name: held.gather(name, order) for name in ("entry_hand", "infoset_hash",
                                                        "infoset_actions", "infoset_context")}
    keys = held.read("infoset_hash")  # a plain read: the mapped pages stay untouched
    B._check_keys(cat["infoset_hash"] if keys is None else keys)
    del keys
    ends = np.cumsum([0] + sizes["entry_hand"])
    hands = [cat["entry_hand"][lo:hi] for lo, hi in zip(ends[:-1], ends[1:])]
    return ClassPieces(rules, trunk, _even_levels(out), cuts, cat["infoset_hash"],
                       cat["infoset_actions"], cat["infoset_context"], hands)


class Walker:
    """One thread's walk of parts into pieces (its own scratch arrays, and table stamps that only
    grow), as :class:`coupsolve.trees.classwalk.count.PartWorker` counts them."""

    def __init__(self, P, O, cur, stop, depth, e0):
        self.P, self.O, self.cur, self.stop, self.depth, self.e0 = P, O, cur, stop, depth, e0
        self.S, self.stamp = B._scratch(), 0

    def _check(self, *_):
        if self.stop.is_set():
            raise KeyboardInterrupt

    def walk(self, lo, hi):
        """The part of the cut level's nodes ``lo .. hi - 1``: ``(piece, its roots' kinds, players
        and payoffs, its keys, action ids and contexts)``; the piece's ids are numbered later."""
        level = part_level(self.cur, lo, hi)
        Q, n0, c0, r0 = part_output(self.O, level, fill=True)
        H = np.zeros(CC.NG, np.int64)
        H[CC.G_MATRICES], H[CC.G_CELLS], H[CC.G_ROWS], H[CC.G_STAMP] = n0, c0, r0, self.stamp
        _, _, self.S, Q, pln, _, _, _ = B._levels(self.P, level, hi - lo, Q, self.S, H, True,
                                                  self._check, first=self.depth)
        self.stamp = int(H[CC.G_STAMP])
        pa, pmats, pextra = _arrays(Q, H, pln)
        roots = (self.e0 + int(self.cur.elo[lo]), self.e0 + int(self.cur.elo[hi]))
        leaves = {k: pa[k][:hi - lo].copy() for k in ("node_kind", "node_player", "term_scale")}
        return _piece(pa, pmats, roots, len(pln), 0, 0), leaves, pextra


def _even_levels(parts):
    """``parts`` with empty levels after their last, so that all have as many levels as the deepest
    (as :func:`solvers.pieces.split.split` cuts them: a part's levels are the tree's below the cut)."""
    deepest = max(q.num_levels for q in parts)
    out = []
    for q in parts:
        ls = q.flat.level_start
        ls = np.concatenate((ls, np.full(deepest - q.num_levels, ls[-1], ls.dtype)))
        out.append(q._replace(flat=q.flat._replace(level_start=ls), num_levels=deepest))
    return out
