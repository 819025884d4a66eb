"""Compiled kernel of outcome-sampling MCCFR over a game given as compiled step functions.

Lanctot, Waugh, Zinkevich and Bowling (2009), "Monte Carlo Sampling for Regret Minimization in
Extensive Games", NeurIPS: outcome sampling, with the semantics of OpenSpiel's
``outcome_sampling_mccfr.py`` (no baseline). One iteration is one sampled episode per player ``i``
(the *updated* player), from the root to a terminal:

* at a chance node the outcome is drawn from the chance distribution;
* at a node of another player the action is drawn from the current strategy ``sigma`` (regret
  matching);
* at a node of ``i`` from ``epsilon * uniform + (1 - epsilon) * sigma`` (epsilon-exploration).

Going down, the episode carries ``i``'s reach under ``sigma`` (``my``), the others' and chance's reach
(``opp``) and the sampling reach (``q``, the probability of the sampled path). Climbing back with the
terminal payoff ``u`` of ``i``, a node's sampled child value is ``v / sample_policy[a*]`` and its value
estimate ``sigma[a*] * v / sample_policy[a*]`` (the other children's estimates are 0); at a node of
``i``, with ``W = opp / q``:

* regret of each action ``a``: ``+= W * (child estimate of a - value estimate)``;
* average strategy (OpenSpiel's *stochastically weighted averaging*): ``+= weight * my * sigma[a] / q``.

As in OpenSpiel, the regret-matching strategy used for these updates is computed again at the climb
(the same as going down under perfect recall; with an imperfect-recall abstraction a deeper visit of
the same key may have changed it). Only one path is walked, so the stack holds one state and per depth
a few scalars; the table and its layout are those of :mod:`solvers.mccfr.kernel`.

The kernel takes the game as :mod:`solvers.mccfr.kernel`'s kernels do (compiled without
``cache=True``, inlined into a game's cached entry point).
"""

import numpy as np
from numba import njit

from solvers.mccfr.kernel import CHANCE, ERR_DEPTH, OK, TERMINAL, _match, _sample, lookup, prefetch_slot


@njit(inline="always")
def _explore(sig, k, eps, q):
    """The updated player's sampling distribution ``eps * uniform + (1 - eps) * sig`` into ``q``."""
    for a in range(k):
        q[a] = eps / k + (1.0 - eps) * sig[a]


@njit(inline="always")
def _climb(regret, avg, d, u, i, weight, plus, who, off, nk, pick, pol, smp, my, opp, q, sig):
    """Climb from depth ``d - 1`` to the root with the terminal payoff ``u`` of player ``i``, updating
    ``i``'s nodes (see the module docstring); ``who`` is -1 at a chance node."""
    v = u
    while d > 0:
        d -= 1
        pl = who[d]
        if pl == CHANCE:
            continue  # the chance probability is in both opp and q: it cancels
        child = v / smp[d]
        value = pol[d] * child
        if pl == i:
            o, k, a_star = off[d], nk[d], pick[d]
            _match(regret, o, k, sig)
            w = opp[d] / q[d]
            for a in range(k):
                est = child if a == a_star else 0.0
                r = regret[o + a] + w * (est - value)
                regret[o + a] = 0.0 if (plus and r < 0.0) else r
            for a in range(k):
                avg[o + a] += weight * my[d] * sig[a] / q[d]
        v = value


@njit(inline="always")
def episode(game, P, W, table, regret, avg, rng, stats, i, weight, plus, eps, s, h, acts, probs, sig,
            smpd, who, off, nk, pick, pol, smp, my, opp, q, ret):
    """One outcome-sampling episode for player ``i``; a status code (``stats[3]`` the depth of an
    error). ``s``/``h`` hold the one state and its hashes; the per-depth arrays are ``who`` (the
    player, -1 chance), ``off``/``nk`` (table offset, number of moves), ``pick`` (the sampled move's
    index), ``pol``/``smp`` (its probability under ``sigma`` and under the sampling), and the reaches
    ``my``, ``opp``, ``q`` before the node."""
    init, player, moves, step, returns = game
    D = who.shape[0]
    init(P, s, h, W)
    d = 0
    r_my, r_opp, r_q = 1.0, 1.0, 1.0
    while True:
        pl = player(P, s)
        if pl == TERMINAL:
            returns(P, s, ret)
            _climb(regret, avg, d, ret[i], i, weight, plus, who, off, nk, pick, pol, smp, my,
                   opp, q, sig)
            return OK
        if d >= D:
            stats[3] = d
            return ERR_DEPTH
        if pl != CHANCE:
            prefetch_slot(table, h[pl, 0])  # its miss overlaps the move generation
        k = moves(P, s, acts, probs)
        who[d], my[d], opp[d], q[d] = pl, r_my, r_opp, r_q
        if pl == CHANCE:
            j = _sample(probs, k, rng)
            r_opp *= probs[j]
            r_q *= probs[j]
        else:
            o = lookup(table, stats, h[pl, 0], h[pl, 1], pl, k, True)
            if o < 0:
                stats[3] = d
                return -1 - o
            _match(regret, o, k, sig)
            if pl == i:
                _explore(sig, k, eps, smpd)
                j = _sample(smpd, k, rng)
                smp[d] = smpd[j]
                r_my *= sig[j]
            else:
                j = _sample(sig, k, rng)
                smp[d] = sig[j]
                r_opp *= sig[j]
            r_q *= smp[d]
            off[d], nk[d], pick[d], pol[d] = o, k, j, sig[j]
        step(P, s, h, acts[j], W)
        d += 1


@njit(inline="always")
def run_outcome(game, P, W, table, regret, avg, rng, stats, count, plus, linear, eps, max_depth,
                state_size, max_moves):
    """``count`` iterations of outcome sampling (one episode per player each); ``stats[2]`` counts
    the finished ones. ``linear`` and the status are as in :func:`solvers.mccfr.kernel.run_iterations`;
    ``eps`` is the exploration of the updated player's sampling."""
    n = int(stats[5])
    D = max_depth + 1
    s = np.zeros(state_size, dtype=np.int32)
    h = np.zeros((n, 2), dtype=np.uint64)
    acts = np.zeros(max_moves, dtype=np.int32)
    moves3 = np.zeros((3, max_moves), dtype=np.float64)  # chance probabilities, sigma, sampling
    probs, sig, smpd = moves3[0], moves3[1], moves3[2]
    ints = np.zeros((3, D), dtype=np.int32)  # player, number of moves, sampled index
    who, nk, pick = ints[0], ints[1], ints[2]
    off = np.zeros(D, dtype=np.int64)
    reals = np.zeros((5, D), dtype=np.float64)  # sigma and sampling of the pick, the three reaches
    pol, smp, my, opp, q = reals[0], reals[1], reals[2], reals[3], reals[4]
    ret = np.zeros(max(n, 8), dtype=np.float64)
    for _ in range(count):
        weight = float(stats[2] + 1) if linear else 1.0
        for i in range(n):
            status = episode(game, P, W, table, regret, avg, rng, stats, i, weight, plus, eps, s, h,
                             acts, probs, sig, smpd, who, off, nk, pick, pol, smp, my, opp, q, ret)
            if status != OK:
                return status
        stats[2] += 1
    return OK
