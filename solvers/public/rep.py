"""The public-tree representation: vector CFR over a :class:`~solvers.trees.publictree.PublicTree`.

What :class:`solvers.Solver` uses for a ``PublicTree`` (registered below), beside
:class:`~solvers.history.rep.HistoryTree` for a ``GameTree``: the same algorithms, options, policies,
checkpoints and exact exploitability, with the kernels of :mod:`solvers.public._kernel`.

Memory (``E`` entries, ``a`` actions, ``real`` the precision's bytes; :meth:`PublicTreeRep.estimate_bytes`):
per entry the reach and the value (``real`` each; PCFR+ a second value), per action the strategy, the
regrets, the average weights, the action values and the normalised average (``real`` each; PCFR+ a
second action value), 2 bytes per public node (which nodes each player reaches), and 16 bytes for
the float64 policies a result copies out. The exploitability evaluation runs in the solve's reach
and value buffers. Unlike the history tree's (whose float32 stores only reach and values in
float32), a float32 solve here keeps every buffer in float32: the public tree is the
representation for games whose histories do not fit, where memory decides (20 bytes saved per
action, of hundreds of millions), and the terminals' sums still add up in float64.
Policies are in the tree's information-set order, which is the order the kernels keep: nothing is
converted.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from solvers.history.passes import normalize_average
from solvers.public._forward import no_live
from solvers.public._kernel import evaluate, forward, run_iterations, scratch, values
from solvers.cfr.state import Params, schedule_fields
from solvers.kinds import BOTH_PLAYERS
from solvers.memory import check_fits, real_dtype
from solvers.policy import pure_response
from solvers.trees.publictree import PublicTree
from solvers.trees.restricted import RestrictedTree
from solvers.cfr.representation import check_state, register

__all__ = ["PublicTreeRep", "PublicState", "estimate_public_solve_bytes", "new_state", "params_of",
           "passes_parallel", "passes_threads"]


def estimate_public_solve_bytes(num_entries, num_actions, precision="float64", predictive=False,
                                num_nodes=0):
    """Working memory (bytes, int) of a solve of a public tree of these sizes, before it is allocated
    (module docstring)."""
    real = np.dtype(real_dtype(precision)).itemsize
    pred = 1 if predictive else 0
    per_entry = real * (2 + pred)
    per_action = real * (5 + pred) + 16  # the buffers, the average, the float64 copies of a result
    return per_entry * num_entries + per_action * num_actions + 2 * num_nodes


def params_of(spec, updates):
    """The kernels' :class:`~solvers.cfr.state.Params` of an algorithm and update scheme."""
    return Params(plus=spec.plus, discount=spec.discount, predictive=spec.predictive,
                  simultaneous=updates == "simultaneous", alpha=spec.alpha, beta=spec.beta,
                  gamma=spec.gamma, **schedule_fields(spec))


def new_state(flat, precision, predictive, threads, shared=None, held=None):
    """The buffers of a solve of the public-tree arrays ``flat`` (a tree's, or a piece's), all in
    ``precision``: the strategy uniform, the regrets and average weights zero. Pieces iterated one
    after the other in one process pass ``shared``, the buffers that hold nothing between passes
    ``(reach, v, w, acc, acc2)`` at least as long as the piece's entries and actions (their first
    elements serve; ``acc`` and ``acc2`` zero, as every pass leaves them), and ``held``, the
    piece's ``(sigma, regret, cumulative)``: views of the whole numbering's arrays."""
    real = real_dtype(precision)
    n = flat.infoset_num_actions
    a, e = int(n.sum()), flat.entry_parent.shape[0]
    w, a2 = (e, a) if predictive else (0, 0)
    if shared is None:
        shared = (np.empty(e, real), np.empty(e, real), np.empty(w, real), np.zeros(a, real),
                  np.zeros(a2, real))
    if held is None:
        held = (np.empty(a, real), np.empty(a, real), np.empty(a, real))
    sigma, regret, cumulative = held
    sigma[:] = np.repeat((1.0 / n).astype(real), n)
    regret[:] = 0.0
    cumulative[:] = 0.0
    return PublicState(
        sigma=sigma, regret=regret, cumulative=cumulative, acc=shared[3][:a], acc2=shared[4][:a2],
        reach=shared[0][:e], v=shared[1][:e], w=shared[2][:w], scratch=scratch(flat, threads),
        counter=np.zeros(1, np.int64), live=np.zeros(2 * flat.node_kind.shape[0], np.int8),
        lock=np.zeros(0, real), model=np.zeros(0, real))


