"""The public tree of a :class:`~solvers.GameTree`, given which edges everybody sees.

For small games (Kuhn and Leduc poker, Liar's Dice, short card games) and for cross-checks: the
public-tree solver over the result must reproduce the history solver over the ``GameTree``. Large
games build their public tree directly, with a builder of their own.

A history's public node is its parent's public node followed by the *public label* of the edge into
it: histories whose parents share a public node and whose edges carry the same label share a public
node. A player's private state (entry) at a history is the player's information set there when the
player acts, and otherwise the player's last information set on the path with the action taken there
(or "nothing yet"): by perfect recall this fixes the player's own reach, which is all the vector form
needs. Each terminal gets its own matrix: the sum over its histories of chance probability times
payoff, by pair of entries (``term_scale`` 1).
"""

from __future__ import annotations

import numpy as np

from solvers.kinds import DECISION, TERMINAL
from solvers.trees.matrices import sparse_matrices

__all__ = ["chance_reach", "derive", "hidden_chance_labels", "openspiel_labels", "parents"]


def hidden_chance_labels(tree, public_chance_depth=None):
    """Public labels: every decision edge public (its action id), chance edges hidden.

    A chance edge is public when a decision lies above it (``public_chance_depth`` None), as in poker
    (private deals first, public board cards later); ``public_chance_depth=k`` makes public the chance
    edges out of levels ``>= k`` instead. Returns int64 labels per history (-1 for hidden edges).
    """
    n = tree.num_nodes
    label = np.full(n, -1, dtype=np.int64)
    seen_decision = np.zeros(n, dtype=bool)
    kind, start, count = tree.node_kind, tree.child_start, tree.num_children
    for d in range(tree.level_start.shape[0] - 1):
        for i in range(int(tree.level_start[d]), int(tree.level_start[d + 1])):
            if kind[i] == TERMINAL:
                continue
            below = seen_decision[i] or kind[i] == DECISION
            for k in range(int(count[i])):
                c = int(start[i]) + k
                seen_decision[c] = below
                if kind[i] == DECISION:
                    s = int(tree.node_infoset[i])
                    label[c] = int(tree.infoset_actions[int(tree.infoset_offset[s]) + k])
                elif (seen_decision[i] if public_chance_depth is None else d >= public_chance_depth):
                    label[c] = k
    return label


def openspiel_labels(game):
    """Public labels for ``GameTree.from_openspiel(game)``'s histories, in its order.

    Every action is public (its id) and so is every chance outcome below a decision (its outcome
    id: a board card); chance outcomes before any decision (the deals) are hidden (-1). This is the
    public information of poker-like games (Kuhn, Leduc, Liar's Dice).

    Parameters
    ----------
    game : pyspiel.Game

    Returns
    -------
    ndarray, int64, shape (num_nodes,)
    """
    labels = [-1]
    level = [(game.new_initial_state(), False)]
    while level:
        nxt = []
        for state, seen in level:
            if state.is_terminal():
                continue
            if state.is_chance_node():
                actions = [a for a, _ in state.chance_outcomes()]
                labels.extend(a if seen else -1 for a in actions)
            else:
                actions = state.legal_actions()
                labels.extend(actions)
                seen = True
            nxt.extend((state.child(a), seen) for a in actions)
        level = nxt
    return np.array(labels, dtype=np.int64)


def parents(tree):
    """The parent of every node of a level-ordered tree (a ``GameTree`` or a ``PublicTree``; -1 at the
    root): nodes 1 .. n-1 are the children of the non-terminal nodes, in order."""
    kind = tree.node_kind
    parent = np.full(kind.shape[0], -1, dtype=np.int64)
    inner = np.flatnonzero(kind != TERMINAL)
    counts = tree.num_children[inner].astype(np.int64)
    parent[1:] = np.repeat(inner, counts)
    return parent


def within(counts):
    """0, 1, ..., counts[0]-1, 0, 1, ..., counts[1]-1, ...: each item's place in its group, for groups
    laid out one after another (an information set's actions at its offset, a node's children at its
    ``child_start``)."""
    counts = np.asarray(counts, dtype=np.int64)
    return np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)


