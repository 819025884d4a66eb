"""Consecutive parts of a cut public tree run by one runner, one part after the other.

A public tree built in pieces (:class:`solvers.PublicPieces`: often hundreds of parts) has
more parts than a solve has workers. A :class:`Group` is a run of consecutive parts that one worker
owns, and :class:`GroupRunner` runs them one after the other with one set of pass buffers (reach,
values, predictions, action values) as long as its largest part, so that a worker holds its parts'
arrays and per-action state but only one part's per-entry state. To the driver
(:class:`~solvers.pieces.parts.PartsRep`) a group is one part: its roots, information sets and actions
are its parts' in order, and its calls take and give its parts' root reach, values, policies and state
concatenated. The iterates are the parts' own, so those of one process.

:class:`~solvers.pieces.local.PiecesRep` runs all the parts of a ``PublicPieces`` as one group in this
process; :class:`~solvers.pieces.ray.RayBackend` gives each Ray actor a group (a part of a tree it cut
itself is a group of one).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from solvers.history.passes import normalize_average
from solvers.pieces.parts import PieceRunner
from solvers.pieces.split import count, piece_bytes
from solvers.memory import real_dtype

__all__ = ["Group", "GroupRunner", "deal", "group_bytes", "groups", "pass_buffer_bytes"]

#: The per-action state a runner keeps between passes, in this order.
STATE = ("sigma", "regret", "cumulative")


class Group(NamedTuple):
    """Consecutive parts (module docstring)."""

    pieces: tuple
    infosets: object  # the parts' ids in the tree, in order: a slice when they follow each other
    actions: object
    roots: tuple  # (first, end) of the tree's entries at the cut that are the parts' roots


def _ids(pieces, name):
    ids = [getattr(q, name) for q in pieces]
    if len(ids) == 1:
        return ids[0]
    if all(isinstance(s, slice) for s in ids) and \
            all(a.stop == b.start for a, b in zip(ids[:-1], ids[1:])):
        return slice(ids[0].start, ids[-1].stop)
    return np.concatenate([np.arange(s.start, s.stop) if isinstance(s, slice) else s for s in ids])


def group(pieces):
    """The :class:`Group` of consecutive parts ``pieces`` (their roots must follow each other)."""
    pieces = tuple(pieces)
    if not pieces or any(a.roots[1] != b.roots[0] for a, b in zip(pieces[:-1], pieces[1:])):
        raise ValueError("a group is one or more parts whose roots follow each other")
    return Group(pieces, _ids(pieces, "infosets"), _ids(pieces, "actions"),
                 (pieces[0].roots[0], pieces[-1].roots[1]))


def _cost(piece):
    """What a part's pass costs, roughly: its entries and actions."""
    return piece.flat.entry_parent.shape[0] + count(piece.actions)


def deal(cost, k):
    """Bounds (int array, from 0 to ``len(cost)``) of at most ``k`` runs of consecutive items of
    costs ``cost``: a run ends where the running cost crosses each ``k``-th of the whole."""
    if int(k) < 1:
        raise ValueError(f"groups: k must be at least 1, got {k}")
    cum = np.cumsum(cost, dtype=np.float64)
    cuts = np.searchsorted(cum, cum[-1] * np.arange(1, int(k)) / int(k), side="left") + 1
    return np.unique(np.concatenate(([0], np.minimum(cuts, len(cum)), [len(cum)])))


def groups(parts, k):
    """``parts`` (in the order of their roots) as at most ``k`` groups of consecutive parts, balanced
    by their entries and actions (:func:`deal`)."""
    bounds = deal([_cost(q) for q in parts], k)
    return [group(parts[lo:hi]) for lo, hi in zip(bounds[:-1], bounds[1:])]


def largest(pieces):
    """The most entries and the most actions of one of ``pieces``."""
    return (max(q.flat.entry_parent.shape[0] for q in pieces), max(count(q.actions) for q in pieces))


