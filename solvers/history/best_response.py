"""Exact best response, NashConv and exploitability over a flat game tree.

Johanson, Waugh, Bowling and Zinkevich (2011), "Accelerating Best Response
Calculation in Large Extensive Games", IJCAI; NashConv as defined by Lanctot
et al. (2017), "A Unified Game-Theoretic Approach to Multiagent Reinforcement
Learning", NeurIPS, with OpenSpiel's convention for two-player zero-sum
games: ``exploitability = NashConv / 2``.

The best response of player ``b`` is computed in sequence form, which needs
only perfect recall (the histories of an information set may lie at different
depths). The tree is read through its layout (:mod:`solvers.history.layout`):

1. a forward pass computes the counterfactual reach ``q`` of ``b`` (chance's
   and the opponent's probabilities) of every history;
2. a backward pass, deepest level first, carries ``w``, the ``q``-weighted
   payoff of ``b`` summed over the terminals below a history and above
   ``b``'s next decisions, and adds the ``w`` of the children of ``b``'s
   decision nodes to the accumulators of their actions. After each level,
   ``b``'s information sets whose first history lies in that level are
   final (every history of the set is at that level or deeper, and every
   information set of ``b`` below it has a deeper first history): the pass
   picks the action with the largest accumulated counterfactual value (the
   first one on ties) and adds that value to the accumulator of the
   information set's parent sequence (or to the root value). The same pass
   computes player 0's on-policy value of every history.

Trees of three or more players, or general-sum ones (a :class:`~solvers.trees.gametree.GameTree` with
``payoffs``), take the same algorithm over the node arrays (:mod:`solvers.history._nplayer`):
:func:`best_response`, :func:`expected_values` and :func:`nash_conv` accept them, NashConv being
``sum_p (BR_p - v_p)`` over every player; :func:`exploitability` stays the two-player zero-sum
figure and refuses them.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from solvers.history import _nplayer
from solvers.history.layout import layout_for
from solvers.history.passes import U, forward, init_values
from solvers.kinds import SEG_CHANCE
from solvers.memory import check_fits
from solvers.policy import check_policy

__all__ = ["BestResponse", "best_response", "nash_conv", "exploitability", "expected_values",
           "nash_conv_of", "exploitability_of"]


@numba.njit(cache=True)
def br_kernel(L, sigma, b, with_values, q, w, v, acc, br_policy, out):
    """Best response of player ``b`` against ``sigma`` (flat, both players).

    One forward pass and one backward pass; the code is about 55 lines, the
    rest of its length documents the arguments.

    Parameters
    ----------
    L : LayoutArrays
        The tree's layout (:class:`~solvers.history.layout.LayoutArrays`).
    sigma : ndarray, float64, shape (num_actions,)
        The policy, in the layout's internal order.
    b : int
        The best responder, 0 or 1.
    with_values : bool
        Also compute player 0's on-policy value of every history into ``v``.
    q, w : ndarray, float64, shape (num_nodes,)
        Scratch.
    v : ndarray, float64, shape (num_nodes,)
        Holds the payoffs at the terminals
        (:func:`~solvers.history.passes.init_values`); receives the values when
        ``with_values``.
    acc : ndarray, float64, shape (num_actions,)
        Scratch.
    br_policy : ndarray, float64, shape (num_actions,) or (0,)
        When not empty, receives a pure best response at ``b``'s information
        sets (internal order).
    out : ndarray, float64, shape (2,)
        ``out[0]``: best-response value for ``b``; ``out[1]``: on-policy value
        for player 0 (when ``with_values``).

    Returns
    -------
    int
        0.
    """
    node, child, aux = L.node, L.child, L.aux
    seg_start, seg_kind, seg_nc, level_seg = L.seg_start, L.seg_kind, L.seg_nc, L.level_seg
    cprob, order, level_order = L.cprob, L.order, L.level_order
    infoset_offset, infoset_num_actions, parent_seq = L.ioff, L.num_actions, L.iparent
    q[0] = 1.0
    forward(L, 0, seg_kind.shape[0], cprob, sigma, q, b)
    for j in range(acc.shape[0]):
        acc[j] = 0.0
    sign = 1.0 if b == 0 else -1.0
    for i in range(q.shape[0]):
        w[i] = q[i] * (sign * v[i])  # kept at the terminals, overwritten elsewhere
    root = 0.0
    for d in range(level_seg.shape[0] - 2, -1, -1):
        for s in range(level_seg[d], level_seg[d + 1]):
            kd = seg_kind[s]
            nc = U(seg_nc[s])
            for j in range(U(seg_start[s]), U(seg_start[s + 1])):
                i = U(node[j])
                c = U(child[j])
                x = U(aux[j])
                if with_values:
                    val = 0.0
                    if kd == SEG_CHANCE:
                        for k in range(nc):
                            val += cprob[x + k] * v[c + k]
                    else:
                        for k in range(nc):
                            val += sigma[x + k] * v[c + k]
                    v[i] = val
                if kd == b:
                    for k in range(nc):
                        acc[x + k] += w[c + k]
                    w[i] = 0.0
                else:
                    total = 0.0
                    for k in range(nc):
                        total += w[c + k]
                    w[i] = total
        for y in range(level_order[b, d], level_order[b, d + 1]):
            s = order[y]
            best = _nplayer.pick_best(acc, infoset_offset[s], infoset_num_actions[s], br_policy)
            if parent_seq[s] >= 0:
                acc[parent_seq[s]] += best
            else:
                root += best
    out[0] = root + w[0]
    if with_values:
        out[1] = v[0]
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
    """Scratch buffers for :func:`br_kernel`; reusable across calls.

    ``q``, ``w`` and ``v`` are float64 buffers of one entry per node; a given
    ``v`` must already hold the payoffs at the terminals (a solve shares its
    own value buffer when it is float64).
    """

    def __init__(self, tree, q=None, w=None, v=None):
        n, a = tree.num_nodes, tree.num_actions
        fresh = sum(8 * n for buf in (q, w, v) if buf is None) + 8 * a
        check_fits(fresh, "the best-response computation")
        self.layout = layout_for(tree)
        self.q = np.empty(n) if q is None else q
        self.w = np.empty(n) if w is None else w
        if v is None:
            v = np.empty(n)
            init_values(tree.flat, v)
        self.v = v
        self.acc = np.empty(a)
        self.out = np.zeros(2)
        self.no_policy = np.zeros(0)


def _run(sigma, b, ws, br_policy, with_values=True):
    """Run :func:`br_kernel`; ``sigma`` and ``br_policy`` in the layout's internal order."""
    br_kernel(ws.layout.arrays, sigma, b, with_values, ws.q, ws.w, ws.v, ws.acc, br_policy, ws.out)
    return float(ws.out[0]), float(ws.out[1])