def chance_reach(tree, parent=None):
    """The probability of chance's moves on the path to each history of a ``GameTree`` (the product of
    ``chance_prob``, which is 1 on the edges out of decisions); ``parent``: :func:`parents`, when
    already found."""
    parent = parents(tree) if parent is None else parent
    reach = np.ones(tree.num_nodes)
    ls = tree.level_start
    for d in range(1, ls.shape[0] - 1):
        h = np.arange(ls[d], ls[d + 1])
        reach[h] = reach[parent[h]] * tree.chance_prob[h]
    return reach


def _public_nodes(tree, label, parent):
    """Public node id per history (level order, children of a public node contiguous)."""
    n = tree.num_nodes
    pub = np.zeros(n, dtype=np.int64)
    level_start = [0, 1]
    count = 1
    ls = tree.level_start
    for d in range(1, ls.shape[0] - 1):
        keys = {}
        order = []
        for h in range(int(ls[d]), int(ls[d + 1])):
            key = (int(pub[parent[h]]), int(label[h]))
            if key not in keys:
                keys[key] = len(order)
                order.append(key)
            pub[h] = keys[key]
        ranked = sorted(range(len(order)), key=lambda i: (order[i][0], i))
        new_id = np.empty(len(order), dtype=np.int64)
        new_id[ranked] = count + np.arange(len(order))
        for h in range(int(ls[d]), int(ls[d + 1])):
            pub[h] = new_id[pub[h]]
        count += len(order)
        level_start.append(count)
    return pub, np.array(level_start, dtype=np.int64)


def _kinds(tree, pub, num_pub):
    kind = np.full(num_pub, -1, dtype=np.int8)
    player = np.full(num_pub, -1, dtype=np.int8)
    for h in range(tree.num_nodes):
        s = pub[h]
        k, p = tree.node_kind[h], tree.node_player[h] if tree.node_kind[h] == DECISION else -1
        if kind[s] == -1:
            kind[s], player[s] = k, p
        elif kind[s] != k or player[s] != p:
            raise ValueError(f"public node {s} mixes histories of different kinds or players "
                             f"(history {h}): the public labels must tell them apart")
    return kind, player


def derive(tree, public_label, *, histories=False):
    """The arrays of a :class:`~solvers.trees.publictree.PublicTree` for ``tree`` (a ``GameTree``).

    Parameters
    ----------
    tree : GameTree
    public_label : ndarray, int64, shape (num_nodes,)
        The label of the edge into each history (the root's is ignored): histories under one public
        node whose edges share a label share a public node (e.g. -1 for every hidden edge, the action
        id for public ones; :func:`hidden_chance_labels`).
    histories : bool
        Also return where each history went: ``(arrays, pub, loc)``, ``pub[h]`` the public node of
        history ``h`` and ``loc[p, h]`` player ``p``'s entry there (its local index), to carry
        anything given per history over to the public tree.

    Returns
    -------
    dict
        The :class:`~solvers.trees.publictree.PublicFlat` arrays by name.

    Raises
    ------
    ValueError
        When the labels do not make a public tree of the game: a public node mixing kinds or
        players, an information set spread over public nodes, or a private state reached two ways.
    """
    label = np.asarray(public_label, dtype=np.int64)
    if label.shape != (tree.num_nodes,):
        raise ValueError(f"public_label must have one entry per history ({tree.num_nodes}), "
                         f"got shape {label.shape}")
    parent = parents(tree)
    pub, level_start = _public_nodes(tree, label, parent)
    num_pub = int(level_start[-1])
    kind, player = _kinds(tree, pub, num_pub)
    # the private state of each player at each history, and its entry at its public node
    seq = [dict(), dict()]  # (player, history) -> key, filled top down
    entries = [[dict() for _ in range(num_pub)] for _ in range(2)]  # key -> local index
    info = [[[] for _ in range(num_pub)] for _ in range(2)]  # per local index: (parent, slot, infoset)
    loc = np.zeros((2, tree.num_nodes), dtype=np.int64)
    reach_c = chance_reach(tree, parent)
    infoset_node = np.full(tree.num_infosets, -1, dtype=np.int64)
    for h in range(tree.num_nodes):
        q = parent[h]
        acts = tree.node_kind[h] == DECISION
        for p in range(2):
            if q < 0:
                base, par, slot = ("root",), -1, -1
            else:
                base = seq[p][q]
                par = int(loc[p, q])
                slot = -1
                if tree.node_kind[q] == DECISION and tree.node_player[q] == p:
                    slot = int(h - tree.child_start[q])
                    base = ("seq", int(tree.node_infoset[q]), slot)
            infoset = int(tree.node_infoset[h]) if acts and tree.node_player[h] == p else -1
            key = ("I", infoset) if infoset >= 0 else base
            seq[p][h] = base
            table = entries[p][pub[h]]
            if key not in table:
                table[key] = len(info[p][pub[h]])
                info[p][pub[h]].append((par, slot, infoset))
            elif info[p][pub[h]][table[key]][:2] != (par, slot):
                raise ValueError(f"player {p}'s private state at history {h} is reached from two "
                                 f"places: the public labels reveal too little (or the tree lacks "
                                 f"perfect recall)")
            loc[p, h] = table[key]
            if infoset >= 0:
                if infoset_node[infoset] not in (-1, pub[h]):
                    raise ValueError(f"information set {infoset} spans public nodes "
                                     f"{infoset_node[infoset]} and {pub[h]}: the public labels "
                                     f"reveal more than its owner sees")
                infoset_node[infoset] = pub[h]
    arrays = _assemble(tree, pub, parent, level_start, kind, player, info, loc, reach_c, infoset_node)
    return (arrays, pub, loc) if histories else arrays


