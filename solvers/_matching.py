"""PCFR+'s predictive regret matching for one information set, shared by both CFR kernels.

Farina, Kroer and Sandholm (2021), "Faster game solving via predictive Blackwell approachability".
"""

import numba

__all__ = ["predictive_match"]


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