#: Trees with fewer entries run on one thread whatever ``threads`` says (a level is one parallel
#: region; below this the regions' start-up cost more than they save).
PARALLEL_MIN_ENTRIES = 1 << 18
#: From this many entries, on more than one thread, the passes run as parallel loops (one per level
#: with enough work: :data:`solvers.public._node.LEVEL_MIN_ENTRIES`); below, and on one thread, the
#: serial drivers run, with no parallel region at all (:func:`passes_parallel`).
PRANGE_MIN_ENTRIES = 1 << 14


def passes_threads(num_entries, threads):
    """The threads the passes over a tree (or piece) of ``num_entries`` entries run on: one below
    :data:`PARALLEL_MIN_ENTRIES`, else ``threads``."""
    return 1 if num_entries < PARALLEL_MIN_ENTRIES else int(threads)


def passes_parallel(num_entries, threads):
    """Whether the passes over a tree (or piece) of ``num_entries`` entries on ``threads`` threads
    (:func:`passes_threads`) run as parallel loops: on more than one thread, from
    :data:`PRANGE_MIN_ENTRIES`. On one thread the serial drivers took no longer than the parallel
    loops (docs/research/public-speed.md, ninth session), and the runs the loops' threads take one at
    a time would only add their overhead. Either way the same values (tests/test_public_threads.py)."""
    return int(threads) > 1 and num_entries >= PRANGE_MIN_ENTRIES


class PublicState(NamedTuple):
    """The buffers of a public-tree solve (:func:`new_state`), in the solve's precision: per action
    ``sigma``, ``regret``, ``cumulative``, ``acc`` and ``acc2`` (PCFR+, else empty); per entry
    ``reach``, ``v`` and ``w`` (PCFR+, else empty); ``scratch`` (float64, threads x the widest matrix's
    columns) for the terminals; ``counter`` (int64, 1) the completed iterations; ``live``
    (int8, two per public node) which nodes each player reaches (:mod:`solvers.public._forward`);
    ``lock`` (per information set) and ``model`` (per action) the restriction of a
    :class:`~solvers.trees.restricted.RestrictedTree` (empty for a tree without one)."""

    sigma: np.ndarray
    regret: np.ndarray
    cumulative: np.ndarray
    acc: np.ndarray
    acc2: np.ndarray
    reach: np.ndarray
    v: np.ndarray
    w: np.ndarray
    scratch: np.ndarray
    counter: np.ndarray
    live: np.ndarray
    lock: np.ndarray
    model: np.ndarray


