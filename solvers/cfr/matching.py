"""PCFR+'s predictive regret matching for one information set, and each iteration's averaging weight and
regret discounts (:func:`schedule`): shared by both CFR kernels and the pieces of a cut public tree.

Farina, Kroer and Sandholm (2021), "Faster game solving via predictive Blackwell approachability".
"""

import numba

__all__ = ["predictive_match", "schedule"]


@numba.njit(cache=True, inline="always")
def predictive_match(sigma, regret, pred, o, m):
    """The new strategy of the information set whose actions are ``o .. o+m-1``; returns its value.

    The strategy is regret matching+ on ``regret + pred - baseline``, the baseline the value of
    ``pred`` (the predicted counterfactual values) under the strategy just played (``sigma`` on entry,
    rewritten); uniform when nothing is positive. Returns the new strategy's value under ``pred``.

    Parameters
    ----------
    sigma, regret, pred : ndarray, float64, shape (num_actions,)
    o, m : int
    """
    baseline = 0.0
    for a in range(m):
        baseline += sigma[o + a] * pred[o + a]
    total = 0.0
    for a in range(m):
        y = regret[o + a] + pred[o + a] - baseline
        if y > 0.0:
            total += y
    value = 0.0
    for a in range(m):
        if total > 0.0:
            y = regret[o + a] + pred[o + a] - baseline
            sigma[o + a] = (y if y > 0.0 else 0.0) / total
        else:
            sigma[o + a] = 1.0 / m
        value += sigma[o + a] * pred[o + a]
    return value


@numba.njit(cache=True)
def schedule(t, P):
    """Averaging weight and regret discounts of iteration ``t`` (int) under ``P`` (:class:`Params`).

    Returns ``(weight, fpos, fneg)`` (floats): ``t**gamma`` and the discount factors of positive
    and negative regrets.
    """
    tf = float(t)
    weight = tf ** P.gamma
    fpos = 1.0
    fneg = 1.0
    if P.discount:
        ta = tf ** P.alpha
        fpos = ta / (ta + 1.0)
        tb = tf ** P.beta
        fneg = tb / (tb + 1.0)
    return weight, fpos, fneg
