"""The update of one information set in the public-tree passes (:mod:`solvers.public._kernel`): its
value, average weights, regrets and strategy, in the order of the history kernel
(:mod:`solvers.history._kernel`), and the restricted information sets of
:mod:`solvers.trees.restricted`, whose strategy mixes a fixed model with the player's own."""

import numba

from solvers.cfr.matching import predictive_match
from solvers.public._node import _ix


@numba.njit(cache=True, inline="always")
def _average(T, x, o, m, sigma, cumulative, reach, weight):
    """The average weights of entry ``x``'s information set (actions ``o .. o+m-1``) gain the
    strategy just played, weighted by the entry's reach and its number of histories."""
    wr = weight * reach[_ix(x)]
    n = T.infoset_count[_ix(T.entry_ref[_ix(x)])]
    for i in range(o, o + m):
        cumulative[_ix(i)] += n * (wr * sigma[_ix(i)])


@numba.njit(cache=True, inline="always")
def _update(T, x, o, m, sigma, regret, cumulative, acc, acc2, reach, v, w, plus, discount,
            weight, fpos, fneg, lock, model):
    """One information set (entry ``x``, actions ``o .. o+m-1``): value, average, regrets, strategy.

    Without predictions one loop adds the average weights (:func:`_average`'s arithmetic, with the
    strategy still the one played) and updates the regrets, a second sets the strategy; the
    positive parts are ``max`` (no branch), which measured faster than four loops with branches
    (docs/research/design-measurements.md).

    A restricted information set (``lock``, its weight, above zero: :mod:`solvers.trees.restricted`)
    plays ``model`` with that weight and its own regret matching otherwise: its regrets are measured
    against the value of its own part, the value played less the model's share, and the strategy
    played is the mixture again (non-predictive variants only: the representation refuses the rest)."""
    value = 0.0
    for i in range(o, o + m):
        value += sigma[_ix(i)] * acc[_ix(i)]
    v[_ix(x)] = value
    if w.shape[0] > 0:  # PCFR+: regret+ update, then predictive regret matching
        _average(T, x, o, m, sigma, cumulative, reach, weight)
        for a in range(m):
            y = regret[o + a] + (acc[o + a] - value)
            regret[o + a] = y if y > 0.0 else 0.0
        pred = predictive_match(sigma, regret, acc2, o, m)
        for a in range(m):
            acc[o + a] = 0.0
            acc2[o + a] = 0.0
        w[x] = pred
        return
    base = value  # what the regrets are measured against: the value of the player's own part
    if lock > 0.0 and lock < 1.0:
        fixed = 0.0
        for i in range(o, o + m):
            fixed += model[_ix(i)] * acc[_ix(i)]
        base = (value - lock * fixed) / (1.0 - lock)
    wr = weight * reach[_ix(x)]
    n = T.infoset_count[_ix(T.entry_ref[_ix(x)])]
    total = 0.0
    for i in range(o, o + m):
        j = _ix(i)
        cumulative[j] += n * (wr * sigma[j])
        y = regret[j] + (acc[j] - base)
        acc[j] = 0.0
        if discount:
            if plus and y < 0.0:
                y = 0.0
            y *= fpos if y >= 0.0 else fneg
        elif plus:
            y = max(y, 0.0)
        regret[j] = y
        total += max(y, 0.0)
    if total > 0.0:
        for i in range(o, o + m):
            sigma[_ix(i)] = max(regret[_ix(i)], 0.0) / total
    else:
        for i in range(o, o + m):
            sigma[_ix(i)] = 1.0 / m
    if lock > 0.0:
        for i in range(o, o + m):
            sigma[_ix(i)] = lock * model[_ix(i)] + (1.0 - lock) * sigma[_ix(i)]


@numba.njit(cache=True, inline="always")
def _lock(lock, infoset):
    """The restricted weight of ``infoset`` (:func:`_update`): 0 where the tree has no restriction."""
    return lock[infoset] if lock.shape[0] > 0 else 0.0
