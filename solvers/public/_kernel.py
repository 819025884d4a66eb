"""Vector CFR over a :class:`~solvers.trees.publictree.PublicTree`: the CFR family and exact best response.

One number per entry (a player's private state at a public node) goes down the tree and one comes
up. The forward pass (:func:`forward`) gives every entry its player's own reach (the product of that
player's strategy along the path); the backward pass (:func:`backward`) gives every entry of an updated
player its counterfactual value: at a terminal, the matrix of chance weights times the opponent's reach
vector; above, the sum over the children's entries that came from it, the actor's weighted by the
strategy. At the updated player's decision nodes the same pass then updates each information set
(entry) at once, in the order of the history kernel (:mod:`solvers.history._kernel`): average weights
``cumulative += count * ((t**gamma * reach) * strategy)`` with the strategy just played, the variant's
regret update, regret matching. The update can run as soon as a node's values are known because an
information set lies at one public node and nothing above it reads its strategy again in the pass.
PCFR+ carries a second value per entry, the prediction (values under the new strategies below), and
does its predictive regret matching in the same visit. With alternating updates an iteration is a
forward and a backward pass for player 0, then for player 1; with simultaneous updates one of each.

A pass touches only the entries it needs: the entries of the players it is for (each node's are two
runs, one per player); an alternating iteration's forward pass recomputes only the reach of the
player updated last, but at the first pass of a call. Below a public node where the opponent reaches
none of its entries every value of ``p`` is zero: the backward pass reads neither its children nor
its matrices and only updates ``p``'s information sets there with zero action values (the codes of
:mod:`solvers.public._forward`). A terminal that pays nothing (``term_scale`` 0,
:func:`~solvers.public._node._void`) is not visited by a solving pass at all. A terminal reads a
matrix row once for a run of entries sharing it (figures for each: docs/research/public-speed.md).
None of this changes a result.

Every pass runs level by level; the nodes of a level are independent (their entries, information sets
and actions are their own), so a level is shared between threads in runs of contiguous nodes of about
as many entries each, which the threads take one at a time (a level with little work runs on the
calling thread: :data:`solvers.public._node.LEVEL_MIN_ENTRIES`); which thread runs a node changes no
value. Kernels allocate nothing but a counter per level: the terminals' sparse products use the
caller's :func:`scratch`, one vector per thread (loop iteration) of the parallel loops (the thread ids
of numba's ``get_thread_id`` would keep the kernels out of the on-disk cache; interleaved nodes
shared cache lines between threads at every node and made two threads slower than one).
"""

import numba
import numpy as np
from numba import prange

from solvers.cfr.matching import schedule
from solvers.public._forward import LIVE, forward, forward_levels
from solvers.public._infoset import _average, _lock, _update
from solvers.public._node import (_claim, _counters, _cut, _ix, _runs, _side, _small, _terminals,
                                  _void, _zero_side, scratch)
from solvers.kinds import BOTH_PLAYERS, DECISION, TERMINAL

#: ``BOTH_PLAYERS`` as an array element: passed from compiled code, a bare constant would be typed
#: as a literal and compile the passes once more for it.
_ALL = np.array([BOTH_PLAYERS], np.int64)

__all__ = ["forward", "forward_levels", "backward", "backward_levels",
           "run_iterations", "values", "values_levels", "evaluate", "scratch", "state_arrays"]


