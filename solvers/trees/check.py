"""Numba kernel validating the node and infoset arrays of a :class:`GameTree`.

The kernel returns ``(code, index)``; ``code`` is one of the ``E_*`` constants
below (``OK`` when the tree is valid) and :data:`MESSAGES` turns it into the
``ValueError`` text raised by :class:`solvers.trees.gametree.GameTree`.
"""

import numba
import numpy as np

from solvers.kinds import CHANCE, DECISION, TERMINAL

OK = 0
E_KIND = 1
E_ROOT_PROB = 2
E_TERMINAL = 3
E_PLAYER = 4
E_INFOSET_RANGE = 5
E_INFOSET_PLAYER = 6
E_NUM_CHILDREN = 7
E_CHANCE = 8
E_NO_CHILDREN = 9
E_TILING = 10
E_LEVEL = 11
E_COUNT = 12
E_CHANCE_PROB = 13
E_CHANCE_SUM = 14
E_EDGE_PROB = 15
E_PAYOFF = 16
E_PAYOFF_NONTERMINAL = 17
E_UNUSED_INFOSET = 18
E_PERFECT_RECALL = 19
E_DUPLICATE_ACTION = 20

MESSAGES = {
    E_KIND: (f"node_kind[{{i}}] is not {DECISION} (decision), {CHANCE} (chance) or {TERMINAL} "
             "(terminal)"),
    E_ROOT_PROB: "chance_prob[0] (the root) must be 1.0",
    E_TERMINAL: "terminal node {i} must have num_children 0, node_player -1 and node_infoset -1",
    E_PLAYER: "decision node {i} has node_player not in [0, num_players)",
    E_INFOSET_RANGE: "decision node {i} has node_infoset outside [0, num_infosets)",
    E_INFOSET_PLAYER: "decision node {i} has node_player different from infoset_player of its infoset",
    E_NUM_CHILDREN: "decision node {i} has num_children different from infoset_num_actions of its infoset",
    E_CHANCE: "chance node {i} must have node_player -1, node_infoset -1 and at least one child",
    E_NO_CHILDREN: "decision node {i} has no children",
    E_TILING: ("child_start[{i}] breaks level order: the children of the non-terminal nodes, "
               "taken in node order, must be the contiguous ranges 1.., in that order"),
    E_LEVEL: "the children of node {i} are not all in the level after the node's level (level_start)",
    E_COUNT: "the children ranges do not cover all nodes 1..num_nodes-1 (stopped at node {i})",
    E_CHANCE_PROB: "chance_prob[{i}] is negative or not finite",
    E_CHANCE_SUM: "the chance_prob of the children of chance node {i} do not sum to 1",
    E_EDGE_PROB: "chance_prob[{i}] must be 1.0 because the parent of node {i} is not a chance node",
    E_PAYOFF: "payoff[{i}] is not finite",
    E_PAYOFF_NONTERMINAL: "payoff[{i}] must be 0 because node {i} is not terminal",
    E_UNUSED_INFOSET: "information set {i} has no decision node",
    E_PERFECT_RECALL: ("information set {i} violates perfect recall: its histories differ in the "
                       "owner's earlier information sets or actions"),
    E_DUPLICATE_ACTION: "information set {i} lists the same action id twice in infoset_actions",
}


@numba.njit(cache=True)
def own_sequences(tree, p, seq, parent_seq):
    """Player ``p``'s sequences, in one pass over the nodes (parents come first).

    Parameters
    ----------
    tree : FlatTree
        The tree's arrays (:class:`solvers.trees.gametree.FlatTree`).
    p : int
        The player (any seat).
    seq : ndarray, int32 or int64, shape (num_nodes,)
        Out: the flat index of ``p``'s last action on the path to each node
        (-1 for none).
    parent_seq : ndarray, int64, shape (num_infosets,)
        In/out: for each of ``p``'s information sets still holding -2, the
        sequence at its first history.

    Returns
    -------
    int
        The first information set whose histories disagree (perfect recall
        violated), or -1. Shared by :func:`check_tree` and the solver layout
        (:mod:`solvers.history.layout`).
    """
    kind, player, infoset = tree.node_kind, tree.node_player, tree.node_infoset
    child_start, num_children, infoset_offset = tree.child_start, tree.num_children, tree.infoset_offset
    seq[0] = -1
    for i in range(kind.shape[0]):
        k = kind[i]
        if k == TERMINAL:
            continue
        c0 = child_start[i]
        nc = num_children[i]
        if k == DECISION and player[i] == p:
            s = infoset[i]
            if parent_seq[s] == -2:
                parent_seq[s] = seq[i]
            elif parent_seq[s] != seq[i]:
                return s
            o = infoset_offset[s]
            for a in range(nc):
                seq[c0 + a] = o + a
        else:
            for a in range(nc):
                seq[c0 + a] = seq[i]
    return -1