class PublicTreeRep:
    """CFR-family iterations over a :class:`~solvers.trees.publictree.PublicTree` (see the module docstring).

    Parameters
    ----------
    tree : PublicTree
    spec : AlgorithmSpec
    precision : {"float64", "float32"}
    updates : {"alternating", "simultaneous"}
    threads : int
    """

    #: The dispatchers of the first iteration and check (solvers.compiled.kernels_ready).
    KERNELS = (run_iterations, evaluate, forward, values)

    def __init__(self, tree, spec, precision, updates, threads):
        check_fits(self.estimate_bytes(tree, spec, precision, updates, threads),
                   f"solving {tree.game_id} with {spec.name} on its public tree")
        self.game_tree = tree
        self.threads = passes_threads(tree.num_entries, threads)
        self._prange = passes_parallel(tree.num_entries, self.threads)
        self.params = params_of(spec, updates)
        self.state = new_state(tree.flat, precision, spec.predictive, self.threads)
        self.avg = np.empty_like(self.state.sigma)

    @classmethod
    def estimate_bytes(cls, tree, spec, precision, updates, threads):
        """Working memory of a solve of ``tree`` (bytes, int)."""
        return estimate_public_solve_bytes(tree.num_entries, tree.num_actions, precision,
                                           spec.predictive, tree.num_nodes)

    @property
    def iterations(self):
        """Completed iterations."""
        return int(self.state.counter[0])

    def iterate(self, count):
        """Run ``count`` iterations."""
        numba.set_num_threads(self.threads)
        run_iterations(self.game_tree.flat, self.state, self.params, count, self._prange)

    def _normalize(self):
        t = self.game_tree
        normalize_average(self.state.cumulative, t.infoset_offset, t.infoset_num_actions, self.avg)
        return self.avg

    def evaluate(self):
        """``(br0, br1, ev0)`` of the average policy."""
        numba.set_num_threads(self.threads)
        S = self.state
        return evaluate(self.game_tree.flat, self._normalize(), S.reach, S.v, S.acc, S.scratch,
                        self._prange)

    def best_choices(self, policy, player):
        """``(value, choice)``: ``player``'s exact best-response value against ``policy`` (flat, tree
        order) and the pure best response as the position of its action in each of ``player``'s
        information sets (``choice``, int32 over all information sets): the best response without a
        copy of the policy, which at turn limit 4 is GiBs."""
        t, reach, v = self.game_tree, self.state.reach, self.state.v
        sigma = np.ascontiguousarray(policy, reach.dtype)
        choice = np.zeros(t.num_infosets, np.int32)
        numba.set_num_threads(self.threads)
        forward(t.flat, sigma, reach, self._prange, BOTH_PLAYERS, no_live())
        values(t.flat, sigma, reach, v, self.state.acc, self.state.scratch, player, True, choice,
               self._prange)
        return float(v[t.entry_start[0] + (0 if player == 0 else t.num_entries0[0])]), choice

    def entry_values(self, policy, player, node, best=True):
        """``player``'s counterfactual value of each of its entries (private states) at public ``node``
        (float64, in the node's order): of its best response to ``policy`` with ``best``, else of
        ``policy`` itself. Chance's weights and the other player's reach are in it, the player's own
        reach above ``node`` is not: what the re-solving gadget compares a private state's value with
        (:mod:`solvers.trees.gadget`)."""
        t, reach, v = self.game_tree, self.state.reach, self.state.v
        sigma = np.ascontiguousarray(policy, reach.dtype)
        numba.set_num_threads(self.threads)
        forward(t.flat, sigma, reach, self._prange, BOTH_PLAYERS, no_live())
        values(t.flat, sigma, reach, v, self.state.acc, self.state.scratch, player, bool(best),
               np.empty(0, np.int32), self._prange)
        lo = int(t.entry_start[node]) + (0 if player == 0 else int(t.num_entries0[node]))
        hi = int(t.entry_start[node]) + int(t.num_entries0[node]) if player == 0 else int(t.entry_start[node + 1])
        return np.asarray(v[lo:hi], np.float64).copy()

    def best_response(self, policy, player):
        """``(value, policy)``: :meth:`best_choices` with the pure best response spelled out,
        ``policy`` (float64) with ``player``'s part replaced."""
        value, choice = self.best_choices(policy, player)
        return value, pure_response(self.game_tree, policy, player, choice)

    def average_policy(self):
        """The normalised average policy (a new float64 array)."""
        return self._normalize().astype(np.float64)

    def current_policy(self):
        """The current policy (a new float64 array)."""
        return self.state.sigma.astype(np.float64)

    def get_state(self):
        """Regrets, average weights and strategy (copies)."""
        s = self.state
        return dict(regret=s.regret.copy(), cumulative=s.cumulative.copy(), sigma=s.sigma.copy())

    def set_state(self, state, iterations):
        """Restore :meth:`get_state`'s arrays at iteration ``iterations``."""
        check_state(state, self.game_tree.num_actions)
        for name in ("regret", "cumulative", "sigma"):
            getattr(self.state, name)[:] = state[name]
        self.state.counter[0] = iterations


class RestrictedPublicRep(PublicTreeRep):
    """:class:`PublicTreeRep` over a :class:`~solvers.trees.restricted.RestrictedTree`: the same passes
    with the restriction in the state (``lock``, ``model``) and the first strategy mixed with the
    model as every later one is (:func:`solvers.public._infoset._update`). The predictive variants are
    refused: their regret matching runs on predictions the restriction does not enter."""

    def __init__(self, tree, spec, precision, updates, threads):
        if spec.predictive:
            raise ValueError(f"{spec.name} does not solve a restricted tree; cfr, cfr+, lcfr, dcfr and "
                             "hs-dcfr do")
        super().__init__(tree.tree, spec, precision, updates, threads)
        real = self.state.sigma.dtype
        self.state = self.state._replace(lock=tree.weight.astype(real), model=tree.model.astype(real))
        share = np.repeat(tree.weight, tree.infoset_num_actions).astype(real)
        self.state.sigma[:] = share * self.state.model + (1 - share) * self.state.sigma


register(PublicTree, PublicTreeRep)
register(RestrictedTree, RestrictedPublicRep)
