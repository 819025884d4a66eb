"""Compiled kernel of MCCFR with probing, for long games: one sampled path, every action valued by a probe.

Outcome sampling values a node of the updated player ``i`` by one rollout weighted by ``1 / q`` for every
later decision of ``i`` on it; in a long game (some twenty decisions of ``i``) that
weight, and with it the regrets' variance, is astronomical and nothing is learned at the early
decisions. Probing (Gibson, Lanctot, Burch, Szafron and Bowling, "Generalized sampling and variance in
counterfactual regret minimization", AAAI 2012) values each action instead by a *probe*: a single
rollout from the action's child in which every player, ``i`` included, and chance play their current
strategies, so no importance weight is taken after the node. One iteration is one episode per player
``i``:

* the path: chance by its probabilities, every other player by ``sigma`` (regret matching), and
  ``i`` *uniformly*. A fixed sampling policy for ``i`` gives every history of an information set of
  ``i`` the same own sampling probability (under perfect recall), so the importance weight
  ``1 / q_i`` would scale all of the set's regret updates alike, in every iteration, and regret
  matching is blind to such a scale: no weight is taken (as ESCHER does; McAleer et al., ICLR 2023).
  Sampling ``i`` by ``sigma`` instead would need the weight ``1 / pi_i``, which in a long game made
  single updates of 1e12;
* at each node of ``i`` on the path, each action ``a`` gets one probe, ``v[a]``; the regret of ``a``
  gains ``v[a] - sum_b sigma[b] v[b]`` (floored at 0 with RM+);
* the average strategy adds ``weight * sigma`` at each node of ``i`` on the path (simple averaging on
  ``i``'s own sampled nodes; a heuristic: it weighs a node by how often the uniform path reaches it,
  not by ``i``'s reach under ``sigma``). On Kuhn poker it converges all the same (the tests).

A probe looks information sets up without making them (an unseen one plays uniformly). The cost is one
rollout per action of each of ``i``'s nodes on the path.

**The path on the strategy** (``explore < 1``): ``i``'s path follows ``sigma``, each draw uniform
with probability ``explore`` instead, and still takes no importance weight. Under perfect recall this
scales each information set's updates by ``i``'s own reach, a scale that changes between iterations:
a heuristic. It is meant for keys with imperfect recall, where one key stands for histories that ``i``
reaches by different moves of its own: the uniform path weighs them by how a player moving at random
would reach them, this one by how the strategy does, so the key's regrets and average are those of
the positions the strategy plays. ``explore = 1`` (the default) is the uniform path, bit for bit.

**Warm start** (``prior > 0``; Brown and Sandholm, "Strategy-based warm starting for regret
minimization in games", AAAI 2016): at a decision the game's ``moves`` gives a strategy in ``probs``
(the prior; without a warm start those probabilities are never read), a new information set starts
with the regrets ``prior * probs`` instead of zeros, so regret matching plays the prior until the
sampled regrets outweigh it, and a probe plays the prior at an unseen one instead of the uniform
strategy. ``prior = 0`` runs the iterates bit for bit as without it. The table and its layout are those of
:mod:`solvers.mccfr.kernel`; the game is passed as there (compiled without ``cache=True``, inlined into
a game's cached entry point).
"""

import numpy as np
from numba import njit

from solvers.mccfr.kernel import CHANCE, ERR_DEPTH, OK, TERMINAL, _match, _next, _sample, _update, lookup


@njit(inline="always")
def _probe(game, P, W, table, regret, rng, stats, i, s, h, acts, probs, sig, ret, D, prior):
    """Play from ``s``/``h`` (overwritten) to the end, everyone by ``sigma``; ``i``'s payoff."""
    _, player, moves, step, returns = game
    for _ in range(D):
        pl = player(P, s)
        if pl == TERMINAL:
            returns(P, s, ret)
            return ret[i]
        k = moves(P, s, acts, probs)
        if pl == CHANCE:
            j = _sample(probs, k, rng)
        else:
            o = lookup(table, stats, h[pl, 0], h[pl, 1], pl, k, False)
            if o >= 0:
                _match(regret, o, k, sig)
                j = _sample(sig, k, rng)
            else:
                j = _sample(probs, k, rng) if prior > 0.0 else _uniform(rng, k)
        step(P, s, h, acts[j], W)
    return np.nan


