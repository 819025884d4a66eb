"""Leaf values by seeded rollouts of a sampled strategy: each leaf of a cut tree, played on to the end.

A depth-limited game (:mod:`solvers.trees.leaves`) needs, at each of its leaves, what each pair of
continuation strategies earns from there. When the continuations are a strategy trained by sampling
(an :class:`~solvers.mccfr.solver.MCCFRSolver`'s average, looked up in its table by the keys the game
computes) and biased versions of it, that value is an expectation over the rest of the game, which
:func:`play_rows` estimates by Monte Carlo from the leaves' states, which :func:`leaf_rows` collects
by walking the cut tree beside the game (its children must be the game's moves in order, as for
:func:`solvers.mccfr.kernel.tree_infoset_keys`): from each state ``R`` games are played to the end for
each pair ``(c0, c1)``, player ``p`` drawing
its moves from the strategy weighted by ``weigh(P, s, p, action, c_p)`` and renormalised. An
information set the strategy never visited (or whose average weights are all zero) plays the
game's prior (the probabilities ``moves`` gives at a decision) when ``prior`` is set, else uniformly,
as :class:`~solvers.mccfr.policy.SampledPolicy` plays it.

Variance: the ``R`` games of every pair start from the same random streams (common random numbers),
so the differences between continuations are estimated more tightly than the values themselves. Each
estimate comes with its sum of squares, for a standard error. When the game's future depends on its
state alone (a game whose keys are features of the state), leaves with the same state are played once
(``by_state``): ``memo`` maps a state's hash to its row of the results. The rows are played apart
from the walk, so several threads can share them, and a state that did not come from a tree walk (a
public state's histories, for instance) is played the same way.

Like the other kernels that take a game, these are inlined into a binding's cached entry point
(:mod:`solvers.mccfr.kernel`).
"""

import numpy as np
from numba import njit

from solvers.mccfr.kernel import CHANCE, ERR_DEPTH, OK, TERMINAL, _next, _sample, lookup

__all__ = ["leaf_rows", "path_reach", "play_rows", "state_hash", "strategy_at", "STOPPED"]

STOPPED = 9  # the polled control asked to stop


@njit(cache=True, inline="always")
def state_hash(s, n):
    """A 64-bit hash of ``s[:n]`` (int32): splitmix64 over the entries."""
    z = np.uint64(0x243F6A8885A308D3)
    for i in range(n):
        z = (z ^ np.uint64(np.int64(s[i]) & 0xFFFFFFFF)) * np.uint64(0x9E3779B97F4A7C15)
        z = z ^ (z >> np.uint64(29))
    return z


@njit(inline="always")
def strategy_at(table, stats, avg, h, p, k, probs, prior, sig):
    """The strategy's weights on the ``k`` moves of seat ``p`` (keys ``h[p]``) into ``sig``, not
    normalised: its average; where it has none, the game's ``probs`` with ``prior``, else uniform.
    Returns their sum, or -1 for a table error (a key of another owner or number of actions)."""
    o = lookup(table, stats, h[p, 0], h[p, 1], p, k, False)
    if o < -1:
        return -1.0
    total = 0.0
    if o >= 0:
        for a in range(k):
            sig[a] = avg[o + a]
            total += sig[a]
    if total <= 0.0:
        total = 0.0
        for a in range(k):
            sig[a] = probs[a] if prior else 1.0 / k
            total += sig[a]
    return total


@njit(inline="always")
def path_reach(game, weigh, c, P, W, n, state_size, max_moves, paths, lengths, seat, table, stats, avg, prior,
               out):
    """Multiply ``out[i]`` by the probability the strategy, weighted by ``weigh(P, s, seat, action, c)``
    and renormalised, gives ``seat``'s moves along ``paths[i]`` (the game's moves from its start,
    ``lengths[i]`` of them): the seat's own reach of that history, what Bayes' rule weighs its private
    states by. Where the weighted strategy gives a decision no weight, the weights themselves
    (renormalised) are its moves' probabilities: a weight of 0 forbids a move, and a model that forbids
    what the strategy plays still plays something. Returns -1, or the first path with a move that is not
    legal (or a table error, or a decision every move of which the weights forbid)."""
    init, player, moves, step, returns = game
    acts = np.zeros(max_moves, dtype=np.int32)
    probs = np.zeros(max_moves, dtype=np.float64)
    sig = np.zeros(max_moves, dtype=np.float64)
    s = np.zeros(state_size, dtype=np.int32)
    h = np.zeros((n, 2), dtype=np.uint64)
    for i in range(paths.shape[0]):
        init(P, s, h, W)
        for j in range(lengths[i]):
            a = paths[i, j]
            if player(P, s) == seat:
                k = moves(P, s, acts, probs)
                if strategy_at(table, stats, avg, h, seat, k, probs, prior, sig) <= 0.0:
                    return i
                total = _weighted(weigh, c, P, s, seat, acts, sig, k)
                if total <= 0.0:
                    return i
                found = False
                for m in range(k):
                    if acts[m] == a:
                        out[i] *= sig[m] / total
                        found = True
                if not found:
                    return i
            step(P, s, h, a, W)
    return -1


@njit(inline="always")
def _weighted(weigh, c, P, s, p, acts, sig, k):
    """``sig[:k]`` times each move's weight (:func:`path_reach`), or the weights alone where that is all
    zero; returns their sum."""
    total = 0.0
    for m in range(k):
        sig[m] *= weigh(P, s, p, acts[m], c)
        total += sig[m]
    if total > 0.0:
        return total
    for m in range(k):
        sig[m] = weigh(P, s, p, acts[m], c)
        total += sig[m]
    return total


