"""Exact leaf values of a sampled strategy: the rest of the game as a Markov chain over turn starts.

When a strategy trained by sampling keys its decisions by features of the state alone (no history), the
rest of a game played by it is a Markov chain: what happens in a turn depends on the state at the turn's
start, not on how it was reached. Its value from a state is then an expectation over that chain, which
:func:`expand_states`, :func:`commit_states` and :func:`sweep` compute exactly, with no sampling noise,
instead of estimating it by rollouts (:mod:`solvers.mccfr.rollout`). This is the exact option of
depth-limited solving's leaf values (Brown, Sandholm and Amos, "Depth-limited solving for
imperfect-information games", NeurIPS 2018: each leaf's value under each pair of continuation
strategies).

**The chain.** Its states are the game's states at which a *clock* (the game's turn counter) has just
ticked, keyed by a hash that ignores the clock (``key``). :func:`expand_states` walks, from each state
in turn, every move of the turn with positive probability under some pair of continuations (the
strategy's average weighted by ``weigh(P, s, p, action, c)`` and renormalised, as the rollouts play it)
and every chance outcome, to the next tick or the end: the ticks reached are new states of the chain
(found breadth first, numbered by :func:`commit_states`) and become the state's edges, each with
``K * K`` probabilities, one per pair; the ends add their payoff to the state's ``term``; ``lim`` is what the
state's turn pays when the clock runs out at its end (the game's limit payoff of each tick reached,
``limit_returns``). The clock is set to ``first`` before each walk, so a turn's play may not depend on
it except at the limit. The walks are the work and are independent: threads walk consecutive ranges of
states at once, and one of them numbers what they found in the states' order, so the chain does not
depend on how many threads built it.

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

__all__ = ["commit_states", "expand_states", "insert", "rehash", "sweep", "ERR_TABLE", "NEED_ROOM", "NOT_INT8", "ROOM",
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
def expand_states(game, weigh, clock, key, limit_returns, P, W, n, state_size, max_moves, max_depth, first,
                  further, table, stats, avg, prior, K, base, ring, ring_h, lo, hi, term, lim, out, control):
    """Walk the turns of the chain's states ``lo .. hi - 1`` (state ``i`` in slot ``i % len(ring)`` of
    ``ring``/``ring_h``: int8 states, their hashes; entries past ``ring.shape[1]`` are ``base``'s),
    writing each state's ``term`` and ``lim`` rows and its ticks into the caller's buffers, for
    :func:`commit_states` to number and store (``out``: the buffers, ``(out_start, out_key, out_state,
    out_h, out_prob, walked)``). Several threads may walk disjoint ranges at once: they
    read the ring and write only their own rows and buffers (and each its own scratch ``W``).

    State ``lo + s``'s ticks are ``out_start[s] .. out_start[s + 1] - 1`` of ``out_key`` (the key of the
    tick's state, ``key(s, n)``: a hash without the clock, never 0), ``out_state``/``out_h`` (its first
    entries and hashes) and ``out_prob`` (float64 ``(., K*K)``: its probability under each pair of
    continuations, summed over the ways the turn reaches it); ticks are kept only when ``further`` (the
    turns after these states count). ``walked[0]``: the states walked, fewer than ``hi - lo`` when the
    buffers are short of :data:`ROOM` (the rest are walked next time) or the walk stops.

    Returns ``OK``, ``STOPPED`` (``control[0]`` non-zero, polled per state), ``ERR_DEPTH`` (a turn
    deeper than ``max_depth``), ``TOO_WIDE``, ``NOT_INT8`` or ``ERR_TABLE``. ``clock(P, s, t)`` is the
    state's clock, set to ``t`` first when ``t >= 0`` (it is set to ``first`` before each walk, so a
    turn's play may not depend on it except at the limit); ``limit_returns(P, s, ret)`` the payoffs if
    the game ended at the limit in ``s`` (it may change ``s``, a copy).
    """
    D = max_depth + 1
    work = (np.zeros((D, state_size), np.int32), np.zeros((D, n, 2), np.uint64),
            np.zeros((D, max_moves), np.int32), np.zeros((D, max_moves), np.float64),
            np.zeros((D, K, max_moves), np.float64), np.zeros((D, K * K), np.float64),
            np.zeros((3, D), np.int64), np.zeros(max_moves, np.float64), np.zeros(n, np.float64),
            np.zeros(state_size, np.int32), np.zeros(1, np.int64))
    st, hh, count = work[0], work[1], work[10]
    out_start, out_key, out_state, out_h, out_prob, walked = out
    R, width = ring.shape
    out_start[0] = 0
    walked[0] = 0
    for s in range(hi - lo):
        if control[0] != 0:
            return STOPPED
        if out_key.shape[0] - count[0] < ROOM:
            return OK
        i = lo + s
        for j in range(state_size):
            st[0, j] = ring[i % R, j] if j < width else base[j]
        hh[0] = ring_h[i % R]
        clock(P, st[0], first)
        status = _expand(game, weigh, clock, key, limit_returns, P, W, i, first, further, table, stats, avg, prior,
                         K, term, lim, out_key, out_state, out_h, out_prob, work)
        if status != OK:
            return status
        out_start[s + 1] = count[0]
        walked[0] = s + 1
    return OK


@njit(cache=True, nogil=True)
def commit_states(lo, walked, out_start, out_key, out_state, out_h, out_prob, ring, ring_h, keys, idx, counts,
                  row_start, succ, prob, max_states):
    """Number and store the ticks of the ``walked`` states from ``lo`` (:func:`expand_states`'s
    buffers), in order: each tick's state found in the key table ``keys``/``idx`` or new (then put in
    the ring at the next number, ``counts[1]``), and an edge to it. ``counts``: [next state to store,
    states found, edges written, ...]; ``row_start[i]``: state ``i``'s first edge; ``succ``/``prob``
    (int32, float32 ``(edges, K*K)``): the edges.

    Returns ``OK``, or ``NEED_ROOM`` when the ring, the key table, the edges or ``max_states`` have
    less than :data:`ROOM` to spare for the next state: the caller grows them and walks the states from
    ``counts[0]`` again. The ring's check keeps a new state off the slot of any state not yet stored,
    so a state can be walked again."""
    R = ring.shape[0]
    for s in range(walked):
        i = lo + s
        if (succ.shape[0] - counts[2] < ROOM or R - (counts[1] - i) < ROOM or keys.shape[0] < 2 * (counts[1] + ROOM)
                or max_states < counts[1] + ROOM):
            return NEED_ROOM
        row_start[i] = counts[2]
        for e in range(out_start[s], out_start[s + 1]):
            j, new = insert(keys, idx, out_key[e], counts[1])
            if new:
                r = counts[1] % R
                ring[r, :] = out_state[e]
                ring_h[r, :, :] = out_h[e]
                counts[1] += 1
            succ[counts[2]] = j
            for c in range(prob.shape[1]):
                prob[counts[2], c] = out_prob[e, c]
            counts[2] += 1
        counts[0] = i + 1
        row_start[i + 1] = counts[2]
    return OK


@njit(inline="always")
def _expand(game, weigh, clock, key, limit_returns, P, W, i, first, further, table, stats, avg, prior, K, term, lim,
            out_key, out_state, out_h, out_prob, work):
    """Walk state ``i``'s turn (in ``work[0][0]``) depth first: its ends into ``term[i]``, its ticks
    into ``lim[i]`` and (when the turns after it count: ``further``) the buffers."""
    init, player, moves, step, returns = game
    st, hh, acts, pr, wp, reach, ints, sig, ret, tmp, count = work
    k, mover, nxt = ints[0], ints[1], ints[2]
    KK = K * K
    reach[0, :] = 1.0
    term[i, :] = 0.0
    lim[i, :] = 0.0
    e0 = count[0]
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
                status = _tick(key, limit_returns, P, i, s, hh[d], reach[d], further, e0, count, out_key, out_state,
                               out_h, out_prob, lim, ret, tmp)
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
def _tick(key, limit_returns, P, i, s, h, reach, further, e0, count, out_key, out_state, out_h, out_prob, lim, ret,
          tmp):
    """State ``i``'s turn reached the next tick ``s`` (hashes ``h``) with probabilities ``reach``:
    what the limit would pay there, and (``further``) the tick into the buffers from ``e0`` (this
    state's), added to the same state's when it is there already."""
    KK = reach.shape[0]
    tmp[:] = s
    limit_returns(P, tmp, ret)
    for c in range(KK):
        lim[i, c] += reach[c] * ret[0]
    if not further:
        return OK
    z = key(s, s.shape[0])
    e = e0
    while e < count[0] and out_key[e] != z:
        e += 1
    if e == count[0]:
        if e - e0 >= ROOM:
            return TOO_WIDE
        for q in range(out_state.shape[1]):
            if s[q] < -128 or s[q] > 127:
                return NOT_INT8
            out_state[e, q] = s[q]
        out_h[e, :, :] = h
        out_key[e] = z
        out_prob[e, :] = 0.0
        count[0] = e + 1
    for c in range(KK):
        out_prob[e, c] += reach[c]
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
