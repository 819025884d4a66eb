"""Exact leaf values of a sampled strategy: the rest of the game as a Markov chain over turn starts.

When a strategy trained by sampling keys its decisions by features of the state alone (no history),
the rest of a game played by it is a Markov chain: what happens in a turn depends on the state at the
turn's start, not on how it was reached. Its value from a state is then an expectation over that
chain, which :func:`build_chain` and :func:`sweep` compute exactly, with no sampling noise, instead of
estimating it by rollouts (:mod:`solvers.mccfr.rollout`). This is the exact option of depth-limited
solving's leaf values (Brown, Sandholm and Amos, "Depth-limited solving for imperfect-information
games", NeurIPS 2018: each leaf's value under each pair of continuation strategies).

**The chain.** Its states are the game's states at which a *clock* (the game's turn counter) has just
ticked, keyed by a hash that ignores the clock (``key``). :func:`build_chain` walks, from each state in
turn, every move of the turn with positive probability under some pair of continuations (the
strategy's average weighted by ``weigh(P, s, p, action, c)`` and renormalised, as the rollouts play
it) and every chance outcome, to the next tick or the end: the ticks reached are new states of the
chain (found breadth first) and become the state's edges, each with ``K * K`` probabilities, one per
pair; the ends add their payoff to the state's ``term``; ``lim`` is what the state's turn pays when the
clock runs out at its end (the game's limit payoff of each tick reached, ``limit_returns``). The clock
is set to ``first`` before each walk, so a turn's play may not depend on it except at the limit.

**The values.** With ``m`` turns left before the limit (the state's own included),
``V_1 = term + lim`` and ``V_m = term + T V_(m-1)``, where ``T`` is the edges' matrix: :func:`sweep`
takes one step. A leaf at clock ``t`` of a game of ``limit`` turns has ``limit - t + 1`` turns left, so
that many sweeps give its value exactly (edge probabilities are stored in single precision). Since
``T``'s rows sum to at most 1, a step changes a value by no more than the step before it did, so
once a step changes none by more than ``e``, the ``r`` steps left change none by more than ``r e``: a
caller may stop there and say so.

Like the other kernels that take a game, these are inlined into a binding's cached entry point
(:mod:`solvers.mccfr.kernel`).
"""

import numpy as np
from numba import njit, prange

from solvers.mccfr.kernel import CHANCE, ERR_DEPTH, OK, TERMINAL
from solvers.mccfr.rollout import STOPPED, strategy_at

__all__ = ["build_chain", "insert", "rehash", "sweep", "ERR_TABLE", "NEED_ROOM", "NOT_INT8", "ROOM",
           "TOO_WIDE"]

NEED_ROOM = 10  # the ring of states to expand, the key table or the edges are full: grow and go on
TOO_WIDE = 11  # a turn reaches more than ROOM ticks or ends
NOT_INT8 = 12  # a state with an entry outside int8
ERR_TABLE = 13  # the strategy's table has a key of another owner or number of actions
ROOM = 4096  # the room kept free, per state expanded, in the ring, the key table, the rows and the edges


@njit(inline="always")
def insert(keys, idx, z, n):
    """``(index, new)``: the index of key ``z``, given ``n`` when it is new."""
    mask = np.uint64(keys.shape[0] - 1)
    j = z & mask
    while keys[j] != 0:
        if keys[j] == z:
            return idx[j], False
        j = (j + np.uint64(1)) & mask
    keys[j] = z
    idx[j] = n
    return n, True


