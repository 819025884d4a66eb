"""The pieces of a cut public tree (:mod:`solvers.pieces.split`), each iterating its own state.

:class:`PieceRunner` holds one piece (a part, or the trunk) with its share of a solve's state: the
strategy, regrets and average weights of its information sets, and the reach and value of its entries.
:class:`PartsRep` is a :class:`~solvers.cfr.representation.Representation` that drives a trunk and parts:
one pass for player ``p`` is the trunk's forward pass, every part's forward and backward pass from its
roots' reach (:meth:`PieceRunner.run_pass`), then the trunk's backward pass from the parts' root
values. The parts are given by a *runner factory*: in this process (:func:`local_parts`, for tests and
for reference) or as Ray actors (:mod:`solvers.pieces.ray`), which is all that differs. Each node does
the arithmetic it does in :class:`~solvers.public.rep.PublicTreeRep`, so the iterates equal those of a
single process.

The trunk stays with the driver. The average policy, the state of a checkpoint and best responses cross
between the pieces and the tree's order through each piece's ``actions`` and ``infosets``.
"""

from __future__ import annotations

import numba
import numpy as np

from solvers.history.passes import normalize_average
from solvers.cfr.matching import schedule
from solvers.public import backward_levels, forward_levels, no_live, values_levels
from solvers.kinds import BOTH_PLAYERS
from solvers.public.rep import (passes_parallel, passes_threads, estimate_public_solve_bytes,
                                new_state, params_of)
from solvers.pieces.split import choose_depth, split
from solvers.policy import pure_response
from solvers.pieces.split import count as _count
from solvers.cfr.representation import check_state

__all__ = ["PieceRunner", "PartsRep", "LocalBackend", "local_parts", "params_of", "piece_solve_bytes"]


def piece_solve_bytes(piece, params, precision):
    """Working memory of a piece's share of a solve (bytes)."""
    f = piece.flat
    return estimate_public_solve_bytes(f.entry_parent.shape[0], _count(piece.actions), precision,
                                       params.predictive, f.node_kind.shape[0])


