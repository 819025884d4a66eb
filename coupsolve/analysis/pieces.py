"""The exact analysis of a strategy solved in pieces: :mod:`coupsolve.analysis.public`, piece by piece.

A strategy of turn limit 4 is solved on a public tree held as a trunk and parts
(:class:`solvers.PublicPieces`, built by :func:`coupsolve.trees.pieces.build.build_class_pieces`, which keeps
every entry's hand and every information set's context for this). Its analysis is the whole public
tree's (:func:`coupsolve.analysis.public.analyse_public`: the same table, the same sums), computed the
way a solve iterates the pieces:

1. the trunk's forward pass gives the own reach of its entries, down to its leaves, which are the
   parts' roots;
2. each part in turn, from its roots' reach: its forward pass, then four value passes (every terminal
   paying 1, which gives the counterfactual reach; the strategy's values; each seat's best
   response's), the claims counted over its nodes, the card choice and the first turn's hands where
   the part holds them; its roots' four values go up to the trunk's leaves, and its arrays are let go;
3. the trunk's four value passes from those leaves, and the same counts over its nodes (its leaves,
   which are the parts' roots, are counted in the parts).

So nothing is held per entry beside the pieces but the trunk's arrays and one part's: three float64
arrays as long as the largest part (its reach, its counterfactual reach and one buffer for the other
passes, whose values only its roots keep; five where the part holds card choices or first-turn
decisions, whose values the analysis reads: turn limit 4 cuts below them). Every sum is over the same entries as
on the whole tree, in another order: the figures agree with ``analyse_public`` to rounding
(``tests/test_piecesanalysis.py``).
"""

from __future__ import annotations

from types import SimpleNamespace

import numba
import numpy as np

from solvers import TERMINAL
from solvers.public import forward_levels, no_live, scratch, values_levels
from solvers.kinds import BOTH_PLAYERS
from solvers.public.rep import PRANGE_MIN_ENTRIES

from coupsolve import engine as E
from coupsolve.analysis.history import Analysis
from coupsolve.analysis.claims import CLAIMS
from coupsolve.engine.context import context_field
from coupsolve.analysis.public import _accumulate_public, _choices, _hand_sums, _hand_table, analysis_of

__all__ = ["analyse_pieces_exact"]

_NONE = np.empty(0, np.int32)


class _PieceTree:
    """A piece's arrays as :mod:`coupsolve.analysis.public` reads a tree's: its flat fields, and its
    actions' ids as ``infoset_actions``."""

    def __init__(self, flat, infoset_actions):
        self.flat, self.infoset_actions = flat, infoset_actions

    def __getattr__(self, name):
        return getattr(self.flat, name)


_PASSES = ((True, BOTH_PLAYERS, False), (False, BOTH_PLAYERS, False), (False, 0, True),
           (False, 1, True))  # (every terminal paying 1, player, best response)


def _value_passes(f, sigma, reach, hi, keep, leaf_lo=None, leaves=None, roots=None):
    """The four value passes of the piece ``f`` after its forward pass (``reach``), over levels
    ``0 .. hi - 1``: with every terminal paying 1 (the counterfactual reach, signed: player 1's are
    negated), under ``sigma``, and with seat 0 or 1 best-responding. The trunk's leaves (entries
    ``leaf_lo`` on) are preset from ``leaves``; a part's first ``roots`` values of each go into
    ``leaves`` instead. Returns the four per-entry arrays, the last three only when ``keep`` (else one
    buffer serves them, and None stands for each)."""
    par = f.entry_parent.shape[0] >= PRANGE_MIN_ENTRIES
    X = scratch(f, numba.get_num_threads() if par else 1)
    acc = np.zeros(sigma.shape[0])
    unit = f._replace(term_scale=np.where(f.node_kind == TERMINAL, 1.0, 0.0).astype(f.term_scale.dtype))
    out, buffer = [], None
    for i, (ones, p, best) in enumerate(_PASSES):
        w = np.zeros(reach.shape[0]) if i == 0 or keep or buffer is None else buffer
        if leaf_lo is not None:
            w[leaf_lo:] = leaves[i]
        values_levels(unit if ones else f, sigma, reach, w, acc, X, p, best, _NONE, 0, hi, par)
        if roots is not None:
            leaves[i][roots[0]:roots[1]] = w[:roots[1] - roots[0]]
        if i > 0 and not keep:
            buffer, w = w, None
        out.append(w)
    return out


def _firsts(view):
    """Whether a piece holds card choices or first-turn decisions (whose values the analysis reads)."""
    ctx = view.infoset_context
    turn1 = (context_field(ctx, E.CTX_PHASE) == E.PH_TURN) & (context_field(ctx, E.CTX_TURN) == 1)
    chosen = np.isin(view.tree.infoset_actions, E.ACT_CHOOSE + np.arange(E.NCH))
    return bool(turn1.any() or chosen.any())