def _values(sigma, ws, internal=False):
    """(BR value of player 0, BR value of player 1, on-policy value of player 0).

    ``sigma`` is a flat policy (float64, ``num_actions``) in the tree's order,
    or in the layout's internal order when ``internal``.
    """
    if not internal:
        sigma = ws.layout.to_internal(sigma)
    br0, ev0 = _run(sigma, 0, ws, ws.no_policy, True)
    br1, _ = _run(sigma, 1, ws, ws.no_policy, False)
    return br0, br1, ev0


def nash_conv_of(br0, br1, ev0):
    """NashConv from the best-response values and player 0's on-policy value.

    ``(BR_0 - v_0) + (BR_1 - v_1)`` with ``v_1 = -v_0`` (zero-sum), as in
    OpenSpiel's ``nash_conv``. The one place this formula is written.
    """
    return (br0 - ev0) + (br1 + ev0)


def exploitability_of(br0, br1, ev0):
    """``nash_conv_of(br0, br1, ev0) / 2``: OpenSpiel's two-player exploitability. The one place."""
    return nash_conv_of(br0, br1, ev0) / 2.0


def policy_values(tree, policy, ws=None):
    """``(exploitability, value of player 0)`` of a flat policy (tree order, float64, ``num_actions``).

    ``ws`` is a workspace to reuse (one is made when ``None``).
    """
    br0, br1, ev0 = _values(policy, _Workspace(tree) if ws is None else ws)
    return exploitability_of(br0, br1, ev0), ev0