class PieceRunner:
    """One piece of a cut public tree and its state (module docstring).

    Parameters
    ----------
    piece : solvers.pieces.split.Piece
    params : solvers.cfr.state.Params
    precision : {"float64", "float32"}
    threads : int
        numba threads for its passes.
    shared, held : tuple of ndarray, optional
        The pass buffers to use the first elements of, and the piece's per-action state as views
        of the whole numbering's (runners iterated one after the other in one process:
        :class:`solvers.pieces.local.PiecesRep`; :func:`~solvers.public.rep.new_state`).
    """

    def __init__(self, piece, params, precision="float64", threads=1, shared=None, held=None):
        piece = piece._replace(flat=type(piece.flat)(*map(_writable, piece.flat)),
                               infosets=_writable(piece.infosets), actions=_writable(piece.actions))
        self.piece = piece
        self.params = params
        f = piece.flat
        # a small piece runs on one thread, as a small whole tree does (same iterates)
        self.threads = passes_threads(f.entry_parent.shape[0], threads)
        self.state = new_state(f, precision, params.predictive, self.threads, shared, held)
        self._real = self.state.reach.dtype
        self._prange = passes_parallel(f.entry_parent.shape[0], self.threads)
        self._roots = int(f.entry_start[f.level_start[1]])  # entries of level 0
        self._last = piece.num_levels - 1  # a part's last level; the trunk's level of leaves

    # -- a part --
    def run_pass(self, p, t, root_reach):
        """A part's forward and backward pass for player ``p`` (or ``BOTH_PLAYERS``) of iteration ``t``
        from its roots' reach; returns the roots' values (and predictions for PCFR+, else None)."""
        S, f = self.state, self.piece.flat
        numba.set_num_threads(self.threads)
        S.reach[:self._roots] = root_reach
        weight, fpos, fneg = schedule(t, self.params)
        forward_levels(f, S.sigma, S.reach, 0, self._last, self._prange, BOTH_PLAYERS, S.live)
        backward_levels(f, S, self.params, p, weight, fpos, fneg, 0, self._last + 1, self._prange)
        S.counter[0] = t
        n = self._roots
        return S.v[:n].copy(), (S.w[:n].copy() if self.params.predictive else None)

    def values_pass(self, sigma, root_reach, p, best, choices=True):
        """Root values of player ``p`` under ``sigma`` (the piece's per-action policy, or None for
        its average policy; with ``best`` the best response's) and, with ``choices``, the best
        actions (int32, per information set of the piece; else None: an exploitability check keeps
        none, an int32 per information set saved). It runs in the passes' reach and value buffers,
        which hold nothing between passes, as :class:`~solvers.public.rep.PublicTreeRep`'s
        evaluation does."""
        f, S = self.piece.flat, self.state
        numba.set_num_threads(self.threads)
        sigma = self.average() if sigma is None else _kernel_array(sigma, self._real)
        reach, v = S.reach, S.v
        reach[:self._roots] = root_reach
        forward_levels(f, sigma, reach, 0, self._last, self._prange, BOTH_PLAYERS, no_live())
        choice = np.zeros(f.infoset_player.shape[0], np.int32)
        values_levels(f, sigma, reach, v, S.acc, S.scratch, p, best, choice, 0, self._last + 1,
                      self._prange)
        return v[:self._roots].copy(), (choice if choices else None)

    # -- the trunk --
    def trunk_down(self, sigma=None):
        """The trunk's forward pass from its root: the reach of its leaves' entries (a copy)."""
        f, S = self.piece.flat, self.state
        reach = S.reach if sigma is None else np.empty_like(S.reach)
        reach[:int(f.entry_start[1])] = 1.0
        live = S.live if reach is S.reach else no_live()  # trunk_up reads the codes
        sigma = S.sigma if sigma is None else _kernel_array(sigma, self._real)
        forward_levels(f, sigma, reach, 0, self._last, self._prange, BOTH_PLAYERS, live)
        self._eval_reach = reach
        lo = int(f.entry_start[f.level_start[self._last]])
        return reach[lo:].copy()

    def trunk_up(self, p, t, leaf_v, leaf_w):
        """The trunk's backward pass for ``p`` of iteration ``t`` from its leaves' values."""
        f, S = self.piece.flat, self.state
        lo = int(f.entry_start[f.level_start[self._last]])
        S.v[lo:] = leaf_v
        if leaf_w is not None:
            S.w[lo:] = leaf_w
        weight, fpos, fneg = schedule(t, self.params)
        backward_levels(f, S, self.params, p, weight, fpos, fneg, 0, self._last, self._prange)
        S.counter[0] = t

    def trunk_values(self, sigma, leaf_v, p, best):
        """The trunk's values pass after :meth:`trunk_down` with ``sigma``: the root's value of
        ``p`` and the best actions at the trunk's information sets."""
        f = self.piece.flat
        lo = int(f.entry_start[f.level_start[self._last]])
        v = np.empty_like(self._eval_reach)
        v[lo:] = leaf_v
        choice = np.zeros(f.infoset_player.shape[0], np.int32)
        sigma = _kernel_array(sigma, self._real)
        values_levels(f, sigma, self._eval_reach, v, self.state.acc, self.state.scratch, p, best,
                      choice, 0, self._last, self._prange)
        root = int(f.entry_start[0]) + (0 if p == 0 else int(f.num_entries0[0]))
        return float(v[root]), choice

    def warm(self):
        """Compile (or load from numba's cache) every kernel a piece runs, over no level: then the
        processes of a cluster load them from the cache instead of compiling them each."""
        f, S = self.piece.flat, self.state
        schedule(1, self.params)
        forward_levels(f, S.sigma, S.reach, 0, 0, self._prange, BOTH_PLAYERS, S.live)
        backward_levels(f, S, self.params, 0, 1.0, 1.0, 1.0, 0, 0, self._prange)
        values_levels(f, S.sigma, S.reach, S.v, S.acc, S.scratch, 0, True, np.zeros(0, np.int32),
                      0, 0, self._prange)

    # -- state --
    def average(self):
        """The piece's normalised average policy."""
        f = self.piece.flat
        out = np.empty_like(self.state.cumulative)
        normalize_average(self.state.cumulative, f.infoset_offset, f.infoset_num_actions, out)
        return out

    def get_state(self):
        s = self.state
        return dict(regret=s.regret.copy(), cumulative=s.cumulative.copy(), sigma=s.sigma.copy())

    def set_state(self, state, iterations):
        for name in ("regret", "cumulative", "sigma"):
            getattr(self.state, name)[:] = state[name]
        self.state.counter[0] = iterations
        return iterations

    def iterations(self):
        return int(self.state.counter[0])


