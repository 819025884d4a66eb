"""Two-player Coup's public tree built in pieces: a trunk and parts, each walked on its own.

:func:`coupsolve.classbuild.build_class_tree` walks the whole tree level by level, holding two whole
levels beside the tree; at turn limit 4 that walk alone needs about 20 GiB. The levels below a level
``d`` fall into independent parts (:mod:`coupsolve.classcount`, which counts them that way), and a part
walked from its roots' entries, buckets and anchor matrices writes exactly the nodes, entries,
information sets and terminal matrices the whole walk writes below those roots, in the same order. So
:func:`build_class_pieces` walks the trunk (levels ``0 .. d - 1``) and then each part with the tree's
writer on, into arrays of the part's own, and hands back the pieces
:func:`solvers.public_split.split` would cut from the whole tree (:class:`~solvers.public_split.Piece`:
local node, entry, information-set and matrix numbers), without the whole tree or its walk ever being
held: the build needs the pieces plus one part's walk. A test checks every array of every piece
against ``split`` of the level-by-level build.

Numbering: the trunk's information sets and actions come first, then each part's in the order of its
roots (the whole walk numbers them level by level instead, so the ids differ from
``build_class_tree``'s; each piece's ``infosets`` and ``actions`` are ids in this numbering). A matrix
read by several pieces is copied into each, as ``split`` does. What is not kept: the entries' hands
and the information sets' contexts (the public analysis reads them from a whole tree).
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import NamedTuple

import numpy as np

from solvers.kinds import TERMINAL
from solvers.public import _DTYPES, PublicFlat
from solvers.public_split import Piece, _matrices, check_bounds

from . import classbuild as B
from . import classwalk_children as CC
from .classcount import _bounds, _part_level, _part_out
from .rules import Rules

__all__ = ["ClassPieces", "build_class_pieces"]


class ClassPieces(NamedTuple):
    """The pieces of a public tree (module docstring) and its information sets' keys and actions, in
    the pieces' numbering (trunk first)."""

    rules: Rules
    trunk: Piece
    parts: list
    bounds: np.ndarray  # int64: each part's first node among the cut level's, then their number
    infoset_hash: np.ndarray  # uint64, per information set
    infoset_actions: np.ndarray  # int32, per action

    @property
    def num_infosets(self):
        return self.infoset_hash.shape[0]

    @property
    def num_actions(self):
        return self.infoset_actions.shape[0]


def _arrays(O, G, level_nodes):
    """The written arrays of a walk's output ``O`` (:func:`coupsolve.classbuild.written`): copies of
    the :class:`~solvers.public.PublicFlat` fields but the matrices (``a``), of the keys and of the
    action ids, and every matrix the walk held (``mats``, views: :func:`_piece` copies those it
    keeps)."""
    w = B.written(O, G, level_nodes)
    mats = SimpleNamespace(**{k: w.pop(k) for k in _MATRIX_FIELDS})
    a = {k: w[k].copy() for k in PublicFlat._fields if k in w}
    return a, mats, w["infoset_hash"].copy(), w["infoset_actions"].copy()


_MATRIX_FIELDS = ("matrix_start", "matrix_rowp", "matrix_cols", "row_ptr", "cell_col", "matrix_data")


def _piece(a, mats, roots, levels, infoset0, action0, cut=False):
    """A :class:`Piece` of the arrays ``a`` keeping only the matrices its terminals read (``cut``: the
    last level's nodes are leaves, whatever their kind, as :func:`solvers.public_split.split` has
    them)."""
    term = a["node_kind"] == TERMINAL
    a["child_start"] = np.where(term, -1, a["child_start"])
    if cut:
        term[a["level_start"][-2]:] = False
    _matrices(mats, a, term)
    flat = PublicFlat(**{k: np.ascontiguousarray(a[k], dtype=_DTYPES[k]) for k in PublicFlat._fields})
    ni, na = flat.infoset_player.shape[0], int(flat.infoset_num_actions.sum())
    return Piece(flat, infoset0 + np.arange(ni, dtype=np.int64),
                 action0 + np.arange(na, dtype=np.int64), roots, levels)