@njit(inline="always")
def build_chain(game, weigh, clock, key, limit_returns, P, W, n, state_size, max_moves, max_depth, first,
                horizon, table, stats, avg, prior, K, base, ring, ring_h, keys, idx, counts, row_start, succ, prob,
                term, lim, control):
    """Expand the chain's states from ``counts[0]`` (the next to expand) until every state found is
    expanded (``OK``), ``control[0]`` asks to stop (``STOPPED``, polled per state), or something is full
    (``NEED_ROOM``): the caller grows it and calls again; finished states are kept.

    ``counts``: [next state to expand, states found, edges written, end of the search's current
    level, that level] (the level: how many turns after the first states'; start it at
    ``[0, first states, 0, first states, 0]``). The first states have ``horizon`` turns left (their
    own included); a state found at level ``l`` is needed with ``horizon - l`` turns left at most, so
    the turns that start after the last one needed are not searched (its edges are left out: a value
    with one turn left is ``term + lim``).

    ``ring``/``ring_h`` (int8 states, their hashes): the found states not yet expanded, state ``i``
    in slot ``i % len(ring)``; the caller puts the first ones there (with their keys in
    ``keys``/``idx``). Only a state's first ``ring.shape[1]`` entries are kept: the rest must be the
    same in every state, ``base``'s. ``row_start[i]``: state ``i``'s first edge; ``succ``/``prob``
    (int32, float32 ``(edges, K*K)``): the edges; ``term``/``lim`` (float64 ``(states, K*K)``): module
    docstring. Returns ``ERR_DEPTH`` for a turn deeper
    than ``max_depth``, ``TOO_WIDE``, ``NOT_INT8`` or ``ERR_TABLE``.

    ``clock(P, s, t)`` is the state's clock, set to ``t`` first when ``t >= 0``; ``key(s, n)``
    hashes ``s[:n]`` without the clock (never 0); ``limit_returns(P, s, ret)`` the payoffs if the
    game ended at the limit in ``s`` (it may change ``s``, a copy).
    """
    D = max_depth + 1
    work = (np.zeros((D, state_size), np.int32), np.zeros((D, n, 2), np.uint64),
            np.zeros((D, max_moves), np.int32), np.zeros((D, max_moves), np.float64),
            np.zeros((D, K, max_moves), np.float64), np.zeros((D, K * K), np.float64),
            np.zeros((3, D), np.int64), np.zeros(max_moves, np.float64), np.zeros(n, np.float64),
            np.zeros(state_size, np.int32))
    st, hh = work[0], work[1]
    R, width = ring.shape
    while counts[0] < counts[1]:
        if control[0] != 0:
            return STOPPED
        i = counts[0]
        if i == counts[3]:  # the next level of the breadth-first search: one turn further
            counts[4] += 1
            counts[3] = counts[1]
        if (succ.shape[0] - counts[2] < ROOM or ring.shape[0] - (counts[1] - i) < ROOM
                or keys.shape[0] < 2 * (counts[1] + ROOM) or term.shape[0] < counts[1] + ROOM):
            return NEED_ROOM
        for j in range(state_size):
            st[0, j] = ring[i % R, j] if j < width else base[j]
        hh[0] = ring_h[i % R]
        clock(P, st[0], first)
        row_start[i] = counts[2]
        status = _expand(game, weigh, clock, key, limit_returns, P, W, i, first, horizon - counts[4] > 1,
                         table, stats, avg, prior, K, ring, ring_h, keys, idx, counts, succ, prob, term, lim, work)
        if status != OK:
            return status
        counts[0] += 1
    row_start[counts[0]] = counts[2]
    return OK


@njit(inline="always")
def _expand(game, weigh, clock, key, limit_returns, P, W, i, first, further, table, stats, avg, prior, K, ring,
            ring_h, keys, idx, counts, succ, prob, term, lim, work):
    """Walk state ``i``'s turn (in ``work[0][0]``) depth first: its ends into ``term[i]``, its ticks
    into ``lim[i]`` and (when the turns after it count: ``further``) its edges."""
    init, player, moves, step, returns = game
    st, hh, acts, pr, wp, reach, ints, sig, ret, tmp = work
    k, mover, nxt = ints[0], ints[1], ints[2]
    KK = K * K
    reach[0, :] = 1.0
    term[i, :] = 0.0
    lim[i, :] = 0.0
    e0 = counts[2]
    d = 0
    entered = True
    while d >= 0:
        if entered:
            entered = False
            s = st[d]
            p = player(P, s)
            if d > 0 and p == TERMINAL:
                returns(P, s, ret)
                for c in range(KK):
                    term[i, c] += reach[d, c] * ret[0]
                d -= 1
                continue
            if d > 0 and clock(P, s, -1) != first:
                status = _tick(key, limit_returns, P, i, s, hh[d], reach[d], further, e0, keys, idx, counts, ring,
                               ring_h, succ, prob, lim, ret, tmp)
                if status != OK:
                    return status
                d -= 1
                continue
            k[d] = moves(P, s, acts[d], pr[d])
            nxt[d] = 0
            mover[d] = p
            if p != CHANCE and not _weights(weigh, P, s, p, k[d], acts[d], pr[d], wp[d], hh[d], table, stats, avg,
                                            prior, sig, K):
                return ERR_TABLE
        a = nxt[d]
        while a < k[d] and (pr[d, a] <= 0.0 if mover[d] == CHANCE else wp[d, 0, a] <= 0.0):
            a += 1
        if a < k[d]:
            if d + 1 >= st.shape[0]:
                return ERR_DEPTH
            nxt[d] = a + 1
            st[d + 1, :] = st[d]
            hh[d + 1, :, :] = hh[d]
            for c0 in range(K):
                for c1 in range(K):
                    f = pr[d, a] if mover[d] == CHANCE else wp[d, c0 if mover[d] == 0 else c1, a]
                    reach[d + 1, c0 * K + c1] = reach[d, c0 * K + c1] * f
            step(P, st[d + 1], hh[d + 1], acts[d, a], W)
            d += 1
            entered = True
        else:
            d -= 1
    return OK


