"""The compiled timers of :mod:`benchmarks.threads`: a pass of the public tree node by node, each node
timed alone, and the fixed cost of a parallel region.

A node is timed by the processor's time-stamp counter (LLVM's ``readcyclecounter``: a few cycles,
no system call) around the same run function the passes' drivers call for a run of nodes
(:func:`solvers.public._kernel._backward_run` and its kin) called for that node alone. The nodes of
a level are independent, so a pass node by node is the serial driver's pass: the iterates are those
of :func:`solvers.public._kernel.run_iterations`. What a call over no node costs is timed the same
way (:func:`empty_calls`) and taken off by the caller.
"""

import numba
import numpy as np
from llvmlite import ir
from numba import prange, types
from numba.core import cgutils
from numba.core.extending import intrinsic

from solvers.cfr.matching import schedule
from solvers.public._forward import _first_codes, _forward_run
from solvers.public._kernel import _backward_run, _values_run, state_arrays

__all__ = ["ticks_now", "timed_iteration", "timed_values", "empty_calls", "regions"]


@intrinsic
def _ticks(typingctx):
    """The time-stamp counter (constant rate; wall clock, not the thread's CPU time)."""
    def codegen(context, builder, signature, args):
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.IntType(64), []),
                                            "llvm.readcyclecounter")
        return builder.call(fn, [])

    return types.int64(), codegen


@numba.njit(cache=True)
def ticks_now():
    """The counter, from Python (to convert its ticks to seconds)."""
    return _ticks()


@numba.njit(cache=True)
def timed_iteration(T, S, P, fwd, bwd):
    """One alternating iteration of :func:`~solvers.public._kernel.run_iterations` after its first
    (both players' reach already in ``S.reach``), node by node: ``fwd[p, s]`` the ticks of node
    ``s`` in the forward pass before player ``p``'s backward pass (which passes the reach of
    ``1 - p``), ``bwd[p, s]`` in ``p``'s backward pass (int64, 2 x nodes)."""
    t = S.counter[0] + 1
    weight, fpos, fneg = schedule(t, P)
    B = state_arrays(S)
    ls = T.level_start
    last = ls.shape[0] - 1
    for p in range(2):
        q = 1 - p
        _first_codes(T, S.reach, S.live, np.int64(0), q)
        for s in range(ls[0], ls[last - 1]):
            t0 = _ticks()
            _forward_run(T, S.sigma, S.reach, S.live, s, s + 1, q)
            fwd[p, s] = _ticks() - t0
        for d in range(last - 1, -1, -1):
            for s in range(ls[d], ls[d + 1]):
                t0 = _ticks()
                _backward_run(T, B, P.plus, P.discount, p, weight, fpos, fneg, s, s + 1,
                              S.scratch[0])
                bwd[p, s] = _ticks() - t0
    S.counter[0] = t


@numba.njit(cache=True)
def timed_values(T, sigma, reach, v, acc, X, p, best, out):
    """The values pass of player ``p`` (with ``best``, a best response's, as an exploitability
    check runs it; passed, not a constant: a literal would compile the run function once more),
    node by node, after a forward pass under ``sigma``: ``out[s]`` its ticks at node ``s``."""
    ls = T.level_start
    choice = np.empty(0, np.int32)
    for d in range(ls.shape[0] - 2, -1, -1):
        for s in range(ls[d], ls[d + 1]):
            t0 = _ticks()
            _values_run(T, sigma, reach, v, acc, p, best, choice, s, s + 1, X[0])
            out[s] = _ticks() - t0


@numba.njit(cache=True)
def empty_calls(T, S, P, count, best, out):
    """Ticks of ``count`` calls of each run function over no node (the timers' own cost): ``out[0,
    k]`` the forward's, ``out[1, k]`` the backward's, ``out[2, k]`` the values'."""
    B = state_arrays(S)
    choice = np.empty(0, np.int32)
    for k in range(count):
        s = np.int64(k % T.node_kind.shape[0])
        t0 = _ticks()
        _forward_run(T, S.sigma, S.reach, S.live, s, s, np.int64(1))
        out[0, k] = _ticks() - t0
        t0 = _ticks()
        _backward_run(T, B, P.plus, P.discount, np.int64(0), 1.0, 1.0, 1.0, s, s, S.scratch[0])
        out[1, k] = _ticks() - t0
        t0 = _ticks()
        _values_run(T, S.sigma, S.reach, S.v, S.acc, np.int64(0), best, choice, s, s, S.scratch[0])
        out[2, k] = _ticks() - t0


@numba.njit(cache=True, parallel=True)
def regions(count, out):
    """``count`` parallel regions one after the other, each a ``prange`` over ``out``'s rows (one
    per thread) doing almost nothing: their fork, join and barrier, as a pass's level pays them."""
    nt = out.shape[0]
    for _ in range(count):
        for t in prange(nt):
            out[t] += 1.0