def _assemble(tree, pub, hist_parent, level_start, kind, player, info, loc, reach_c, infoset_node):
    num_pub = kind.shape[0]
    n0 = np.array([len(info[0][s]) for s in range(num_pub)], dtype=np.int64)
    n1 = np.array([len(info[1][s]) for s in range(num_pub)], dtype=np.int64)
    entry_start = np.concatenate(([0], np.cumsum(n0 + n1)))
    e = int(entry_start[-1])
    entry_parent = np.empty(e, np.int32)
    entry_slot = np.empty(e, np.int16)
    entry_ref = np.empty(e, np.int32)  # infoset at decisions (-1 at chance), the row at terminals
    for s in range(num_pub):
        i = int(entry_start[s])
        for p in range(2):
            for k, (par, slot, infoset) in enumerate(info[p][s]):
                entry_parent[i], entry_slot[i] = par, slot
                entry_ref[i] = k if kind[s] == TERMINAL else infoset
                i += 1
    # children of public nodes are contiguous (level order); their counts from the histories
    num_children = np.zeros(num_pub, dtype=np.int64)
    parent_pub = np.full(num_pub, -1, dtype=np.int64)
    for h in range(1, tree.num_nodes):
        parent_pub[pub[h]] = pub[hist_parent[h]]
    for s in range(1, num_pub):
        num_children[parent_pub[s]] += 1
    child_start = np.zeros(num_pub, dtype=np.int64)
    inner = kind != TERMINAL
    child_start[inner] = 1 + np.concatenate(([0], np.cumsum(num_children[inner])[:-1]))
    # one matrix per terminal
    terminals = np.flatnonzero(~inner)
    term_matrix = np.full(num_pub, -1, dtype=np.int32)
    term_matrix[terminals] = np.arange(terminals.shape[0])
    sizes = n0[terminals] * n1[terminals]
    matrix_start = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    matrix_data = np.zeros(int(matrix_start[-1]))
    for h in np.flatnonzero(tree.node_kind == TERMINAL):
        s = pub[h]
        m = term_matrix[s]
        matrix_data[matrix_start[m] + loc[0, h] * n1[s] + loc[1, h]] += reach_c[h] * tree.payoff[h]
    term_scale = np.where(inner, 0.0, 1.0)
    count = np.bincount(tree.node_infoset[tree.node_kind == DECISION], minlength=tree.num_infosets)
    return dict(
        level_start=level_start, node_kind=kind, node_player=player, child_start=child_start,
        num_children=num_children, entry_start=entry_start, num_entries0=n0,
        term_matrix=term_matrix, term_scale=term_scale, entry_parent=entry_parent,
        entry_slot=entry_slot, entry_ref=entry_ref,
        **sparse_matrices(matrix_start, n1[terminals], matrix_data),
        infoset_player=tree.infoset_player, infoset_num_actions=tree.infoset_num_actions,
        infoset_offset=tree.infoset_offset, infoset_count=count, infoset_node=infoset_node)