def _trunk(O, G, cur, n, level_nodes, roots):
    """The trunk: the levels walked, and level ``d``'s ``n`` nodes (``cur``) as its leaves, whose
    kinds, players and payoffs the parts fill in. Returns ``(arrays, matrices, keys, actions)``."""
    a, mats, keys, acts = _arrays(O, G, level_nodes)
    e0, ne = int(a["entry_start"][-1]), int(cur.elo[n])
    grow = dict(node_kind=np.zeros(n), node_player=np.full(n, -1), child_start=np.full(n, -1),
                num_children=np.zeros(n), num_entries0=cur.ne0[:n], term_matrix=np.full(n, -1),
                term_scale=np.zeros(n), entry_parent=cur.e_par[:ne], entry_slot=cur.e_slot[:ne],
                entry_ref=np.full(ne, -1))
    for k, extra in grow.items():
        a[k] = np.concatenate((a[k], np.asarray(extra, a[k].dtype)))
    a["entry_start"] = np.concatenate((a["entry_start"][:-1], e0 + cur.elo[:n + 1]))
    a["level_start"] = np.concatenate((a["level_start"], [a["level_start"][-1] + n]))
    return a, mats, keys, acts


def build_class_pieces(rules: Rules, depth: int, parts: int = 64, *, bounds=None,
                       progress=None) -> ClassPieces:
    """The pieces of ``rules``' public tree cut at level ``depth`` (module docstring): the trunk and
    at most ``parts`` parts, contiguous runs of level ``depth``'s nodes balanced by their entries, or
    cut at ``bounds`` (the first node of each part, then the level's number of nodes)."""
    if not (isinstance(depth, (int, np.integer)) and depth >= 1) or int(parts) < 1:
        raise ValueError(f"depth and parts must be at least 1, got {depth} and {parts}")
    P, cur, O, S, G, _ = B._start(rules, True)
    cur, n, S, O, ln, _, _, _ = B._levels(P, cur, 1, O, S, G, True, progress, depth=depth)
    if len(ln) < depth or not n:
        raise ValueError(f"the public tree of {rules} has no nodes below level {depth}")
    e0 = int(G[CC.G_ENTRIES])
    a, tmats, keys, acts = _trunk(O, G, cur, n, ln, (e0, e0 + int(cur.elo[n])))
    cuts = _bounds(cur, n, parts) if bounds is None else check_bounds(bounds, n, depth)
    out, all_keys, all_acts = [], [keys], [acts]
    infoset0, action0 = keys.shape[0], acts.shape[0]
    stamp = int(G[CC.G_STAMP])
    for k, (lo, hi) in enumerate(zip(cuts[:-1], cuts[1:])):
        level = _part_level(cur, int(lo), int(hi))
        Q, n0, c0, r0 = _part_out(O, level, fill=True)
        H = np.zeros(CC.NG, np.int64)
        H[CC.G_MATRICES], H[CC.G_CELLS], H[CC.G_ROWS], H[CC.G_STAMP] = n0, c0, r0, stamp
        _, _, S, Q, pln, _, _, _ = B._levels(P, level, int(hi - lo), Q, S, H, True, None,
                                             first=depth)
        stamp = int(H[CC.G_STAMP])
        pa, pmats, pkeys, pacts = _arrays(Q, H, pln)
        roots = (e0 + int(cur.elo[lo]), e0 + int(cur.elo[hi]))
        out.append(_piece(pa, pmats, roots, len(pln), infoset0, action0))
        for name in ("node_kind", "node_player", "term_scale"):  # the trunk's leaves: the roots
            a[name][len(a[name]) - n + lo:len(a[name]) - n + hi] = pa[name][:hi - lo]
        infoset0, action0 = infoset0 + pkeys.shape[0], action0 + pacts.shape[0]
        all_keys.append(pkeys)
        all_acts.append(pacts)
        if progress is not None:
            progress("parts below level %d" % depth, k + 1, len(cuts) - 1)
    trunk = _piece(a, tmats, (e0, e0 + int(cur.elo[n])), len(ln) + 1, 0, 0, cut=True)
    out = _even_levels(out)
    keys = np.concatenate(all_keys)
    B._check_keys(keys)
    return ClassPieces(rules, trunk, out, cuts, keys, np.concatenate(all_acts))


def _even_levels(parts):
    """``parts`` with empty levels after their last, so that all have as many levels as the deepest
    (as :func:`solvers.public_split.split` cuts them: a part's levels are the tree's below the cut)."""
    deepest = max(q.num_levels for q in parts)
    out = []
    for q in parts:
        ls = q.flat.level_start
        ls = np.concatenate((ls, np.full(deepest - q.num_levels, ls[-1], ls.dtype)))
        out.append(q._replace(flat=q.flat._replace(level_start=ls), num_levels=deepest))
    return out
