"""Exact best response, NashConv and exploitability over a flat game tree.

Johanson, Waugh, Bowling and Zinkevich (2011), "Accelerating Best Response
Calculation in Large Extensive Games", IJCAI; NashConv as defined by Lanctot
et al. (2017), "A Unified Game-Theoretic Approach to Multiagent Reinforcement
Learning", NeurIPS, with OpenSpiel's convention for two-player zero-sum
games: ``exploitability = NashConv / 2``.

The best response of player ``b`` is computed in sequence form, which needs
only perfect recall (the histories of an information set may lie at different
depths):

1. a forward pass in node order computes, per node, the counterfactual reach
   ``q`` (opponent and chance probabilities), the reach of the full profile
   (for the on-policy value) and ``b``'s last (infoset, action) on the path;
   each terminal adds ``q * u_b`` to that action's accumulator;
2. a reverse pass visits each of ``b``'s information sets at its first
   (lowest-index) history, by which point every history of the set and every
   later information set of ``b`` below it has been accounted for; it picks
   the action with the largest accumulated counterfactual value (the first
   one on ties) and adds that value to the accumulator of the information
   set's parent sequence (or to the root value).
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from .policy import check_policy
from .memory import check_fits

__all__ = ["BestResponse", "best_response", "nash_conv", "exploitability", "expected_values"]


@numba.njit(cache=True)
def br_kernel(kind, player, infoset, child_start, num_children, chance_prob, payoff,
              infoset_offset, infoset_num_actions, sigma, b, q, f, seq, first, acc,
              br_policy, out):
    """Best response of player ``b`` against ``sigma`` (flat, both players).

    Scratch: ``q``, ``f`` (float64 per node), ``seq`` (int64 per node),
    ``first`` (int64 per infoset), ``acc`` (float64 per action). Writes
    ``out[0]`` = best-response value for ``b``, ``out[1]`` = on-policy value
    for player 0, and a pure best response into ``br_policy`` for ``b``'s
    infosets when ``br_policy`` is not empty. Returns 0.
    """
    n = kind.shape[0]
    for j in range(acc.shape[0]):
        acc[j] = 0.0
    for s in range(first.shape[0]):
        first[s] = -1
    sign = 1.0 if b == 0 else -1.0
    root = 0.0
    ev = 0.0
    q[0] = 1.0
    f[0] = 1.0
    seq[0] = -1
    for i in range(n):
        k = kind[i]
        if k == 2:
            u = payoff[i]
            ev += f[i] * u
            x = q[i] * (sign * u)
            if seq[i] < 0:
                root += x
            else:
                acc[seq[i]] += x
            continue
        c0 = child_start[i]
        nc = num_children[i]
        qi = q[i]
        fi = f[i]
        si = seq[i]
        if k == 1:
            for c in range(c0, c0 + nc):
                q[c] = qi * chance_prob[c]
                f[c] = fi * chance_prob[c]
                seq[c] = si
            continue
        s = infoset[i]
        if first[s] < 0:
            first[s] = i
        o = infoset_offset[s]
        if player[i] == b:
            for a in range(nc):
                q[c0 + a] = qi
                f[c0 + a] = fi * sigma[o + a]
                seq[c0 + a] = o + a
        else:
            for a in range(nc):
                q[c0 + a] = qi * sigma[o + a]
                f[c0 + a] = fi * sigma[o + a]
                seq[c0 + a] = si
    write_policy = br_policy.shape[0] > 0
    for i in range(n - 1, -1, -1):
        if kind[i] != 0 or player[i] != b:
            continue
        s = infoset[i]
        if first[s] != i:
            continue
        o = infoset_offset[s]
        m = infoset_num_actions[s]
        best = acc[o]
        best_a = 0
        for a in range(1, m):
            if acc[o + a] > best:
                best = acc[o + a]
                best_a = a
        if write_policy:
            for a in range(m):
                br_policy[o + a] = 0.0
            br_policy[o + best_a] = 1.0
        if seq[i] < 0:
            root += best
        else:
            acc[seq[i]] += best
    out[0] = root
    out[1] = ev
    return 0


class BestResponse(NamedTuple):
    """Result of :func:`best_response`.

    Attributes
    ----------
    value : float
        Expected utility of the best responder against the policy.
    policy : numpy.ndarray
        Flat policy: a pure best response at the responder's information sets,
        the given policy at the opponent's.
    on_policy_value : float
        The responder's expected utility when both follow the given policy.
    """

    value: float
    policy: np.ndarray
    on_policy_value: float


class _Workspace:
    """Scratch buffers for :func:`br_kernel`; reusable across calls."""

    def __init__(self, tree, q=None, f=None, seq=None):
        n, m, a = tree.num_nodes, tree.num_infosets, tree.num_actions
        fresh = sum(8 * n for buf in (q, f, seq) if buf is None) + 8 * (m + a)
        check_fits(fresh, "the best-response computation")
        self.q = np.empty(n) if q is None else q
        self.f = np.empty(n) if f is None else f
        self.seq = np.empty(n, np.int64) if seq is None else seq
        self.first = np.empty(m, np.int64)
        self.acc = np.empty(a)
        self.out = np.zeros(2)
        self.no_policy = np.zeros(0)


def _run(tree, sigma, b, ws, br_policy):
    br_kernel(tree.node_kind, tree.node_player, tree.node_infoset, tree.child_start,
              tree.num_children, tree.chance_prob, tree.payoff, tree.infoset_offset,
              tree.infoset_num_actions, sigma, b, ws.q, ws.f, ws.seq, ws.first, ws.acc,
              br_policy, ws.out)
    return float(ws.out[0]), float(ws.out[1])


def _values(tree, sigma, ws):
    """(BR value of player 0, BR value of player 1, on-policy value of player 0)."""
    br0, ev0 = _run(tree, sigma, 0, ws, ws.no_policy)
    br1, _ = _run(tree, sigma, 1, ws, ws.no_policy)
    return br0, br1, ev0


def _check_player(player):
    if isinstance(player, bool) or not isinstance(player, (int, np.integer)) or player not in (0, 1):
        raise ValueError(f"player must be 0 or 1, got {player!r}")
    return int(player)


def best_response(tree, policy, player):
    """Exact best response of ``player`` to ``policy``.

    Parameters
    ----------
    tree : GameTree
    policy : array_like
        Flat policy (``tree.num_actions`` probabilities aligned with
        ``tree.infoset_offset``); only the opponent's part matters.
    player : int
        The best responder, 0 or 1.

    Returns
    -------
    BestResponse
    """
    player = _check_player(player)
    sigma = check_policy(tree, policy)
    ws = _Workspace(tree)
    out = sigma.copy()
    value, ev0 = _run(tree, sigma, player, ws, out)
    return BestResponse(value, out, ev0 if player == 0 else -ev0)


def expected_values(tree, policy):
    """Expected utility of each player when both follow ``policy``.

    Returns
    -------
    numpy.ndarray
        ``[v0, v1]`` with ``v1 = -v0`` (zero-sum).
    """
    sigma = check_policy(tree, policy)
    _, ev0 = _run(tree, sigma, 0, _Workspace(tree), np.zeros(0))
    return np.array([ev0, -ev0])


def nash_conv(tree, policy):
    """NashConv: the sum over players of what a best response gains.

    ``(BR_0 - v_0) + (BR_1 - v_1)``, as in OpenSpiel's ``nash_conv``.
    """
    sigma = check_policy(tree, policy)
    br0, br1, ev0 = _values(tree, sigma, _Workspace(tree))
    return (br0 - ev0) + (br1 + ev0)


def exploitability(tree, policy):
    """``nash_conv(tree, policy) / 2``, OpenSpiel's two-player convention."""
    return nash_conv(tree, policy) / 2.0