def _check_player(player, num_players=2):
    if (isinstance(player, bool) or not isinstance(player, (int, np.integer))
            or not 0 <= player < num_players):
        seats = "0 or 1" if num_players == 2 else f"a seat 0 .. {num_players - 1}"
        raise ValueError(f"player must be {seats}, got {player!r}")
    return int(player)


def _nplayer_best_response(tree, sigma, player):
    """:func:`best_response` on a tree with ``payoffs`` (:mod:`solvers.history._nplayer`)."""
    out = sigma.copy()
    value = _nplayer.br_values(tree, sigma, player, out)
    return BestResponse(value, out, float(_nplayer.onpolicy_values(tree, sigma)[player]))


def _nplayer_nash_conv(tree, sigma):
    """``sum_p (BR_p - v_p)`` on a tree with ``payoffs``."""
    ev = _nplayer.onpolicy_values(tree, sigma)
    return float(sum(_nplayer.br_values(tree, sigma, p) - ev[p] for p in range(tree.num_players)))


def best_response(tree, policy, player):
    """Exact best response of ``player`` to ``policy``.

    Parameters
    ----------
    tree : GameTree
    policy : array_like
        Flat policy (``tree.num_actions`` probabilities aligned with
        ``tree.infoset_offset``); only the opponent's part matters.
    player : int
        The best responder: 0 or 1, or any seat of a tree with ``payoffs``.

    Returns
    -------
    BestResponse
    """
    player = _check_player(player, tree.num_players)
    sigma = check_policy(tree, policy)
    if not tree.two_player_zero_sum:
        return _nplayer_best_response(tree, sigma, player)
    ws = _Workspace(tree)
    internal = ws.layout.to_internal(sigma)
    out = internal.copy()
    value, ev0 = _run(internal, player, ws, out)
    return BestResponse(value, ws.layout.to_tree(out), ev0 if player == 0 else -ev0)


def expected_values(tree, policy):
    """Expected utility of each player when both follow ``policy``.

    Returns
    -------
    numpy.ndarray
        ``[v0, v1]`` with ``v1 = -v0`` (zero-sum), or every player's value (a tree with
        ``payoffs``).
    """
    sigma = check_policy(tree, policy)
    if not tree.two_player_zero_sum:
        return _nplayer.onpolicy_values(tree, sigma)
    ws = _Workspace(tree)
    _, ev0 = _run(ws.layout.to_internal(sigma), 0, ws, ws.no_policy)
    return np.array([ev0, -ev0])


def _br_values(tree, policy):
    """``(br0, br1, ev0)`` of a flat policy (validated), with a fresh workspace."""
    return _values(check_policy(tree, policy), _Workspace(tree))


def nash_conv(tree, policy):
    """NashConv: the sum over players of what a best response gains.

    ``(BR_0 - v_0) + (BR_1 - v_1)``, as in OpenSpiel's ``nash_conv``
    (:func:`nash_conv_of`); on a tree with ``payoffs`` (N players, any sums)
    ``sum_p (BR_p - v_p)``.

    Parameters
    ----------
    tree : GameTree
    policy : array_like, float64, shape (num_actions,)
        Flat policy, or a ``SolveResult``.
    """
    if not tree.two_player_zero_sum:
        return _nplayer_nash_conv(tree, check_policy(tree, policy))
    return nash_conv_of(*_br_values(tree, policy))


def exploitability(tree, policy):
    """``nash_conv(tree, policy) / 2``, OpenSpiel's two-player convention (:func:`exploitability_of`).

    Arguments as for :func:`nash_conv`. A tree that is not two-player zero-sum is refused
    (``ValueError``): use :func:`nash_conv`.
    """
    if not tree.two_player_zero_sum:
        raise ValueError(f"exploitability is the two-player zero-sum figure; this tree has "
                         f"{tree.num_players} players with their own payoffs: use nash_conv")
    return exploitability_of(*_br_values(tree, policy))