def _writable(a):
    """``a`` (an array; a slice is returned as it is), copied when read-only. Ray hands an actor its piece and the policies it is sent
    read-only (zero-copy from its object store); numba types a read-only array apart from a writable
    one and would compile every kernel a second time for them (minutes, and a second cache)."""
    return a if isinstance(a, slice) or a.flags.writeable else a.copy()


def _kernel_array(a, real):
    """``a`` as the kernels are compiled for: of the solve's precision ``real``, contiguous and
    writable."""
    return _writable(np.ascontiguousarray(a, real))


def local_parts(parts, params, precision, threads):
    """Runners of ``parts`` in this process, called through the same interface as Ray actors."""
    return [_Local(PieceRunner(part, params, precision, threads)) for part in parts]


class _Local:
    """A runner in this process with the calling convention of a Ray actor handle (``h.f.remote``
    returns what ``get`` resolves)."""

    def __init__(self, runner):
        self._runner = runner

    def __getattr__(self, name):
        return _Remote(getattr(self._runner, name))


class _Remote:
    """``method.remote(...)`` calls ``method``. An instance, not a class made per call: a class is in
    a reference cycle, so it kept its runner and that runner's slices of the solve's state (gigabytes
    on a large tree) alive after the solver until the garbage collector ran."""

    __slots__ = ("remote",)

    def __init__(self, method):
        self.remote = method


def _identity(values):
    return values