@numba.njit(cache=True, inline="always")
def _gather_side(T, s, v, w, acc, acc2, q, acts):
    """Player ``q``'s part of :func:`_gather`: its children's entries' values into its entries at ``s``
    or, where ``q`` acts at ``s`` (``acts``), into the action values of its information sets."""
    predictive = w.shape[0] > 0
    b, n = _side(T, s, q)
    for i in range(b, b + n):  # the actor's information sets are set by their update
        v[_ix(i)] = 0.0
        if predictive:
            w[_ix(i)] = 0.0
    for c in range(T.child_start[s], T.child_start[s] + T.num_children[s]):
        if _void(T, c):  # its values are zero
            continue
        lo, n = _side(T, c, q)
        hi = lo + n
        if acts:
            for e in range(lo, hi):
                par = _ix(b + T.entry_parent[_ix(e)])
                k = T.entry_slot[_ix(e)]
                if k >= 0:
                    o = _ix(T.infoset_offset[_ix(T.entry_ref[par])] + k)
                    acc[o] += v[_ix(e)]
                    if predictive:
                        acc2[o] += w[_ix(e)]
                else:  # an entry passing through without a decision
                    v[par] += v[_ix(e)]
                    if predictive:
                        w[par] += w[_ix(e)]
        else:  # the opponent's or chance's node (every slot is -1 there)
            for e in range(lo, hi):
                par = _ix(b + T.entry_parent[_ix(e)])
                v[par] += v[_ix(e)]
                if predictive:
                    w[par] += w[_ix(e)]


@numba.njit(cache=True, inline="always")
def _gather(T, s, v, w, acc, acc2, actor, p):
    """Children's values into ``s``'s entries (updated players) and the actor's action values: player
    ``p``'s side only, or both (``BOTH_PLAYERS``)."""
    if p != 1:
        _gather_side(T, s, v, w, acc, acc2, 0, actor == 0)
    if p != 0:
        _gather_side(T, s, v, w, acc, acc2, 1, actor == 1)


@numba.njit(cache=True, inline="always")
def _zero_values(T, B, plus, discount, p, weight, fpos, fneg, s, kind, code):
    """Node ``s`` of :func:`backward` for player ``p`` when the opponent has no reach there (``code``
    :data:`SILENT` or :data:`BELOW`): every value of ``p`` at and below ``s`` is zero, so the
    children are not read; ``p``'s entries are set to zero where the parent reads them (not below a
    silent parent), and ``p``'s information sets at ``s`` are updated with zero action values
    (``acc`` is zero), as the full computation would. Without discounts or predictions (CFR, CFR+)
    the regrets gain zero and the strategy, their regret matching, stays: only the average weights
    are added, where ``p`` has reach. This holds as long as each strategy is the regret matching of
    its regrets and CFR+'s regrets are not negative, as every update (and checkpoint) leaves them."""
    sigma, regret, cumulative, acc, acc2, reach, v, w, live, lock, model = B
    b, n = _zero_side(T, s, p, v, w, code)
    cheap = not discount and w.shape[0] == 0
    if kind == DECISION and T.node_player[s] == p and not (cheap and live[2 * s + p] != LIVE):
        for x in range(b, b + n):
            I = T.entry_ref[x]
            if I < 0:
                continue
            o, m = T.infoset_offset[I], T.infoset_num_actions[I]
            if not cheap:
                _update(T, x, o, m, sigma, regret, cumulative, acc, acc2, reach, v, w, plus,
                        discount, weight, fpos, fneg, _lock(lock, I), model)
            elif reach[x] != 0.0:
                _average(T, x, o, m, sigma, cumulative, reach, weight)


@numba.njit(cache=True, inline="always")
def _backward_body(T, B, plus, discount, p, weight, fpos, fneg, s):
    """Node ``s`` of :func:`backward` (inlined with ``p`` a constant: see :func:`_backward_node`).

    ``B`` is ``(sigma, regret, cumulative, acc, acc2, reach, v, w, live, lock, model)``, the state's
    arrays. A terminal is skipped: the drivers compute a run's terminals before its other nodes, in one call
    (:func:`~solvers.public._node._terminals`).
    """
    sigma, regret, cumulative, acc, acc2, reach, v, w, live, lock, model = B
    kind = T.node_kind[s]
    if kind == TERMINAL:
        return
    if p != BOTH_PLAYERS and live[2 * s + 1 - p] != LIVE:
        _zero_values(T, B, plus, discount, p, weight, fpos, fneg, s, kind, live[2 * s + 1 - p])
        return
    actor = T.node_player[s] if kind == DECISION else -1
    _gather(T, s, v, w, acc, acc2, actor, p)
    if actor >= 0 and (p == BOTH_PLAYERS or p == actor):
        b, n = _side(T, s, actor)
        for x in range(b, b + n):
            I = T.entry_ref[x]
            if I >= 0:
                _update(T, x, T.infoset_offset[I], T.infoset_num_actions[I], sigma, regret,
                        cumulative, acc, acc2, reach, v, w, plus, discount, weight, fpos, fneg,
                        _lock(lock, I), model)


