"""What :mod:`benchmarks.threads` measures on this machine: a public tree's passes node by node on one
thread, whole iterations on 1 and 2 threads, the cost of a parallel region, and the bandwidth.

Every figure that feeds the model is taken so that a busy machine spoils it as little as possible:
node times are the median over repetitions of each node (a node the scheduler interrupted is an
outlier of its own), whole iterations on one thread are timed in the thread's CPU time, and the
figures on two threads (wall clock, both cores) are reported beside the load average.
"""

from __future__ import annotations

import time

import numba
import numpy as np

from solvers.kinds import BOTH_PLAYERS
from solvers.public import forward, no_live, scratch

from . import kernels as K

__all__ = ["tick_seconds", "node_times", "iteration_times", "region_cost", "set_threads"]


def tick_seconds(wait=0.2):
    """Seconds per tick of the counter :mod:`~benchmarks.threads.kernels` reads."""
    K.ticks_now()
    t0, c0 = time.perf_counter(), K.ticks_now()
    time.sleep(wait)
    t1, c1 = time.perf_counter(), K.ticks_now()
    return (t1 - t0) / max(c1 - c0, 1)


def set_threads(rep, threads):
    """Make a :class:`~solvers.public.rep.PublicTreeRep` run on ``threads`` threads (its scratch,
    one row per thread, is what splits the backward and values passes)."""
    rep.threads = int(threads)
    rep.state = rep.state._replace(scratch=scratch(rep.game_tree.flat, threads))


def _empty_overhead(rep, tick, count=20_000):
    """Seconds a timed call over no node costs (forward, backward, values): medians."""
    out = np.zeros((3, count), np.int64)
    K.empty_calls(rep.game_tree.flat, rep.state, rep.params, count, True, out)
    return np.median(out, axis=1) * tick


def node_times(rep, repeats, tick):
    """Single-thread seconds per node, medians over ``repeats`` iterations run node by node (the
    timers' own cost taken off): ``{"forward 1": ..., "backward 0": ..., "forward 0": ...,
    "backward 1": ..., "values 0": ...}`` (``forward q``: the pass that computes player ``q``'s
    reach, before the other's backward pass), plus ``"overhead"`` (seconds per empty call)."""
    set_threads(rep, 1)
    numba.set_num_threads(1)
    T, S, P = rep.game_tree.flat, rep.state, rep.params
    n = T.node_kind.shape[0]
    rep.iterate(1)  # both players' reach in the buffer, as timed_iteration expects
    fwd = np.zeros((repeats, 2, n), np.int64)
    bwd = np.zeros((repeats, 2, n), np.int64)
    for r in range(repeats):
        K.timed_iteration(T, S, P, fwd[r], bwd[r])
    over = _empty_overhead(rep, tick)
    out = {"overhead": over}
    f, b = np.median(fwd, axis=0) * tick, np.median(bwd, axis=0) * tick
    del fwd, bwd
    for p in (0, 1):
        out[f"forward {1 - p}"] = np.maximum(f[p] - over[0], 0.0)
        out[f"backward {p}"] = np.maximum(b[p] - over[1], 0.0)
    sigma = rep._normalize()
    forward(T, sigma, S.reach, False, BOTH_PLAYERS, no_live())
    vals = np.zeros((repeats, n), np.int64)
    for r in range(repeats):
        K.timed_values(T, sigma, S.reach, S.v, S.acc, S.scratch, 0, True, vals[r])
    out["values 0"] = np.maximum(np.median(vals, axis=0) * tick - over[2], 0.0)
    rep.iterate(1)  # the buffers as an iteration leaves them again
    return out


def _blocks(fn, repeats, clock):
    values = []
    for _ in range(repeats):
        began = clock()
        fn()
        values.append(clock() - began)
    return values


def iteration_times(rep, threads, iterations, repeats):
    """Seconds per iteration (a list, one per block of ``iterations``) on ``threads`` threads: in
    the calling thread's CPU time on one thread (what the load beside it does not add), else wall
    clock. ``threads`` 0: one thread, the serial drivers (no parallel region at all)."""
    set_threads(rep, max(threads, 1))
    keep = rep._prange
    rep._prange = keep and threads > 0
    try:
        rep.iterate(2)
        clock = time.thread_time if threads <= 1 else time.perf_counter
        blocks = _blocks(lambda: rep.iterate(iterations), repeats, clock)
    finally:
        rep._prange = keep
    return [b / iterations for b in blocks]


def region_cost(threads, count=2000, repeats=7):
    """Seconds a parallel region costs on ``threads`` threads (:func:`~.kernels.regions`), median
    over ``repeats`` blocks of ``count`` regions (wall clock)."""
    numba.set_num_threads(threads)
    out = np.zeros(threads)
    K.regions(10, out)
    blocks = _blocks(lambda: K.regions(count, out), repeats, time.perf_counter)
    return float(np.median(blocks)) / count, [b / count for b in blocks]


def pieces_overhead(tree, parts, iterations, repeats):
    """What cutting ``tree`` into a trunk and ``parts`` parts adds to a CFR+ iteration on one thread
    (:class:`solvers.PublicPieces`, the parts run one after the other as a solve in pieces runs
    them): ``(seconds per part and pass, parts, whole tree's iteration, pieces' iteration)``, CPU
    time. The cut is at the middle level."""
    import solvers
    from solvers.pieces.split import renumbered, split

    depth = (len(tree.level_start) - 1) // 2
    trunk, cut, _, actions = renumbered(*split(tree, depth, parts))
    pieces = solvers.PublicPieces(tree.game_id, trunk, cut, tree.infoset_actions[actions])
    out = []
    for t in (tree, pieces):
        solver = solvers.Solver(t, "cfr+", threads=1)
        solver.step(2)
        out.append(float(np.median(_blocks(lambda: solver.step(iterations), repeats,
                                           time.thread_time))) / iterations)
        del solver
    n = len(pieces.parts)
    return (out[1] - out[0]) / (2 * n), n, out[0], out[1]
