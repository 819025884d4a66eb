"""The model of :mod:`benchmarks.threads`: what an iteration of the public tree's passes takes on ``P``
threads, from what one thread measures node by node.

A pass runs level by level; each level that runs as a parallel region is split into ``P`` shares of
consecutive nodes (the drivers' rule: :func:`cut`), one per thread, and ends when its slowest share
does. So the time of a level on ``P`` threads is at least its *makespan* (the largest share's
single-thread time), at least the time its bytes take at the bandwidth ``P`` threads have, and it
pays the region's fixed cost (fork, join, barrier) once::

    T(P) = sum over passes and levels of  max(speed * makespan_P, bytes / bandwidth(P))  + regions(P) * c(P)

A level that runs on the calling thread (no region) costs its single-thread time. Assumptions: a
node costs on ``P`` threads what it costs alone on one (no slowdown from sharing caches beyond the
bandwidth floor); the bytes are an upper bound (every node live, nothing reused from the caches:
:func:`node_bytes`); ``speed`` scales this machine's single-thread times to another machine's.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field

import numpy as np

from solvers.kinds import DECISION, TERMINAL
from solvers.public._node import MAX_RUNS, RUN_ENTRIES

__all__ = ["CLAIMS", "claimed", "cut", "shares", "level_of", "makespans", "node_bytes", "PassProfile", "model_time",
           "best_shares"]


#: The runs the claims of :func:`claimed` cut a level into: about this many entries each, at most
#: this many runs (the drivers' own constants).
CLAIMS = (RUN_ENTRIES, MAX_RUNS)


def cut(es, a, b, t, nt):
    """Where run ``t`` of ``nt`` of nodes ``a .. b-1`` starts (:func:`solvers.public._node._cut`)."""
    if t == 0 or t == nt:
        return a if t == 0 else b
    return a + int(np.searchsorted(es[a:b], es[a] + (es[b] - es[a]) * t // nt))


def shares(es, a, b, threads, runs=None):
    """Node bounds (``threads + 1``) of the threads' shares of nodes ``a .. b-1``: ``runs`` runs of
    about as many entries each (:func:`cut`) taken in contiguous blocks (``prange``'s static
    schedule), or one run per thread (``runs`` None)."""
    runs = runs or threads
    bounds = [cut(es, a, b, t, runs) for t in range(runs + 1)]
    return np.array([bounds[i * runs // threads] for i in range(threads + 1)], np.int64)


def best_shares(prefix, a, b, threads):
    """The bounds of ``threads`` shares of nodes ``a .. b-1`` of about equal measured cost (cut
    where the running cost ``prefix`` (per node, from 0) crosses each ``threads``-th): what the
    best static split by a cost known in advance would do."""
    targets = prefix[a] + (prefix[b] - prefix[a]) * np.arange(1, threads) / threads
    inner = a + np.searchsorted(prefix[a:b + 1], targets)
    return np.concatenate(([a], np.clip(inner, a, b), [b])).astype(np.int64)


def claimed(prefix, es, a, b, threads, run_entries, max_runs):
    """The makespan of nodes ``a .. b-1`` on ``threads`` threads that take runs of about
    ``run_entries`` entries (at most ``max_runs``) one at a time, each the next when done with its
    last (the drivers' claims, :func:`solvers.public._node._claim`): list scheduling, in order."""
    runs = int(min(max_runs, max(1, (es[b] - es[a]) // run_entries)))
    bounds = np.array([cut(es, a, b, t, runs) for t in range(runs + 1)])
    costs = prefix[bounds[1:]] - prefix[bounds[:-1]]
    finish = [0.0] * threads
    heapq.heapify(finish)
    for c in costs:
        heapq.heappush(finish, heapq.heappop(finish) + c)
    return max(finish)


def level_of(level_start):
    """Each node's level (int64)."""
    n = int(level_start[-1])
    return np.searchsorted(level_start, np.arange(n), side="right") - 1


def makespans(cost, es, level_start, threads, runs=None, rule="entries"):
    """Per level, the largest share's cost on ``threads`` threads: a split fixed by entries
    (``rule="entries"``, :func:`shares`), the best split by the measured cost (``"cost"``), or
    runs of :data:`CLAIMS` taken one at a time (``"claims"``, :func:`claimed`)."""
    prefix = np.concatenate(([0.0], np.cumsum(cost, dtype=np.float64)))
    out = np.zeros(len(level_start) - 1)
    for d in range(len(level_start) - 1):
        a, b = int(level_start[d]), int(level_start[d + 1])
        if a == b:
            continue
        if rule == "claims":
            out[d] = claimed(prefix, es, a, b, threads, *CLAIMS)
            continue
        bounds = (shares(es, a, b, threads, runs) if rule == "entries"
                  else best_shares(prefix, a, b, threads))
        out[d] = np.max(prefix[bounds[1:]] - prefix[bounds[:-1]])
    return out


def _per_child_sum(flat, values):
    """Per node, the sum of ``values`` (per node) over its children (0 at a terminal)."""
    inner = flat.node_kind != TERMINAL
    prefix = np.concatenate(([0], np.cumsum(values, dtype=np.int64)))
    lo = np.where(inner, flat.child_start, 0)
    hi = np.where(inner, flat.child_start + flat.num_children, 0)
    return prefix[hi] - prefix[lo]


def node_bytes(flat, real=8, live=None):
    """Per pass (``"forward q"`` for q 0 and 1, ``"backward p"``, ``"values 0"``), the bytes each
    node's step reads and writes, as an upper bound: every array element counted once per touch,
    nothing reused from the caches. Indices 4 bytes (int32), slots 1, a real ``real``; an entry
    step reads its parent's index and slot and the parent's reach or writes the parent's value; an
    action update reads and writes the strategy, regret, average weight and action value; a
    terminal reads both players' entries and every cell of its matrix (12 bytes: the value and its
    column). With ``live`` (a solve's codes, :mod:`solvers.public._forward`), a node a pass skips
    (the forward pass below a node its player does not reach, the backward pass where the opponent
    does not) counts only the zeros it writes and the average weights it adds; without, every node
    counts in full (the values pass always does)."""
    es = flat.entry_start
    n = flat.node_kind.shape[0]
    n0 = flat.num_entries0.astype(np.int64)
    counts = (n0, np.diff(es) - n0)
    kind = flat.node_kind
    void = (kind == TERMINAL) & (flat.term_scale == 0.0)
    actions = np.bincount(flat.infoset_node, weights=flat.infoset_num_actions, minlength=n)
    term = (kind == TERMINAL) & ~void
    m = np.where(term, flat.term_matrix, 0)
    cells = np.where(term, flat.matrix_start[m + 1] - flat.matrix_start[m], 0) if n else m
    reached = np.ones((n, 2), bool) if live is None else live.reshape(n, 2) == 0  # LIVE
    out = {}
    for q in (0, 1):
        acts = (kind == DECISION) & (flat.node_player == q)
        child = _per_child_sum(flat, np.where(void, 0, counts[q]))
        full = child * (5 + 2 * real) + acts * actions * (4 + real)
        out[f"forward {q}"] = np.where(reached[:, q], full, child * real)
        own = counts[q] * (4 + real)
        at_terminal = term * (own + counts[1 - q] * (4 + real) + cells * 12)
        inner = (kind != TERMINAL) * (child * (5 + real) + counts[q] * real)
        update = acts * (actions * 8 * real + counts[q] * (8 + real))
        skipped = ~void * counts[q] * real + acts * reached[:, q] * actions * 3 * real
        out[f"backward {q}"] = np.where(reached[:, 1 - q], at_terminal + inner + update, skipped)
        if q == 0:
            out["values 0"] = at_terminal + inner + acts * actions * 2 * real
    return {k: v.astype(np.float64) for k, v in out.items()}


@dataclass
class PassProfile:
    """One pass's single-thread cost per node (seconds), bytes per node, and its split: ``runs``
    runs taken in blocks (the forward pass: 64) or None (one run per thread)."""

    name: str
    cost: np.ndarray
    bytes: np.ndarray
    runs: int | None = None
    per_iteration: float = 1.0  # how many times an iteration runs it
    level_cost: np.ndarray = field(default=None, repr=False)
    level_bytes: np.ndarray = field(default=None, repr=False)

    def levels(self, level_start):
        """Fill ``level_cost`` and ``level_bytes`` (sums per level)."""
        lv = level_of(level_start)
        nl = len(level_start) - 1
        self.level_cost = np.bincount(lv, weights=self.cost, minlength=nl)
        self.level_bytes = np.bincount(lv, weights=self.bytes, minlength=nl)
        return self


def model_time(passes, es, level_start, threads, region_cost, bandwidth, speed=1.0,
               parallel_levels=None, rule="entries"):
    """``(seconds, work, floor, regions)`` of an iteration on ``threads`` threads (module docstring).

    ``region_cost`` seconds per region; ``bandwidth`` ``(one thread's, threads')`` bytes per
    second; ``parallel_levels`` (per pass name, a bool per level; None: every level) which levels
    run as regions, the others on the calling thread; ``rule`` the split (:func:`makespans`).
    ``work`` is the compute part alone (``speed`` times the makespans, or the single-thread time
    of a level run on the calling thread), ``floor`` the bytes' part alone."""
    one, many = bandwidth
    total = work = floor = 0.0
    regions = 0
    for p in passes:
        if p.per_iteration == 0:
            continue
        mk = makespans(p.cost, es, level_start, threads, p.runs, rule) * speed
        if parallel_levels is None:
            par = np.ones(len(mk), bool)
            par[-1] = not p.name.startswith("forward")  # no forward pass from the last level
        else:
            par = parallel_levels[p.name]
        serial = p.level_cost * speed
        level = np.where(par, np.maximum(mk, p.level_bytes / many),
                         np.maximum(serial, p.level_bytes / one))
        n = int(par.sum())
        total += p.per_iteration * (level.sum() + n * region_cost)
        work += p.per_iteration * np.where(par, mk, serial).sum()
        floor += p.per_iteration * np.where(par, p.level_bytes / many, p.level_bytes / one).sum()
        regions += p.per_iteration * n
    return total, work, floor, regions
