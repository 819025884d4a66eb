"""The named tuples the CFR kernel (:mod:`solvers.history._kernel`) takes besides the layout.

:class:`SolverState` gathers the buffers of one solve (allocated once by
:class:`solvers.history.rep.HistoryTree`), :class:`Params` the algorithm's
scalars. numba compiles one specialisation per combination of array types
(float64 or float32 reach and values; uint32 or uint64 indices).
"""

from typing import NamedTuple

import numpy as np

__all__ = ["SolverState", "Params"]


class SolverState(NamedTuple):
    """The buffers of one solve, as the kernel takes them.

    ``a`` actions, ``n`` histories, ``nt`` non-terminals, ``S`` segments,
    ``T`` threads; ``real`` is float64 or float32 (``precision``); per-action
    arrays are in the layout's internal order.

    Attributes
    ----------
    tab : ndarray, float64, shape (L.one + 1,)
        The current strategy (``tab[:a]``, updated in place), the chance
        probabilities and a final 1 at ``L.one``.
    regret, cumulative : ndarray, float64, shape (a,)
        Cumulative regrets and average-strategy weights.
    own : ndarray, float64, shape (a + 1,)
        The owner's sequence reach of each action, and a final 1.
    inst : ndarray, float64, shape (rows, a)
        Regret terms of one pass, one row per thread (``rows`` is ``T``, or 1
        for predictive variants, else 0).
    acc, prev : ndarray, float64, shape (a,) or (0,)
        Predictive variants: predicted values, the strategy just played.
    q0, q1 : ndarray, real, shape (nt,); q1 (0,) unless simultaneous
        Counterfactual reach per non-terminal slot.
    v : ndarray, real, shape (n,)
        Player 0's values; the payoffs at the terminals (``init_values``).
    qn, w : ndarray, float64, shape (n,) or (0,)
        Predictive variants: reach and subtree values of the prediction.
    live : ndarray, index dtype, shape (nt,)
    live_count : ndarray, int64, shape (S,)
        The reached non-terminals of the last forward pass.
    counter : ndarray, int64, shape (1,)
        Completed iterations.
    """

    tab: np.ndarray
    regret: np.ndarray
    cumulative: np.ndarray
    own: np.ndarray
    inst: np.ndarray
    acc: np.ndarray
    prev: np.ndarray
    q0: np.ndarray
    q1: np.ndarray
    v: np.ndarray
    qn: np.ndarray
    w: np.ndarray
    live: np.ndarray
    live_count: np.ndarray
    counter: np.ndarray


class Params(NamedTuple):
    """The algorithm's scalars (:class:`solvers.cfr.algorithms.AlgorithmSpec`) and the update scheme.

    The flags first, then the exponents. ``plus``, ``discount``,
    ``predictive`` (bool), ``alpha``, ``beta``, ``gamma`` (float): as in
    :class:`~solvers.cfr.algorithms.AlgorithmSpec`. ``simultaneous`` (bool):
    both players from one pass.
    """

    plus: bool
    discount: bool
    predictive: bool
    simultaneous: bool
    alpha: float
    beta: float
    gamma: float
