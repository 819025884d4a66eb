"""The forward pass of :mod:`solvers.public._kernel`: every entry's own reach, and which public nodes
each player reaches at all.

Beside the reach, a pass may keep one code per public node and player (``live``, int8, ``2 * N``:
``live[2 * s + q]``): :data:`LIVE` where some entry of ``q`` at ``s`` has reach, :data:`SILENT` where
none has but some has at the parent (or ``s`` is of the first level passed), :data:`BELOW` where the
parent is already silent. The backward pass reads the opponent's code to skip what it would compute
as zeros (:func:`solvers.public._kernel.backward`); below a silent node the reach is known to be
zero and is written without reading the parents, the slots or the strategy. With an empty ``live``
no code is kept (the passes that only evaluate).
"""

import numba
import numpy as np
from numba import prange

from solvers.public._node import (BELOW, LIVE, SILENT, _claim, _counters, _cut, _ix, _runs, _side,
                                  _small, _void)
from solvers.kinds import DECISION, TERMINAL

#: Iterations of the forward pass's parallel loop, each taking a level's runs until none is left
#: (:func:`_forward_parallel`): up to this many threads share a level. A constant, not the number of
#: threads: ``numba.get_num_threads`` would keep the pass out of the on-disk cache.
RUNS = 64

__all__ = ["LIVE", "SILENT", "BELOW", "forward", "forward_levels", "no_live"]


def no_live():
    """An empty ``live``: a forward pass that keeps no codes."""
    return np.empty(0, np.int8)


@numba.njit(cache=True, inline="always")
def _forward_side(T, sigma, reach, live, s, q):
    """Reach of player ``q``'s entries at the children of ``s`` from ``q``'s entries at ``s``: scaled by
    the strategy where ``q`` acts at ``s`` (slot >= 0), copied elsewhere (every slot is -1 there);
    and the children's codes (module docstring)."""
    pb, _ = _side(T, s, q)
    keep = live.shape[0] > 0
    gone = keep and live[2 * s + q] != LIVE
    acts = T.node_kind[s] == DECISION and T.node_player[s] == q
    for c in range(T.child_start[s], T.child_start[s] + T.num_children[s]):
        if keep and _void(T, c):  # no solving pass reads a terminal that pays nothing
            continue
        lo, n = _side(T, c, q)
        hi = lo + n
        if gone:
            for e in range(lo, hi):
                reach[_ix(e)] = 0.0
            live[2 * c + q] = BELOW
            continue
        some = False
        if acts:
            for e in range(lo, hi):
                par = _ix(pb + T.entry_parent[_ix(e)])
                r = reach[par]
                k = T.entry_slot[_ix(e)]
                if k >= 0:
                    r *= sigma[_ix(T.infoset_offset[_ix(T.entry_ref[par])] + k)]
                reach[_ix(e)] = r
                some |= r != 0.0
        else:
            for e in range(lo, hi):
                r = reach[_ix(pb + T.entry_parent[_ix(e)])]
                reach[_ix(e)] = r
                some |= r != 0.0
        if keep:
            live[2 * c + q] = LIVE if some else SILENT


@numba.njit(cache=True, inline="always")
def _forward_node(T, sigma, reach, live, s, q):
    """Reach of the entries of ``s``'s children from those of ``s``: player ``q``'s, or both players'
    (``BOTH_PLAYERS``). Each side is its own loop, so a pass that needs one player's reach reads and
    writes only that player's entries."""
    if T.node_kind[s] == TERMINAL:
        return
    if q != 1:
        _forward_side(T, sigma, reach, live, s, 0)
    if q != 0:
        _forward_side(T, sigma, reach, live, s, 1)


@numba.njit(cache=True, _nrt=False)
def _forward_run(T, sigma, reach, live, a, b, q):
    """Nodes ``a`` to ``b - 1`` (of one or more levels, in order): the one compiled copy of the
    forward pass's node, called for every level at once on one thread and by the parallel driver,
    without reference counting (as :func:`solvers.public._kernel._backward_run`)."""
    for s in range(a, b):
        _forward_node(T, sigma, reach, live, s, q)


@numba.njit(cache=True, parallel=True)
def _forward_parallel(T, sigma, reach, live, lo, hi, q, claim):
    """Each level in one parallel region whose threads take its runs one at a time
    (:func:`~solvers.public._node._claim`), but a level whose children hold few entries
    (:func:`~solvers.public._node._small`) on the calling thread. ``claim``: zeros, one per level.
    ``RUNS`` loop iterations, each taking runs until none is left, so any number of threads up to
    ``RUNS`` shares the runs (numba's thread count kept out of the compiled code)."""
    ls = T.level_start
    for d in range(lo, hi):
        a, b = ls[d], ls[d + 1]
        if _small(T, d + 1):
            _forward_run(T, sigma, reach, live, a, b, q)
        else:
            nr = _runs(T, a, b)
            for t in prange(RUNS):
                r = _claim(claim, d)
                while r < nr:
                    _forward_run(T, sigma, reach, live, _cut(T, a, b, r, nr),
                                 _cut(T, a, b, r + 1, nr), q)
                    r = _claim(claim, d)


@numba.njit(cache=True)
def _first_codes(T, reach, live, lo, q):
    """The codes of level ``lo``'s nodes from their entries' reach (set by the caller)."""
    for s in range(T.level_start[lo], T.level_start[lo + 1]):
        for x in range(2):
            if q == x or q > 1:
                b, n = _side(T, s, x)
                some = False
                for e in range(b, b + n):
                    some |= reach[e] != 0.0
                live[2 * s + x] = LIVE if some else SILENT


@numba.njit(cache=True)
def forward_levels(T, sigma, reach, lo, hi, parallel, q, live):
    """The reach of the entries of levels ``lo + 1 .. hi`` from those of level ``lo`` (already set):
    the nodes of levels ``lo .. hi - 1`` pass their entries' reach to their children; player ``q``'s
    entries only, or both players' (``BOTH_PLAYERS``), and their codes in ``live`` (levels ``lo ..
    hi``; empty: none kept). ``q`` has no default: an omitted or constant argument would compile
    every driver a second time."""
    if live.shape[0] > 0:
        _first_codes(T, reach, live, lo, q)
    if parallel:
        _forward_parallel(T, sigma, reach, live, lo, hi, q, _counters(T))
    else:
        _forward_run(T, sigma, reach, live, T.level_start[lo], T.level_start[hi], q)


@numba.njit(cache=True)
def forward(T, sigma, reach, parallel, q, live):
    """Every entry's own reach under ``sigma`` (float64, per action); ``reach`` (per entry) rewritten.

    ``parallel``: one ``prange`` per level (else one loop over the nodes); ``q``: player ``q``'s
    entries only (the others' left as they are), or every entry (``BOTH_PLAYERS``); ``live``: the
    nodes' codes (module docstring), or empty.
    """
    for i in range(T.entry_start[1]):
        reach[i] = 1.0
    forward_levels(T, sigma, reach, np.int64(0), T.level_start.shape[0] - 2, parallel, q, live)