@numba.njit(cache=True, inline="always")
def _backward_node(T, B, plus, discount, p, weight, fpos, fneg, s):
    """Node ``s`` of :func:`backward`, the body inlined once per player with ``p`` a constant: with
    ``p`` a run-time value the pass took several times as long (docs/research/design-measurements.md)."""
    if p == 0:
        _backward_body(T, B, plus, discount, 0, weight, fpos, fneg, s)
    elif p == 1:
        _backward_body(T, B, plus, discount, 1, weight, fpos, fneg, s)
    else:
        _backward_body(T, B, plus, discount, BOTH_PLAYERS, weight, fpos, fneg, s)


@numba.njit(cache=True, _nrt=False)
def _backward_run(T, B, plus, discount, p, weight, fpos, fneg, a, b, x):
    """Nodes ``a`` to ``b - 1`` of one level for :func:`backward`, its terminals first (in one call,
    with the scratch row ``x``): the one compiled copy of the nodes' bodies, called by the serial
    and the parallel drivers alike (the nodes of a level are independent, so their order does not
    matter). Compiled without reference counting (it allocates nothing; its callers own the
    arrays): numba's counts on the arrays a node unpacks (``B``, ``T``'s fields) made an iteration
    markedly slower, and one copy compiles faster than a copy in each driver (docs/research/design-measurements.md)."""
    _terminals(T, a, b, B[5], B[6], B[7], B[8], p, x)
    for s in range(a, b):
        _backward_node(T, B, plus, discount, p, weight, fpos, fneg, s)


@numba.njit(cache=True)
def _backward_serial(T, B, plus, discount, p, weight, fpos, fneg, lo, hi, X):
    ls = T.level_start
    for d in range(hi - 1, lo - 1, -1):
        _backward_run(T, B, plus, discount, p, weight, fpos, fneg, ls[d], ls[d + 1], X[0])


@numba.njit(cache=True, parallel=True)
def _backward_parallel(T, B, plus, discount, p, weight, fpos, fneg, lo, hi, X, claim):
    """As :func:`~solvers.public._forward._forward_parallel`: a small level on the calling thread,
    a larger one's runs taken one at a time by the threads, loop iteration ``t`` with the scratch
    row ``X[t]`` (one iteration runs at a time on a thread, so no row is shared)."""
    ls = T.level_start
    for d in range(hi - 1, lo - 1, -1):
        a, b = ls[d], ls[d + 1]
        if _small(T, d):
            _backward_run(T, B, plus, discount, p, weight, fpos, fneg, a, b, X[0])
        else:
            nr = _runs(T, a, b)
            for t in prange(X.shape[0]):
                r = _claim(claim, d)
                while r < nr:
                    _backward_run(T, B, plus, discount, p, weight, fpos, fneg, _cut(T, a, b, r, nr),
                                  _cut(T, a, b, r + 1, nr), X[t])
                    r = _claim(claim, d)


@numba.njit(cache=True, inline="always")
def state_arrays(S):
    """``B``, the arrays of the :class:`~solvers.public.rep.PublicState` ``S`` the backward pass's
    nodes take (:func:`_backward_body`), in their order."""
    return (S.sigma, S.regret, S.cumulative, S.acc, S.acc2, S.reach, S.v, S.w, S.live, S.lock, S.model)