def pass_buffer_bytes(entries, actions, precision, predictive):
    """Bytes of one set of pass buffers for a piece of ``entries`` entries and ``actions`` actions:
    reach and values (and PCFR+'s predictions) per entry, action values (and PCFR+'s second) per
    action, in the solve's precision."""
    real = np.dtype(real_dtype(precision)).itemsize
    pred = 1 if predictive else 0
    return real * (2 + pred) * int(entries) + real * (1 + pred) * int(actions)


def group_bytes(g, predictive, precision):
    """Bytes a runner of group ``g`` holds: its parts' arrays, their per-action state (three
    arrays) and one set of pass buffers as long as its largest part's."""
    real = np.dtype(real_dtype(precision)).itemsize
    return (sum(piece_bytes(q) for q in g.pieces) + len(STATE) * real * count(g.actions)
            + pass_buffer_bytes(*largest(g.pieces), precision, predictive))


class GroupRunner:
    """The parts of a :class:`Group` and their state, run one after the other (module docstring).

    Parameters
    ----------
    g : Group
    params, precision, threads
        As for :class:`~solvers.pieces.parts.PieceRunner`.
    held : dict of ndarray, optional
        The group's ``sigma``, ``regret`` and ``cumulative`` (per action of the group, in its order),
        e.g. views of a whole numbering's arrays; made when not given.
    """

    def __init__(self, g, params, precision="float64", threads=1, held=None):
        real = real_dtype(precision)
        n = count(g.actions)
        self.held = held if held is not None else {k: np.empty(n, real) for k in STATE}
        e, a = largest(g.pieces)
        p = params.predictive
        shared = (np.empty(e, real), np.empty(e, real), np.empty(e if p else 0, real),
                  np.zeros(a, real), np.zeros(a if p else 0, real))
        at = np.cumsum([0] + [count(q.actions) for q in g.pieces])
        self.runners = [PieceRunner(q, params, precision, threads, shared,
                                    tuple(self.held[k][lo:hi] for k in STATE))
                        for q, lo, hi in zip(g.pieces, at[:-1], at[1:])]
        self._at = at
        self._roots = np.cumsum([0] + [q.roots[1] - q.roots[0] for q in g.pieces])

    def _each(self, call, root_reach, sigma=None):
        """``call(runner, its roots' reach, its slice of sigma)`` for every part, in order."""
        r, a = self._roots, self._at
        return [call(x, root_reach[r[i]:r[i + 1]], None if sigma is None else sigma[a[i]:a[i + 1]])
                for i, x in enumerate(self.runners)]

    def run_pass(self, p, t, root_reach):
        """As :meth:`PieceRunner.run_pass`, over the group's parts."""
        out = self._each(lambda x, r, _: x.run_pass(p, t, r), root_reach)
        w = np.concatenate([o[1] for o in out]) if out[0][1] is not None else None
        return np.concatenate([o[0] for o in out]), w

    def values_pass(self, sigma, root_reach, p, best, choices=True):
        """As :meth:`PieceRunner.values_pass`, over the group's parts (``sigma`` in the group's
        order, or None for its average policy)."""
        out = self._each(lambda x, r, s: x.values_pass(s, r, p, best, choices), root_reach, sigma)
        return (np.concatenate([o[0] for o in out]),
                np.concatenate([o[1] for o in out]) if choices else None)

    def warm(self):
        self.runners[0].warm()

    def average(self):
        """The group's normalised average policy."""
        out = np.empty_like(self.held["cumulative"])
        for x, lo, hi in zip(self.runners, self._at[:-1], self._at[1:]):
            f = x.piece.flat
            normalize_average(self.held["cumulative"][lo:hi], f.infoset_offset,
                              f.infoset_num_actions, out[lo:hi])
        return out

    def get_state(self):
        return {k: self.held[k].copy() for k in STATE}

    def set_state(self, state, iterations):
        for k in STATE:
            self.held[k][:] = state[k]
        for x in self.runners:
            x.state.counter[0] = iterations
        return iterations

    def iterations(self):
        return self.runners[0].iterations()