@njit(inline="always")
def _weights(weigh, P, s, p, k, acts, probs, wp, h, table, stats, avg, prior, sig, K):
    """Seat ``p``'s probabilities of its ``k`` moves under each continuation into ``wp`` (``(K, k)``);
    False for a table error."""
    if strategy_at(table, stats, avg, h, p, k, probs, prior, sig) <= 0.0:
        return False
    for c in range(K):
        tot = 0.0
        for a in range(k):
            wp[c, a] = sig[a] * weigh(P, s, p, acts[a], c)
            tot += wp[c, a]
        for a in range(k):
            wp[c, a] /= tot
    return True


@njit(inline="always")
def _tick(key, limit_returns, P, i, s, h, reach, further, e0, keys, idx, counts, ring, ring_h, succ, prob, lim,
          ret, tmp):
    """State ``i``'s turn reached the next tick ``s`` (hashes ``h``) with probabilities ``reach``:
    what the limit would pay there, and (``further``) the edge to it, found or new."""
    KK = reach.shape[0]
    tmp[:] = s
    limit_returns(P, tmp, ret)
    for c in range(KK):
        lim[i, c] += reach[c] * ret[0]
    if not further:
        return OK
    if counts[2] - e0 >= ROOM:
        return TOO_WIDE
    j, new = insert(keys, idx, key(s, s.shape[0]), counts[1])
    if new:
        r = counts[1] % ring.shape[0]
        for q in range(ring.shape[1]):
            if s[q] < -128 or s[q] > 127:
                return NOT_INT8
            ring[r, q] = s[q]
        ring_h[r] = h
        counts[1] += 1
    e = e0
    while e < counts[2] and succ[e] != j:
        e += 1
    if e == counts[2]:
        succ[e] = j
        prob[e, :] = 0.0
        counts[2] += 1
    for c in range(KK):
        prob[e, c] += reach[c]
    return OK


@njit(parallel=True, cache=True)
def sweep(row_start, succ, prob, term, old, new):
    """One step of the values (module docstring): ``new = term + T old``, all pairs at once. Returns
    the largest change, ``max |new - old|``: the steps after it change a value by no more each
    (``T``'s rows sum to at most 1)."""
    N, KK = term.shape
    chunks = 256
    most = np.zeros(chunks)
    for b in prange(chunks):
        for i in range(b * N // chunks, (b + 1) * N // chunks):
            for c in range(KK):
                new[i, c] = term[i, c]
            for e in range(row_start[i], row_start[i + 1]):
                j = succ[e]
                for c in range(KK):
                    new[i, c] += prob[e, c] * old[j, c]
            for c in range(KK):
                most[b] = max(most[b], abs(new[i, c] - old[i, c]))
    return most.max()


@njit(cache=True)
def rehash(keys, idx, new_keys, new_idx):
    """Put every key of ``keys``/``idx`` into the larger empty table ``new_keys``/``new_idx``."""
    for j in range(keys.shape[0]):
        if keys[j] != 0:
            insert(new_keys, new_idx, keys[j], idx[j])
