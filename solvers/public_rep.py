"""The public-tree representation: vector CFR over a :class:`~solvers.public.PublicTree`.

What :class:`solvers.Solver` uses for a ``PublicTree`` (registered below), beside
:class:`~solvers.history.HistoryTree` for a ``GameTree``: the same algorithms, options, policies,
checkpoints and exact exploitability, with the kernels of :mod:`solvers._public_kernel`.

Memory (``E`` entries, ``a`` actions, ``real`` the precision's bytes; :meth:`PublicTreeRep.estimate_bytes`):
per entry the reach and the value (``real`` each; PCFR+ a second value), per action the strategy, the
regrets, the average weights and the action values (float64; PCFR+ a second action value). The
exploitability evaluation shares the reach and value buffers at float64 and has its own 16 bytes per
entry at float32. Policies are in the tree's information-set order, which is the order the kernels
keep: nothing is converted.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from ._passes import normalize_average
from ._public_kernel import evaluate, forward, run_iterations, scratch, values
from ._state import Params
from .memory import check_fits
from .public import PublicTree
from .representation import check_state, register

__all__ = ["PublicTreeRep", "PublicState", "estimate_public_solve_bytes"]


def estimate_public_solve_bytes(num_entries, num_actions, precision="float64", predictive=False):
    """Working memory (bytes, int) of a solve of a public tree of these sizes, before it is allocated
    (module docstring)."""
    real = 4 if precision == "float32" else 8
    pred = 1 if predictive else 0
    per_entry = real * (2 + pred) + (16 if real == 4 else 0)
    per_action = 8 * (5 + pred) + 16  # the buffers, the average, the copies into a result
    return per_entry * num_entries + per_action * num_actions


#: Trees with fewer entries run on one thread whatever ``threads`` says (a level is one parallel
#: region; below this the regions' start-up cost more than they save).
PARALLEL_MIN_ENTRIES = 1 << 18
#: From this many entries the passes run as parallel loops (one per level) even on one thread: numba
#: compiles the loop body of a ``prange`` apart, and at turn limit 2 (790,948 entries) the backward
#: pass took 22 ms that way against 180 ms as one serial function; below, the serial drivers avoid
#: a parallel region per level (Kuhn poker has 6 levels and microseconds of work).
PRANGE_MIN_ENTRIES = 1 << 14


class PublicState(NamedTuple):
    """The buffers of a public-tree solve: per action (float64) ``sigma``, ``regret``, ``cumulative``,
    ``acc`` and ``acc2`` (PCFR+, else empty); per entry (``real``) ``reach``, ``v`` and ``w`` (PCFR+,
    else empty); ``scratch`` (float64, threads x the widest matrix's columns) for the terminals;
    ``counter`` (int64, 1) the completed iterations."""

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


class PublicTreeRep:
    """CFR-family iterations over a :class:`~solvers.public.PublicTree` (see the module docstring).

    Parameters
    ----------
    tree : PublicTree
    spec : AlgorithmSpec
    precision : {"float64", "float32"}
    updates : {"alternating", "simultaneous"}
    threads : int
    """

    def __init__(self, tree, spec, precision, updates, threads):
        check_fits(self.estimate_bytes(tree, spec, precision, updates, threads),
                   f"solving {tree.game_id} with {spec.name} on its public tree")
        self.game_tree = tree
        self.threads = 1 if tree.num_entries < PARALLEL_MIN_ENTRIES else threads
        self._prange = tree.num_entries >= PRANGE_MIN_ENTRIES
        self.params = Params(plus=spec.plus, discount=spec.discount, predictive=spec.predictive,
                             simultaneous=updates == "simultaneous", alpha=spec.alpha,
                             beta=spec.beta, gamma=spec.gamma)
        real = np.float32 if precision == "float32" else np.float64
        a, e = tree.num_actions, tree.num_entries
        pred = spec.predictive
        sigma = np.repeat(1.0 / tree.infoset_num_actions, tree.infoset_num_actions)
        self.state = PublicState(
            sigma=sigma, regret=np.zeros(a), cumulative=np.zeros(a), acc=np.zeros(a),
            acc2=np.zeros(a if pred else 0), reach=np.empty(e, real), v=np.empty(e, real),
            w=np.empty(e if pred else 0, real), scratch=scratch(tree.flat, self.threads),
            counter=np.zeros(1, np.int64))
        if real is np.float64:
            self._eval = (self.state.reach, self.state.v)
        else:
            self._eval = (np.empty(e), np.empty(e))
        self.avg = np.empty(a)

    @classmethod
    def estimate_bytes(cls, tree, spec, precision, updates, threads):
        """Working memory of a solve of ``tree`` (bytes, int)."""
        return estimate_public_solve_bytes(tree.num_entries, tree.num_actions, precision,
                                           spec.predictive)

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
        reach, v = self._eval
        return evaluate(self.game_tree.flat, self._normalize(), reach, v, self.state.acc,
                        self.state.scratch, self._prange)

    def best_response(self, policy, player):
        """``(value, policy)``: ``player``'s exact best-response value against ``policy`` (flat,
        tree order) and the pure best response, ``policy`` with ``player``'s part replaced."""
        t, reach, v = self.game_tree, *self._eval
        sigma = np.ascontiguousarray(policy, np.float64)
        choice = np.zeros(t.num_infosets, np.int32)
        numba.set_num_threads(self.threads)
        forward(t.flat, sigma, reach, self._prange)
        values(t.flat, sigma, reach, v, self.state.acc, self.state.scratch, player, True, choice,
               self._prange)
        value = float(v[t.entry_start[0] + (0 if player == 0 else t.num_entries0[0])])
        out = sigma.copy()
        mine = np.flatnonzero(t.infoset_player == player)
        out[np.repeat(t.infoset_player == player, t.infoset_num_actions)] = 0.0
        out[t.infoset_offset[mine] + choice[mine]] = 1.0
        return value, out

    def average_policy(self):
        """The normalised average policy (a new array)."""
        return self._normalize().copy()

    def current_policy(self):
        """The current policy (a new array)."""
        return self.state.sigma.copy()

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


register(PublicTree, PublicTreeRep)