@numba.njit(cache=True)
def backward_levels(T, S, P, p, weight, fpos, fneg, lo, hi, parallel):
    """:func:`backward` over the nodes of levels ``hi - 1`` down to ``lo`` only (the values of level
    ``hi``'s entries already known)."""
    B = state_arrays(S)
    X = S.scratch
    if parallel:
        _backward_parallel(T, B, P.plus, P.discount, p, weight, fpos, fneg, lo, hi, X, _counters(T))
    else:
        _backward_serial(T, B, P.plus, P.discount, p, weight, fpos, fneg, lo, hi, X)


@numba.njit(cache=True)
def backward(T, S, P, p, weight, fpos, fneg, parallel):
    """Values of ``p``'s entries (both players' with ``BOTH_PLAYERS``), updating its information sets.

    ``S`` is a :class:`~solvers.public.rep.PublicState` (``reach`` and ``live`` from :func:`forward`
    on the same arrays: a node where the opponent has no reach is not read below), ``P`` the
    :class:`~solvers.cfr.state.Params`; ``weight``, ``fpos``, ``fneg`` the iteration's averaging weight
    and regret discounts (:func:`solvers.cfr.matching.schedule`); ``parallel`` as for :func:`forward`.
    """
    first = np.int64(0)  # not a literal 0: the drivers called from Python take an int64 (_ALL)
    backward_levels(T, S, P, p, weight, fpos, fneg, first, T.level_start.shape[0] - 1, parallel)


@numba.njit(cache=True)
def run_iterations(T, S, P, num_iterations, parallel):
    """Run ``num_iterations`` iterations in place (``S.counter[0]`` counts them). Returns 0."""
    players = 1 if P.simultaneous else 2
    fresh = True
    for _ in range(num_iterations):
        t = S.counter[0] + 1
        weight, fpos, fneg = schedule(t, P)
        for pi in range(players):
            p = BOTH_PLAYERS if P.simultaneous else pi
            # Only the reach of the player updated last has changed since the last pass: the
            # other's is still in ``S.reach``, except at the first pass of a call (a check or a
            # best response may have used the buffer in between).
            forward(T, S.sigma, S.reach, parallel, BOTH_PLAYERS if fresh or p == BOTH_PLAYERS
                    else 1 - p, S.live)
            fresh = False
            backward(T, S, P, p, weight, fpos, fneg, parallel)
        S.counter[0] = t
    return 0


@numba.njit(cache=True, inline="always")
def _value_body(T, sigma, reach, v, acc, p, best, choice, s):
    """Node ``s`` of :func:`values` (inlined with ``p`` a constant, as :func:`_backward_node`)."""
    kind = T.node_kind[s]
    if kind == TERMINAL:  # :func:`_terminals`
        return
    actor = T.node_player[s] if kind == DECISION else -1
    _gather(T, s, v, v[:0], acc, acc, actor, p)
    if actor >= 0 and (actor == p or p == BOTH_PLAYERS):
        b, n = _side(T, s, actor)
        for x in range(b, b + n):
            I = T.entry_ref[x]
            if I < 0:
                continue
            o = T.infoset_offset[I]
            value = -np.inf if best else 0.0
            arg = 0
            for a in range(T.infoset_num_actions[I]):
                y = acc[o + a]
                if best:
                    if y > value:
                        value = y
                        arg = a
                else:
                    value += sigma[o + a] * y
                acc[o + a] = 0.0
            v[x] = value
            if choice.shape[0] > 0:
                choice[I] = arg