@njit(inline="always")
def _uniform(rng, k):
    """An index in ``range(k)``, each with probability ``1 / k``."""
    return min(int(_next(rng) * k), k - 1)


@njit(inline="always")
def probe_episode(game, P, W, table, regret, avg, rng, stats, i, weight, plus, s, h, s2, h2, acts,
                  probs, sig, own, vals, ret, D, prior, explore):
    """One probing episode for player ``i`` (module docstring); a status code."""
    init, player, moves, step, returns = game
    init(P, s, h, W)
    for d in range(D):
        pl = player(P, s)
        if pl == TERMINAL:
            return OK
        k = moves(P, s, acts, probs)
        if pl == CHANCE:
            j = _sample(probs, k, rng)
        else:
            made = stats[0]
            o = lookup(table, stats, h[pl, 0], h[pl, 1], pl, k, True)
            if o < 0:
                stats[3] = d
                return -1 - o
            if prior > 0.0 and stats[0] != made:  # a new information set: the warm start
                for a in range(k):
                    regret[o + a] = prior * probs[a]
            _match(regret, o, k, own)
            if pl != i:
                j = _sample(own, k, rng)
            else:
                for a in range(k):
                    s2[:] = s
                    h2[:] = h
                    step(P, s2, h2, acts[a], W)
                    vals[a] = _probe(game, P, W, table, regret, rng, stats, i, s2, h2, acts[k:],
                                     probs[k:], sig, ret, D - d, prior)
                    if np.isnan(vals[a]):
                        stats[3] = d
                        return ERR_DEPTH
                _update(regret, o, k, own, vals, plus)
                for a in range(k):
                    avg[o + a] += weight * own[a]
                # the path's next action (module docstring): uniform, or with explore < 1 the
                # current strategy with that share of uniform draws; no importance weight either way
                if explore >= 1.0 or _next(rng) < explore:
                    j = _uniform(rng, k)
                else:
                    j = _sample(own, k, rng)
        step(P, s, h, acts[j], W)
    stats[3] = D
    return ERR_DEPTH


@njit(inline="always")
def run_probe(game, P, W, table, regret, avg, rng, stats, count, plus, linear, prior, explore, max_depth,
              state_size, max_moves):
    """``count`` iterations of MCCFR with probing (one episode per player each); ``stats[2]`` counts the
    finished ones; ``linear`` weighs the average by the iteration number; ``prior`` is the warm start's
    weight (0: none); ``explore`` the share of uniform draws on the updated player's path (1: all). A
    status code."""
    n = int(stats[5])
    D = max_depth + 1
    s = np.zeros(state_size, dtype=np.int32)
    s2 = np.zeros(state_size, dtype=np.int32)
    h = np.zeros((n, 2), dtype=np.uint64)
    h2 = np.zeros((n, 2), dtype=np.uint64)
    acts = np.zeros(2 * max_moves, dtype=np.int32)
    probs = np.zeros(2 * max_moves, dtype=np.float64)
    sig = np.zeros(max_moves, dtype=np.float64)
    own = np.zeros(max_moves, dtype=np.float64)
    vals = np.zeros(max_moves, dtype=np.float64)
    ret = np.zeros(max(n, 8), dtype=np.float64)
    for _ in range(count):
        weight = float(stats[2] + 1) if linear else 1.0
        for i in range(n):
            status = probe_episode(game, P, W, table, regret, avg, rng, stats, i, weight, plus, s, h,
                                   s2, h2, acts, probs, sig, own, vals, ret, D, prior, explore)
            if status != OK:
                return status
        stats[2] += 1
    return OK
