"""The history-tree representation: CFR over every history of a :class:`~solvers.GameTree`.

The :class:`~solvers.cfr.representation.Representation` that
:class:`solvers.Solver` uses for a ``GameTree``. It builds (once per tree)
the solver layout (:mod:`solvers.history.layout`), allocates every buffer once, as
one :class:`~solvers.cfr.state.SolverState`, and calls the kernel
(:func:`solvers.history._kernel.run_iterations`); the exploitability of the
average policy is the exact best response (:mod:`solvers.history.best_response`),
sharing the value buffer when it is float64.

Memory layout (``n`` histories, ``nt`` non-terminals, ``a`` actions, ``real``
the precision's bytes; see :func:`solvers.estimate_solve_bytes`): per
history, the value buffer (``real``) and the evaluation's reach and subtree
buffers (float64); per non-terminal, the reach (``real``, twice with
simultaneous updates) and the list of reached histories (4 bytes); per
action, regrets, average weights, the strategy, the normalised average, the
best-response accumulator and the owner's sequence reach (float64), plus one
row of regret terms per thread when ``threads > 1``. The per-action arrays
are kept in the layout's internal order and converted at this class's
boundary: its policies and states are in the tree's order.
"""

from __future__ import annotations

import numba
import numpy as np

from solvers.history._kernel import run_iterations
from solvers.history.layout import cached as layout_cached
from solvers.history.layout import layout_for
from solvers.history.passes import init_values, normalize_average
from solvers.history.best_response import _values, _Workspace, br_kernel
from solvers.kinds import CHANCE, TERMINAL
from solvers.memory import check_fits, estimate_solve_bytes, real_dtype
from solvers.cfr.state import Params, SolverState, schedule_fields
from solvers.cfr.representation import check_state, register
from solvers.trees.gametree import GameTree

__all__ = ["HistoryTree", "PARALLEL_MIN_HISTORIES"]

#: Trees with fewer histories run on one thread whatever ``threads`` says:
#: the four parallel regions of an iteration cost a few microseconds each,
#: which two threads earn back only from about 10**6 histories (measured on
#: Kuhn, Leduc, Liar's Dice and larger trees: docs/research/design-measurements.md).
PARALLEL_MIN_HISTORIES = 1 << 20


def _sizes(tree):
    """``(non-terminals, chance edges, layout already built)`` of ``tree``."""
    if layout_cached(tree):
        lay = layout_for(tree)
        return lay.node.shape[0], lay.cprob.shape[0], True
    num_nt = tree.num_nodes - int(np.count_nonzero(tree.node_kind == TERMINAL))
    edges = int(tree.num_children[tree.node_kind == CHANCE].sum(dtype=np.int64))
    return num_nt, edges, False