@numba.njit(cache=True, inline="always")
def _value_node(T, sigma, reach, v, acc, p, best, choice, s):
    """Node ``s`` of :func:`values`, one inlined body per constant ``p``."""
    if p == 0:
        _value_body(T, sigma, reach, v, acc, 0, best, choice, s)
    elif p == 1:
        _value_body(T, sigma, reach, v, acc, 1, best, choice, s)
    else:
        _value_body(T, sigma, reach, v, acc, BOTH_PLAYERS, best, choice, s)


@numba.njit(cache=True, _nrt=False)
def _values_run(T, sigma, reach, v, acc, p, best, choice, a, b, x):
    """Nodes ``a`` to ``b - 1`` of one level for :func:`values` (as :func:`_backward_run`)."""
    _terminals(T, a, b, reach, v, v[:0], T.node_kind[:0], p, x)
    for s in range(a, b):
        _value_node(T, sigma, reach, v, acc, p, best, choice, s)


@numba.njit(cache=True)
def _values_serial(T, sigma, reach, v, acc, p, best, choice, lo, hi, X):
    ls = T.level_start
    for d in range(hi - 1, lo - 1, -1):
        _values_run(T, sigma, reach, v, acc, p, best, choice, ls[d], ls[d + 1], X[0])


@numba.njit(cache=True, parallel=True)
def _values_parallel(T, sigma, reach, v, acc, p, best, choice, lo, hi, X, claim):
    """As :func:`_backward_parallel`."""
    ls = T.level_start
    for d in range(hi - 1, lo - 1, -1):
        a, b = ls[d], ls[d + 1]
        if _small(T, d):
            _values_run(T, sigma, reach, v, acc, p, best, choice, a, b, X[0])
        else:
            nr = _runs(T, a, b)
            for t in prange(X.shape[0]):
                r = _claim(claim, d)
                while r < nr:
                    _values_run(T, sigma, reach, v, acc, p, best, choice, _cut(T, a, b, r, nr),
                                _cut(T, a, b, r + 1, nr), X[t])
                    r = _claim(claim, d)


@numba.njit(cache=True)
def values_levels(T, sigma, reach, v, acc, X, p, best, choice, lo, hi, parallel):
    """:func:`values` over the nodes of levels ``hi - 1`` down to ``lo`` only."""
    if parallel:
        _values_parallel(T, sigma, reach, v, acc, p, best, choice, lo, hi, X, _counters(T))
    else:
        _values_serial(T, sigma, reach, v, acc, p, best, choice, lo, hi, X)


@numba.njit(cache=True)
def values(T, sigma, reach, v, acc, X, p, best, choice, parallel):
    """Counterfactual values of player ``p``'s entries (``p`` 0, 1 or ``BOTH_PLAYERS``) under ``sigma``.

    ``reach`` (per entry) from :func:`forward`; ``v`` (per entry) receives the values; ``acc`` (per
    action, zero, left zero) and ``X`` (:func:`scratch`) are work buffers. At ``p``'s own decisions the strategy's value, or with
    ``best`` the best action's (a best response). ``choice`` (int32, per
    information set, or empty) receives the best action's position at ``p``'s information sets.
    """
    values_levels(T, sigma, reach, v, acc, X, p, best, choice, np.int64(0), T.level_start.shape[0] - 1,
                  parallel)


@numba.njit(cache=True)
def evaluate(T, sigma, reach, v, acc, X, parallel):
    """``(br0, br1, ev0)`` of ``sigma``: best-response values of both players, player 0's value.

    ``reach`` and ``v`` (float64, per entry), ``acc`` (float64, per action, all zero; left zero) and
    ``X`` (:func:`scratch`) are work buffers.
    """
    forward(T, sigma, reach, parallel, _ALL[0], np.empty(0, np.int8))
    out = np.zeros(3)
    for k in range(3):
        p = 1 if k == 1 else 0
        values(T, sigma, reach, v, acc, X, p, k < 2, np.empty(0, np.int32), parallel)
        out[k] = v[T.entry_start[0] + (0 if p == 0 else T.num_entries0[0])]
    return out[0], out[1], out[2]