class PartsRep:
    """A :class:`~solvers.cfr.representation.Representation` over a trunk and parts (module docstring).

    Parameters
    ----------
    tree : PublicTree
    spec, precision, updates, threads
        As for :class:`~solvers.public.rep.PublicTreeRep`.
    trunk : Piece
    parts : list of Piece
    make_runners : callable
        ``make_runners(parts, params, precision)`` -> handles with ``.run_pass.remote(...)`` etc.
    get : callable
        Resolves what the handles' calls return (``ray.get``; the identity in this process).
    trunk_held : tuple of ndarray, optional
        The trunk's per-action state as views (:class:`PieceRunner`'s ``held``).
    """

    def __init__(self, tree, spec, precision, updates, threads, trunk, parts, make_runners,
                 get=_identity, trunk_held=None):
        self.game_tree = tree
        self.threads = threads
        self.params = params_of(spec, updates)
        self.trunk = PieceRunner(trunk, self.params, precision, threads, held=trunk_held)
        self.trunk.warm()
        self.parts = parts
        self.precision = precision
        self._get = get
        self.handles = make_runners(parts, self.params, precision)

    @property
    def iterations(self):
        return int(self.trunk.state.counter[0])

    def _leaf_slices(self, leaf):
        base = self.trunk.piece.roots[0]
        return [leaf[q.roots[0] - base:q.roots[1] - base] for q in self.parts]

    def _pass(self, p, t):
        """One pass for player ``p`` of iteration ``t`` over the trunk and every part."""
        reach = self._leaf_slices(self.trunk.trunk_down())
        out = self._call_parts("run_pass", [(p, t, r) for r in reach])
        v = np.concatenate([o[0] for o in out])
        w = np.concatenate([o[1] for o in out]) if self.params.predictive else None
        self.trunk.trunk_up(p, t, v, w)

    def _call_parts(self, method, args):
        """``method(*args[i])`` on every part at once; their results in order."""
        return self._get([getattr(h, method).remote(*a) for h, a in zip(self.handles, args)])

    def iterate(self, count):
        numba.set_num_threads(self.threads)
        for _ in range(count):
            t = self.iterations + 1
            if self.params.simultaneous:
                self._pass(BOTH_PLAYERS, t)
            else:
                self._pass(0, t)
                self._pass(1, t)

    def _values(self, sigma, p, best, choices=True):
        """Root value of ``p`` under ``sigma`` (tree order; None: the average policy) and, with
        ``choices``, the best actions per information set of the tree (else None)."""
        trunk_sigma = self.trunk.average() if sigma is None else sigma[self.trunk.piece.actions]
        reach = self._leaf_slices(self.trunk.trunk_down(trunk_sigma))
        args = [(None if sigma is None else sigma[q.actions], r, p, best, choices)
                for q, r in zip(self.parts, reach)]
        out = self._call_parts("values_pass", args)
        value, choice = self.trunk.trunk_values(trunk_sigma, np.concatenate([o[0] for o in out]),
                                                p, best)
        if not choices:
            return value, None
        every = np.zeros(self.game_tree.num_infosets, np.int32)
        every[self.trunk.piece.infosets] = choice
        for q, o in zip(self.parts, out):
            every[q.infosets] = o[1]
        return value, every

    def evaluate(self):
        return tuple(self._values(None, p, best, False)[0]
                     for p, best in ((0, True), (1, True), (0, False)))

    def best_choices(self, policy, player):
        """As :meth:`~solvers.public.rep.PublicTreeRep.best_choices`."""
        real = np.float32 if np.asarray(policy).dtype == np.float32 else np.float64
        return self._values(np.ascontiguousarray(policy, real), player, True)

    def best_response(self, policy, player):
        """As :meth:`~solvers.public.rep.PublicTreeRep.best_response`; the policy returned is in
        ``policy``'s precision when that is float32 (a float32 solve's own, at 4 bytes an action)."""
        value, choice = self.best_choices(policy, player)
        real = np.float32 if np.asarray(policy).dtype == np.float32 else np.float64
        return value, pure_response(self.game_tree, policy, player, choice, real)

    def _gather(self, name):
        out = np.empty(self.game_tree.num_actions, self.trunk.state.sigma.dtype)
        pieces = [self.trunk.piece] + list(self.parts)
        states = [self.trunk.get_state()] + self._call_parts("get_state", [()] * len(self.parts))
        for q, s in zip(pieces, states):
            out[q.actions] = s[name]
        return out

    def average_policy(self):
        cumulative = self._gather("cumulative").astype(np.float64, copy=False)
        t = self.game_tree
        out = np.empty(cumulative.shape[0])
        normalize_average(cumulative, t.infoset_offset, t.infoset_num_actions, out)
        return out

    def current_policy(self):
        return self._gather("sigma").astype(np.float64, copy=False)

    def get_state(self):
        return {name: self._gather(name) for name in ("regret", "cumulative", "sigma")}

    def set_state(self, state, iterations):
        check_state(state, self.game_tree.num_actions)
        state = {name: state[name] for name in ("regret", "cumulative", "sigma")}
        self.trunk.set_state({k: v[self.trunk.piece.actions] for k, v in state.items()}, iterations)
        self._call_parts("set_state", [({k: v[q.actions] for k, v in state.items()}, iterations)
                                       for q in self.parts])


class LocalBackend:
    """A ``backend`` for :class:`~solvers.Solver` that cuts a public tree into ``parts`` and iterates
    them in this process: the reference the Ray backend is checked against, and the cost of cutting
    alone (no speed is gained). ``split_depth`` as for :class:`solvers.pieces.ray.RayBackend`."""

    def __init__(self, parts=2, split_depth=None):
        self.parts, self.split_depth = int(parts), split_depth

    def representation(self, tree, spec, precision, updates, threads):
        depth = self.split_depth or choose_depth(tree, self.parts)
        trunk, parts = split(tree, depth, self.parts)
        rep = PartsRep(tree, spec, precision, updates, threads, trunk, parts,
                       lambda q, params, real: local_parts(q, params, real, threads))
        rep.depth = depth
        return rep
