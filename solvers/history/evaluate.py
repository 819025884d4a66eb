"""Reach probabilities and node values of a policy over a whole :class:`~solvers.trees.gametree.GameTree`.

``reach[v]`` is the probability that play reaches history ``v`` when chance and both players follow
their parts of the policy (the product of every edge probability on the path), and ``value[v]`` is
player 0's expected payoff from ``v`` on. Both are exact (a forward and a backward pass in level order);
analyses of a solved strategy weight their statistics by them.
"""

from __future__ import annotations

import numba
import numpy as np

from solvers.kinds import CHANCE, TERMINAL
from solvers.memory import check_fits
from solvers.policy import check_policy


@numba.njit(cache=True)
def _reach_and_values(tree, sigma, reach, value):
    """Forward pass (reach) then backward pass (values), in node order.

    Parameters
    ----------
    tree : FlatTree
    sigma : ndarray, float64, shape (num_actions,)
        Flat policy, tree order.
    reach, value : ndarray, float64, shape (num_nodes,)
        Out.
    """
    kind, infoset, child_start = tree.node_kind, tree.node_infoset, tree.child_start
    num_children, chance_prob, payoff = tree.num_children, tree.chance_prob, tree.payoff
    infoset_offset = tree.infoset_offset
    n = kind.shape[0]
    reach[0] = 1.0
    for i in range(n):
        k = kind[i]
        if k == TERMINAL:
            continue
        c0 = child_start[i]
        r = reach[i]
        if k == CHANCE:
            for j in range(num_children[i]):
                reach[c0 + j] = r * chance_prob[c0 + j]
        else:
            o = infoset_offset[infoset[i]]
            for j in range(num_children[i]):
                reach[c0 + j] = r * sigma[o + j]
    for i in range(n - 1, -1, -1):
        k = kind[i]
        if k == TERMINAL:
            value[i] = payoff[i]
            continue
        c0 = child_start[i]
        acc = 0.0
        if k == CHANCE:
            for j in range(num_children[i]):
                acc += chance_prob[c0 + j] * value[c0 + j]
        else:
            o = infoset_offset[infoset[i]]
            for j in range(num_children[i]):
                acc += sigma[o + j] * value[c0 + j]
        value[i] = acc


def reach_and_values(tree, policy):
    """``(reach, value)``: per-history reach probability and player 0's expected payoff under ``policy``.

    Parameters
    ----------
    tree : GameTree
    policy : array_like, float64, shape (num_actions,)
        A flat policy (one probability per infoset action, aligned with ``tree.infoset_offset``).

    Returns
    -------
    reach, value : ndarray, float64, shape (num_nodes,)
    """
    sigma = check_policy(tree, policy)
    check_fits(16 * tree.num_nodes, "reach probabilities and node values")
    reach = np.empty(tree.num_nodes)
    value = np.empty(tree.num_nodes)
    _reach_and_values(tree.flat, sigma, reach, value)
    return reach, value