@njit(inline="always")
def _play(game, weigh, P, W, s, h, acts, probs, sig, ret, table, stats, avg, prior, c0, c1, rng,
          max_steps):
    """One game from ``s`` (played in place) to the end: player 0's payoff, or NaN past ``max_steps``
    (or for a table error)."""
    init, player, moves, step, returns = game
    for _ in range(max_steps):
        p = player(P, s)
        if p == TERMINAL:
            returns(P, s, ret)
            return ret[0]
        k = moves(P, s, acts, probs)
        if p == CHANCE:
            j = _sample(probs, k, rng)
        else:
            if strategy_at(table, stats, avg, h, p, k, probs, prior, sig) < 0.0:
                return np.nan
            total = _weighted(weigh, c0 if p == 0 else c1, P, s, p, acts, sig, k)
            for a in range(k):
                sig[a] /= total
            j = _sample(sig, k, rng)
        step(P, s, h, acts[j], W)
    return np.nan


@njit(inline="always")
def leaf_rows(game, P, W, n, state_size, max_moves, max_depth, num_children, child_start, leaf_of,
              by_state, memo, row_of, states, hashes, keys, control):
    """Walk the cut tree beside the game and give each leaf its row of the results (module docstring).

    ``leaf_of`` (int64, per tree node): the leaf's index, or -1. A leaf whose key (its state's hash,
    with both players' hashes unless ``by_state``) is already in ``memo`` shares that row; else it
    opens the next one, and, when ``states`` has room for it, its state, hashes and key are written to
    ``states``/``hashes``/``keys`` (a first pass with empty arrays only counts the rows). ``row_of``
    (int64, per leaf) is written with the leaf's row; ``control[1]`` returns the rows; ``control[0]``
    non-zero stops the walk (polled at each leaf). Returns ``OK``, ``STOPPED``, or the first tree node
    whose children are not the game's moves plus 100.
    """
    init, player, moves, step, returns = game
    D = max_depth + 1
    st = np.zeros((D, state_size), dtype=np.int32)
    hh = np.zeros((D, n, 2), dtype=np.uint64)
    acts = np.zeros((D, max_moves), dtype=np.int32)
    probs = np.zeros(max_moves, dtype=np.float64)
    node = np.zeros(D, dtype=np.int64)
    nxt = np.zeros(D, dtype=np.int64)
    init(P, st[0], hh[0], W)
    rows = 0
    d = 0
    entered = True
    while d >= 0:
        v = node[d]
        if entered:
            entered = False
            nxt[d] = 0
            leaf = leaf_of[v]
            if leaf >= 0:
                if control[0] != 0:
                    return STOPPED
                key = state_hash(st[d], state_size)
                if not by_state:
                    for q in range(n):
                        key = (key ^ hh[d, q, 0]) * np.uint64(0x9E3779B97F4A7C15)
                if key in memo:
                    row_of[leaf] = memo[key]
                else:
                    memo[key] = rows
                    row_of[leaf] = rows
                    if rows < states.shape[0]:
                        states[rows, :] = st[d]
                        hashes[rows, :, :] = hh[d]
                        keys[rows] = key
                    rows += 1
                    control[1] = rows
                d -= 1
                continue
            if num_children[v] > 0 and moves(P, st[d], acts[d], probs) != num_children[v]:
                return 100 + v
        c = nxt[d]
        if c < num_children[v]:
            if d + 1 >= D:
                return 100 + v
            nxt[d] = c + 1
            st[d + 1, :] = st[d]
            hh[d + 1, :, :] = hh[d]
            step(P, st[d + 1], hh[d + 1], acts[d, c], W)
            node[d + 1] = child_start[v] + c
            d += 1
            entered = True
        else:
            d -= 1
    control[1] = rows
    return OK


@njit(inline="always")
def play_rows(game, weigh, P, W, n, state_size, max_moves, states, hashes, keys, first, stride, table,
              stats, avg, prior, R, seed, total, sq, max_steps, control):
    """Play ``R`` games from each row's state (``states[i]`` with ``hashes[i]``, seeded by ``keys[i]``)
    for each pair of continuations, rows ``first, first + stride, ...``: so ``stride`` threads, each
    with its own ``first``, share the rows, and a row's results depend on its state, key and ``seed``
    alone, not on who played it.

    ``total``/``sq`` (float64, (rows, K, K)): sums of player 0's payoffs and of their squares.
    ``control[0]`` non-zero stops (polled at each row); ``control[1]`` counts the rows played.
    Returns ``OK``, ``STOPPED`` or ``ERR_DEPTH`` (a rollout longer than ``max_steps``: ``control[2]``
    is its row).
    """
    K = total.shape[1]
    acts = np.zeros(max_moves, dtype=np.int32)
    probs = np.zeros(max_moves, dtype=np.float64)
    sig = np.zeros(max_moves, dtype=np.float64)
    ret = np.zeros(n, dtype=np.float64)
    s = np.zeros(state_size, dtype=np.int32)
    h = np.zeros((n, 2), dtype=np.uint64)
    rng = np.zeros(1, dtype=np.uint64)
    for row in range(first, states.shape[0], stride):
        if control[0] != 0:
            return STOPPED
        key = keys[row]
        for r in range(R):
            for c0 in range(K):
                for c1 in range(K):
                    rng[0] = np.uint64(seed) ^ (key * np.uint64(r + 1))
                    _next(rng)
                    s[:] = states[row]
                    h[:, :] = hashes[row]
                    x = _play(game, weigh, P, W, s, h, acts, probs, sig, ret, table, stats, avg, prior,
                              c0, c1, rng, max_steps)
                    if x != x:
                        control[2] = row
                        return ERR_DEPTH
                    total[row, c0, c1] += x
                    sq[row, c0, c1] += x * x
        control[1] += 1
    return OK