class _Totals:
    """The sums of the analysis over the pieces seen so far."""

    def __init__(self, rules, built, tree):
        self.rules, self.built, self.tree = rules, built, tree
        self.acc = np.zeros((rules.turn_limit + 1, 2, len(CLAIMS), 4))
        self.choice, self.choice_value, self.choice_br = {}, {}, {}
        self.hands = {0: {}, 1: {}}

    def view(self, k, piece):
        """Piece ``k`` (0 the trunk) as :mod:`coupsolve.analysis.public` reads a tree."""
        acts = self.tree.infoset_actions[piece.actions]
        return SimpleNamespace(tree=_PieceTree(piece.flat, acts), rules=self.rules,
                               entry_hand=self.built.entry_hand[k],
                               infoset_context=self.built.infoset_context[piece.infosets])

    def add(self, view, sigma, reach, cf, v, br0, br1):
        """Count a piece from its per-entry arrays (``v``, ``br0`` and ``br1`` None when it holds no
        choice and no first turn); ``cf`` signed, made absolute."""
        np.abs(cf, out=cf)  # player 1's are the negated sums (of non-negative terms)
        _accumulate_public(view.tree.flat, view.tree.infoset_actions, view.entry_hand,
                           view.infoset_context, sigma, reach, cf, self.acc)
        if v is None:
            return
        br = {0: br0, 1: br1}
        for mine, total in zip(_choices(view, sigma, reach, cf, v, br),
                               (self.choice, self.choice_value, self.choice_br)):
            total.update(mine)
        _hand_sums(view, reach, cf, v, br, self.hands)


def _sigma(policy, piece):
    return np.ascontiguousarray(policy[piece.actions], np.float64)


def _check(tree, built, policy):
    from solvers import PublicPieces

    if not isinstance(tree, PublicPieces):
        raise ValueError("analyse_pieces_exact() needs the PublicPieces of a build in pieces")
    if built.infoset_context is None or len(built.entry_hand) != len(tree.parts) + 1:
        raise ValueError("analyse_pieces_exact() needs the hands and contexts of the build in pieces "
                         "(coupsolve.trees.pieces.build.build_class_pieces)")
    if built.rules.marked_cards:
        raise ValueError("analyse_pieces_exact(): the marked cards are not covered on the public "
                         "tree (their copies are not in entry_hand)")
    if np.shape(policy) != (tree.num_actions,):
        raise ValueError(f"the policy has shape {np.shape(policy)}, the pieces have "
                         f"{tree.num_actions:,} actions")


def analyse_pieces_exact(tree, built, policy, meta=None, progress=None) -> Analysis:
    """Analyse a flat ``policy`` over a public tree held in pieces, exactly (module docstring).

    Parameters
    ----------
    tree : solvers.PublicPieces
    built : coupsolve.trees.pieces.build.ClassPieces
        Its build, for the rules, the entries' hands and the information sets' contexts (its
        ``trunk`` and ``parts`` may have been let go: ``tree`` holds them).
    policy : array_like, shape (tree.num_actions,)
        In the pieces' numbering (a solve's ``average_policy``, float64 or float32).
    meta : dict, optional
        Copied into ``Analysis.meta``.
    progress : callable, optional
        ``progress(stage, done, total)`` after each part.
    """
    _check(tree, built, policy)
    rules, trunk = built.rules, tree.trunk
    totals = _Totals(rules, built, tree)
    ft, t_sigma = trunk.flat, _sigma(policy, trunk)
    last = trunk.num_levels - 1
    t_reach = np.zeros(ft.entry_parent.shape[0])
    t_reach[:int(ft.entry_start[1])] = 1.0
    forward_levels(ft, t_sigma, t_reach, 0, last, ft.entry_parent.shape[0] >= PRANGE_MIN_ENTRIES,
                   BOTH_PLAYERS, no_live())
    leaf_lo, base = int(ft.entry_start[ft.level_start[last]]), trunk.roots[0]
    leaves = [np.zeros(t_reach.shape[0] - leaf_lo) for _ in range(4)]
    for k, q in enumerate(tree.parts, start=1):
        f, sigma, view = q.flat, _sigma(policy, q), totals.view(k, q)
        lo, hi = q.roots[0] - base, q.roots[1] - base
        reach = np.empty(f.entry_parent.shape[0])
        reach[:hi - lo] = t_reach[leaf_lo + lo:leaf_lo + hi]
        forward_levels(f, sigma, reach, 0, q.num_levels - 1,
                       f.entry_parent.shape[0] >= PRANGE_MIN_ENTRIES, BOTH_PLAYERS, no_live())
        out = _value_passes(f, sigma, reach, q.num_levels, _firsts(view), leaves=leaves,
                            roots=(lo, hi))
        totals.add(view, sigma, reach, *out)
        del reach, out
        if progress is not None:
            progress("analysing the parts", k, len(tree.parts))
    out = _value_passes(ft, t_sigma, t_reach, last, True, leaf_lo, leaves)
    value0 = float(out[1][int(ft.entry_start[0])])
    totals.add(totals.view(0, trunk), t_sigma, t_reach, *out)
    return analysis_of(rules, totals.acc, value0,
                       (totals.choice, totals.choice_value, totals.choice_br),
                       _hand_table(totals.hands), meta)