class HistoryTree:
    """CFR-family iterations over every history of a :class:`~solvers.GameTree`.

    Parameters
    ----------
    tree : GameTree
    spec : AlgorithmSpec
    precision : {"float64", "float32"}
    updates : {"alternating", "simultaneous"}
    threads : int
        Trees under :data:`PARALLEL_MIN_HISTORIES` histories run on one thread.

    Attributes
    ----------
    layout : solvers.history.layout.Layout
    state : solvers.cfr.state.SolverState
        The kernel's buffers (internal order); read by profiling tools only.
    params : solvers.cfr.state.Params
    """

    #: The dispatchers of the first iteration and check (solvers.compiled.kernels_ready).
    KERNELS = (init_values, run_iterations, normalize_average, br_kernel)

    def __init__(self, tree, spec, precision, updates, threads):
        check_fits(self.estimate_bytes(tree, spec, precision, updates, threads),
                   f"solving {tree.game_id} with {spec.name}")
        n, a = tree.num_nodes, tree.num_actions
        threads = 1 if n < PARALLEL_MIN_HISTORIES else threads
        self.game_tree = tree
        self.layout = lay = layout_for(tree)
        self.parts = lay.parts(threads)
        self.threads = threads
        self.params = Params(plus=spec.plus, discount=spec.discount, predictive=spec.predictive,
                             simultaneous=updates == "simultaneous", alpha=spec.alpha,
                             beta=spec.beta, gamma=spec.gamma, **schedule_fields(spec))
        dtype = real_dtype(precision)
        num_nt = lay.node.shape[0]
        # The strategy (internal order), the chance probabilities and a 1: the
        # forward pass reads every edge probability from this one table.
        tab = np.empty(lay.one + 1)
        tab[:a] = lay.to_internal(tree.uniform_policy())
        tab[a:lay.one] = lay.cprob
        tab[lay.one] = 1.0
        v = np.empty(n, dtype)
        init_values(tree.flat, v)
        # The exploitability evaluation (float64 throughout) shares the value
        # buffer when it is float64; PCFR+ borrows its reach and subtree buffers.
        self.ws = _Workspace(tree, v=v if dtype is np.float64 else None)
        predictive = spec.predictive
        rows = threads if (threads > 1 or predictive) else 0
        self.state = SolverState(
            tab=tab, regret=np.zeros(a), cumulative=np.zeros(a), own=np.empty(a + 1),
            inst=np.zeros((rows, a if rows else 0)),
            acc=self.ws.acc if predictive else np.empty(0),
            prev=np.empty(a if predictive else 0),
            q0=np.empty(num_nt, dtype), q1=np.empty(num_nt if self.params.simultaneous else 0, dtype),
            v=v, qn=self.ws.q if predictive else np.empty(0),
            w=self.ws.w if predictive else np.empty(0),
            live=np.empty_like(lay.node), live_count=np.zeros(lay.seg_kind.shape[0], np.int64),
            counter=np.zeros(1, np.int64))
        self.sigma = tab[:a]
        self.avg = np.empty(a)

    @classmethod
    def estimate_bytes(cls, tree, spec, precision, updates, threads):
        """Working memory of a solve of ``tree``, the layout included when it is not built yet.

        A first solve of a tree also builds its layout (12 transient bytes per
        history); the policies copied into the result add ``16 * num_actions``.
        """
        n, m, a = tree.num_nodes, tree.num_infosets, tree.num_actions
        threads = 1 if n < PARALLEL_MIN_HISTORIES else threads
        num_nt, edges, built = _sizes(tree)
        return (estimate_solve_bytes(n, m, a, spec.predictive, precision=precision,
                                     updates=updates, threads=threads, chance_edges=edges,
                                     nonterminals=num_nt, layout=not built)
                + 16 * a + (0 if built else 12 * n))

    def live_fraction(self):
        """Fraction of the non-terminals the last forward pass reached (a diagnostic for benchmarks)."""
        return float(self.state.live_count.sum()) / max(self.layout.node.shape[0], 1)

    @property
    def iterations(self):
        """Completed iterations."""
        return int(self.state.counter[0])

    def iterate(self, count):
        """Run ``count`` iterations (the kernel updates the counter with the state)."""
        if self.threads > 1:
            numba.set_num_threads(self.threads)
        run_iterations(self.layout.arrays, self.parts, self.state, self.params, count)

    def _normalize(self):
        lay = self.layout
        normalize_average(self.state.cumulative, lay.info_offset, lay.info_actions, self.avg)

    def evaluate(self):
        """``(br0, br1, ev0)`` of the average policy (see :class:`Representation`)."""
        self._normalize()
        return _values(self.avg, self.ws, internal=True)

    def average_policy(self):
        """The normalised average policy, tree order."""
        self._normalize()
        return self.layout.to_tree(self.avg)

    def current_policy(self):
        """The current policy, tree order."""
        return self.layout.to_tree(self.sigma)

    def get_state(self):
        """Regrets, average weights and strategy, tree order."""
        to_tree = self.layout.to_tree
        return dict(regret=to_tree(self.state.regret), cumulative=to_tree(self.state.cumulative),
                    sigma=to_tree(self.sigma))

    def set_state(self, state, iterations):
        """Restore :meth:`get_state`'s arrays at iteration ``iterations``."""
        check_state(state, self.game_tree.num_actions)
        to_internal = self.layout.to_internal
        self.state.regret[:] = to_internal(state["regret"])
        self.state.cumulative[:] = to_internal(state["cumulative"])
        self.sigma[:] = to_internal(state["sigma"])
        self.state.counter[0] = iterations


register(GameTree, HistoryTree)