@numba.njit(cache=True)
def _check_node(tree, i, num_players):
    """The checks of node ``i`` alone (kind, owner, information set, payoff); ``OK`` or an ``E_*``."""
    k = tree.node_kind[i]
    nc = tree.num_children[i]
    player, infoset = tree.node_player[i], tree.node_infoset[i]
    if k != DECISION and k != CHANCE and k != TERMINAL:
        return E_KIND
    if not np.isfinite(tree.payoff[i]):
        return E_PAYOFF
    if k == TERMINAL:
        if nc != 0 or player != -1 or infoset != -1:
            return E_TERMINAL
        return OK
    if tree.payoff[i] != 0.0:
        return E_PAYOFF_NONTERMINAL
    if k == CHANCE:
        return E_CHANCE if (player != -1 or infoset != -1 or nc < 1) else OK
    if player < 0 or player >= num_players:
        return E_PLAYER
    if infoset < 0 or infoset >= tree.infoset_player.shape[0]:
        return E_INFOSET_RANGE
    if tree.infoset_player[infoset] != player:
        return E_INFOSET_PLAYER
    if nc < 1:
        return E_NO_CHILDREN
    if nc != tree.infoset_num_actions[infoset]:
        return E_NUM_CHILDREN
    return OK


@numba.njit(cache=True)
def _check_edges(tree, i):
    """The probabilities of the edges out of non-terminal ``i``: ``(code, index)``."""
    c0 = tree.child_start[i]
    nc = tree.num_children[i]
    chance_prob = tree.chance_prob
    if tree.node_kind[i] == CHANCE:
        total = 0.0
        for c in range(c0, c0 + nc):
            q = chance_prob[c]
            if not (q >= 0.0 and q <= 1.0):
                return E_CHANCE_PROB, c
            total += q
        if abs(total - 1.0) > 1e-9:
            return E_CHANCE_SUM, i
    else:
        for c in range(c0, c0 + nc):
            if chance_prob[c] != 1.0:
                return E_EDGE_PROB, c
    return OK, 0


@numba.njit(cache=True)
def _check_levels(tree, num_players):
    """Every node, level by level, and the tiling of the children: ``(code, index)``."""
    level_start = tree.level_start
    next_child = 1
    num_levels = level_start.shape[0] - 1
    for d in range(num_levels):
        lo_next = level_start[d + 1]
        hi_next = level_start[d + 2] if d + 2 <= num_levels else lo_next
        for i in range(level_start[d], level_start[d + 1]):
            code = _check_node(tree, i, num_players)
            if code != OK:
                return code, i
            if tree.node_kind[i] == TERMINAL:
                continue
            c0 = tree.child_start[i]
            nc = tree.num_children[i]
            if c0 != next_child:
                return E_TILING, i
            if c0 < lo_next or c0 + nc > hi_next:
                return E_LEVEL, i
            next_child += nc
            code, where = _check_edges(tree, i)
            if code != OK:
                return code, where
    if next_child != tree.node_kind.shape[0]:
        return E_COUNT, next_child
    return OK, 0


@numba.njit(cache=True)
def check_tree(tree, seq, parent_seq, num_players):
    """Validate the arrays of a tree.

    Parameters
    ----------
    tree : FlatTree
        The tree's arrays (:class:`solvers.trees.gametree.FlatTree`).
    seq : ndarray, int64, shape (num_nodes,)
        Scratch.
    parent_seq : ndarray, int64, shape (max(num_infosets, 1),)
        Scratch.
    num_players : int
        Players own decisions ``0 .. num_players - 1``.

    Returns
    -------
    (int, int)
        ``(code, index)``: an ``E_*`` code (``OK`` when valid) and the node or
        information set it concerns.
    """
    infoset_player, infoset_num_actions = tree.infoset_player, tree.infoset_num_actions
    infoset_offset, infoset_actions = tree.infoset_offset, tree.infoset_actions
    num_infosets = infoset_player.shape[0]
    if tree.chance_prob[0] != 1.0:
        return E_ROOT_PROB, 0
    # Duplicate action ids inside one infoset.
    for s in range(num_infosets):
        o = infoset_offset[s]
        m = infoset_num_actions[s]
        for a in range(m):
            for b in range(a + 1, m):
                if infoset_actions[o + a] == infoset_actions[o + b]:
                    return E_DUPLICATE_ACTION, s
    code, index = _check_levels(tree, num_players)
    if code != OK:
        return code, index
    # Perfect recall: every node of an infoset has the same last own
    # (infoset, action) sequence; one pass per player.
    for p in range(num_players):
        for s in range(num_infosets):
            parent_seq[s] = -2
        s = own_sequences(tree, p, seq, parent_seq)
        if s >= 0:
            return E_PERFECT_RECALL, s
        for s in range(num_infosets):
            if infoset_player[s] == p and parent_seq[s] == -2:
                return E_UNUSED_INFOSET, s
    return OK, 0
