"""Multi-valued leaves on a public tree (:class:`~solvers.PublicTree`): :func:`graft_public_leaf_choices`.

The idea and why it is sound are in :mod:`solvers.trees.leaves`. On a public tree a leaf is a terminal
*public node*, and a player's information set there is one of its private states (entries) at it, so
no numbering of leaf information sets is given: each entry of each player at each leaf is one. Each
leaf ``z`` becomes three public nodes, one below the other:

- ``z`` itself, a decision of player 0: each of its entries chooses among ``K0`` continuations. The
  choice is private: it leads to one public node, where player 0 has an entry per pair (entry,
  continuation);
- a decision of player 1 there: each of its entries chooses among ``K1``, again privately;
- a terminal whose matrix pays, for player 0's entry ``a`` with continuation ``c0`` and player 1's
  entry ``b`` with ``c1``, the chance weight of the pair ``(a, b)`` times ``values[pair, c0, c1]``.

The chance weights are read from the leaf's own matrix, which must hold them (the cells of a terminal
whose payoff is public, whatever its ``term_scale``; :func:`~solvers.trees.derive.derive` stores them
where the leaf's histories pay 1). :func:`public_leaf_pairs` lists the pairs with a weight, in the
order the values are given.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from solvers.kinds import DECISION, TERMINAL
from solvers.memory import check_fits
from solvers.trees.derive import parents
from solvers.trees.matrices import dense_matrix
from solvers.trees.publictree import PublicTree, estimate_public_tree_bytes

__all__ = ["LeafPairs", "PublicLeafChoices", "graft_public_leaf_choices", "public_leaf_pairs", "with_leaf_weights"]


class LeafPairs(NamedTuple):
    """The pairs of private states with a chance weight at the leaves of a public tree, ordered by leaf
    (its index in the leaves given), then player 0's entry, then player 1's: ``leaf``, ``entry0`` and
    ``entry1`` (local indices among each player's entries at the leaf) and ``weight``."""

    leaf: np.ndarray
    entry0: np.ndarray
    entry1: np.ndarray
    weight: np.ndarray


class PublicLeafChoices(NamedTuple):
    """Where :func:`graft_public_leaf_choices` put the continuation choices.

    ``base_infosets`` and ``base_actions``: the cut game's, which come first and keep their indices.
    Player 0's entry ``a`` at leaf ``i`` chooses in information set ``base_infosets +
    first0[i] + a``, player 1's entry ``b`` in ``base_infosets + num_leaf_infosets[0] + first1[i] + b``.
    ``leaf_decision[i]``: the public node of player 0's choice at leaf ``i`` (the leaf, renumbered);
    ``new_of_old[s]``: the new number of the cut tree's public node ``s``.
    """

    base_infosets: int
    base_actions: int
    num_leaf_infosets: tuple
    num_continuations: tuple
    first0: np.ndarray
    first1: np.ndarray
    leaf_decision: np.ndarray
    new_of_old: np.ndarray
    pairs: LeafPairs


def _check_leaves(tree, leaves):
    leaves = np.asarray(leaves, dtype=np.int64).reshape(-1)
    kind = tree.flat.node_kind
    if leaves.size and (leaves.min() < 0 or leaves.max() >= tree.num_nodes
                        or (kind[leaves] != TERMINAL).any() or np.unique(leaves).size != leaves.size):
        raise ValueError("leaves must be distinct terminal public nodes of the tree")
    if leaves.size and (tree.flat.term_matrix[leaves] < 0).any():
        raise ValueError("a leaf has no matrix of chance weights")
    return leaves


def _entries(f, z):
    """The refs (rows, columns) of player 0's and player 1's entries at terminal ``z``."""
    lo, n0, hi = int(f.entry_start[z]), int(f.num_entries0[z]), int(f.entry_start[z + 1])
    return f.entry_ref[lo:lo + n0], f.entry_ref[lo + n0:hi]


def public_leaf_pairs(tree, leaves) -> LeafPairs:
    """The pairs of private states at each of ``leaves`` (terminal public nodes of ``tree``) whose
    chance weight in the leaf's matrix is not 0: what :func:`graft_public_leaf_choices` needs a value
    for."""
    return _pairs(tree.flat, _check_leaves(tree, leaves))


def _pairs(f, leaves):
    """:func:`public_leaf_pairs` of checked ``leaves``."""
    parts = []
    for i, z in enumerate(leaves):
        rows, cols = _entries(f, z)
        w = dense_matrix(f, int(f.term_matrix[z]))[np.ix_(rows, cols)]
        a, b = np.nonzero(w)
        parts.append((np.full(a.size, i, np.int64), a, b, w[a, b]))
    if not parts:
        return LeafPairs(*(np.zeros(0, t) for t in (np.int64, np.int64, np.int64, np.float64)))
    return LeafPairs(*(np.concatenate(c).astype(t) for c, t in
                       zip(zip(*parts), (np.int64, np.int64, np.int64, np.float64))))


def _renumber(f, leaves):
    """New public node numbers in level order: ``(new_of_old, new_a, new_b, parent, level_start)``,
    ``new_a``/``new_b`` the nodes below each leaf (player 1's choice, the terminal), ``parent`` the
    new parent of every new node (-1 at the root)."""
    n, ls = f.node_kind.shape[0], f.level_start
    depth_old = ls.shape[0] - 1
    level = np.repeat(np.arange(depth_old), np.diff(ls))
    parent_old = parents(f)
    lev = level[leaves]
    depth = max(depth_old, int(lev.max()) + 3 if leaves.size else 0)
    new_of_old, new_a, new_b = (np.empty(k, np.int64) for k in (n, leaves.size, leaves.size))
    parent = np.empty(n + 2 * leaves.size, np.int64)
    starts, count = [0], 0
    for d in range(depth):
        old = np.arange(ls[d], ls[d + 1]) if d < depth_old else np.zeros(0, np.int64)
        a_ids, b_ids = np.flatnonzero(lev == d - 1), np.flatnonzero(lev == d - 2)
        keys = np.concatenate([new_of_old[parent_old[old]] if d else np.full(old.size, -1),
                               new_of_old[leaves[a_ids]], new_a[b_ids]])
        order = np.argsort(keys, kind="stable")
        rank = np.empty(order.size, np.int64)
        rank[order] = count + np.arange(order.size)
        new_of_old[old] = rank[:old.size]
        new_a[a_ids] = rank[old.size:old.size + a_ids.size]
        new_b[b_ids] = rank[old.size + a_ids.size:]
        parent[rank] = keys
        count += order.size
        starts.append(count)
    return new_of_old, new_a, new_b, parent, np.array(starts, np.int64)


def _leaf_matrix(pairs_of_leaf, values, k0, k1, n0, n1):
    """The CSR arrays ``(row_ptr, cols, data)`` of one leaf's terminal matrix (module docstring)."""
    a, b, w = pairs_of_leaf
    c0, c1 = np.meshgrid(np.arange(k0), np.arange(k1), indexing="ij")
    row = (a[:, None, None] * k0 + c0).reshape(-1)
    col = (b[:, None, None] * k1 + c1).reshape(-1)
    data = (w[:, None, None] * values).reshape(-1)
    order = np.lexsort((col, row))
    counts = np.bincount(row, minlength=n0 * k0)
    return np.concatenate(([0], np.cumsum(counts))), col[order], data[order]


def graft_public_leaf_choices(tree, leaves, values, *, game_id=None):
    """The depth-limited game of ``tree`` with each of ``leaves`` a choice of continuations (module
    docstring).

    Parameters
    ----------
    tree : solvers.PublicTree
        A two-player zero-sum public tree.
    leaves : array_like, int, shape (L,)
        Terminal public nodes to replace, distinct; their matrices hold the chance weights.
    values : array_like, float, shape (P, K0, K1)
        Player 0's payoff for each pair of :func:`public_leaf_pairs` (``P`` of them) when player 0
        continues with ``c0`` and player 1 with ``c1``.
    game_id : str, optional
        The new tree's (default: the tree's, with ``+leaves(K0xK1)``).

    Returns
    -------
    PublicTree, PublicLeafChoices
    """
    leaves = _check_leaves(tree, leaves)
    pairs = _pairs(tree.flat, leaves)
    values = np.ascontiguousarray(values, dtype=np.float64)
    if values.ndim != 3 or values.shape[0] != pairs.leaf.size or min(values.shape[1:], default=0) < 1:
        raise ValueError(f"values must have shape ({pairs.leaf.size}, K0, K1) with K0, K1 >= 1, one per "
                         f"pair of public_leaf_pairs, got {values.shape}")
    if not np.isfinite(values).all():
        raise ValueError("values must be finite")
    f, L, (k0, k1) = tree.flat, leaves.size, values.shape[1:]
    n0 = f.num_entries0[leaves].astype(np.int64)
    n1 = (f.entry_start[leaves + 1] - f.entry_start[leaves]).astype(np.int64) - n0
    check_fits(estimate_public_tree_bytes(
        tree.num_nodes + 2 * L, tree.num_entries + int((2 * n0 * k0 + n1 + n1 * k1).sum()),
        f.matrix_data.size + values.size, f.matrix_cols.size + L,
        tree.num_infosets + int(n0.sum() + n1.sum()), tree.num_actions + int((n0 * k0 + n1 * k1).sum()),
        f.row_ptr.size + int((n0 * k0).sum())), "the depth-limited public tree")
    new_of_old, new_a, new_b, parent, level_start = _renumber(f, leaves)
    n = tree.num_nodes + 2 * L
    first0, first1 = (np.concatenate(([0], np.cumsum(m)[:-1])).astype(np.int64) for m in (n0, n1))
    m0, m1 = int(n0.sum()), int(n1.sum())
    base = tree.num_infosets
    nodes = _nodes(f, leaves, new_of_old, new_a, new_b, parent, n)
    sizes = np.empty(n, np.int64)
    sizes[new_of_old] = np.diff(f.entry_start)
    sizes[new_a], sizes[new_b] = n0 * k0 + n1, n0 * k0 + n1 * k1
    num0 = np.empty(n, np.int64)
    num0[new_of_old] = f.num_entries0
    num0[new_a] = num0[new_b] = n0 * k0
    entry_start = np.concatenate(([0], np.cumsum(sizes)))
    entries = _entries_of(f, leaves, new_of_old, new_a, new_b, entry_start, n0, n1, k0, k1,
                          base + first0, base + m0 + first1)
    matrices = _matrices(f, pairs, values, n0, n1, k0, k1)
    nodes["term_matrix"][new_b] = f.matrix_cols.size + np.arange(L)
    infosets, key = _infosets(tree, leaves, new_of_old, new_a, pairs, (first0, first1), (n0, n1), (k0, k1))
    grafted = PublicTree(game_id or f"{tree.game_id}+leaves({k0}x{k1})", keys=key,
                         level_start=level_start, entry_start=entry_start, num_entries0=num0, **nodes,
                         **entries, **matrices, **infosets)
    return grafted, PublicLeafChoices(base, tree.num_actions, (m0, m1), (k0, k1), first0, first1,
                                      new_of_old[leaves], new_of_old, pairs)


def with_leaf_weights(grafted, choices):
    """``grafted`` (:func:`graft_public_leaf_choices`' tree) with each leaf's cells holding its pair's
    chance weight instead of weight times value: the chance weights of the depth-limited game, what
    reach and belief computations need. The graft with every value 1 is this tree; here every array
    but ``matrix_data`` is ``grafted``'s own, so it costs one array of cells, not a second tree."""
    g = grafted.flat
    m = choices.leaf_decision.size
    base = g.matrix_start.size - 1 - m  # the leaves' matrices come last, in order
    data = np.empty(g.matrix_data.size, np.float64)
    data[:g.matrix_start[base]] = g.matrix_data[:g.matrix_start[base]]
    k0, k1 = choices.num_continuations
    zeros = np.zeros(m, np.int64)  # the rows are not needed, only the cells
    ones = lambda lo, hi: np.ones((hi - lo, k0, k1))  # noqa: E731
    for i, (_, _, d) in enumerate(_leaf_matrices(choices.pairs, ones, k0, k1, zeros, zeros)):
        at = int(g.matrix_start[base + i])
        data[at:at + d.size] = d
    arrays = {**g._asdict(), "matrix_data": data}
    return PublicTree(grafted.game_id, infoset_actions=grafted.infoset_actions, keys=grafted.infoset_key, **arrays)


def _nodes(f, leaves, new_of_old, new_a, new_b, parent, n):
    """The per-node arrays of the grafted tree but ``entry_start``/``num_entries0``."""
    out = dict(node_kind=np.empty(n, np.int8), node_player=np.empty(n, np.int8),
               num_children=np.empty(n, np.int64), term_matrix=np.empty(n, np.int64),
               term_scale=np.empty(n, np.float64), child_start=np.zeros(n, np.int64))
    for name in ("node_kind", "node_player", "num_children", "term_matrix", "term_scale"):
        out[name][new_of_old] = getattr(f, name)
    z = new_of_old[leaves]
    out["node_kind"][z], out["node_player"][z] = DECISION, 0
    out["node_kind"][new_a], out["node_player"][new_a] = DECISION, 1
    out["node_kind"][new_b], out["node_player"][new_b] = TERMINAL, -1
    out["num_children"][z] = out["num_children"][new_a] = 1
    out["num_children"][new_b] = 0
    out["term_matrix"][z] = out["term_matrix"][new_a] = -1
    out["term_scale"][z] = out["term_scale"][new_a] = 0.0
    out["term_scale"][new_b] = 1.0
    firsts, at = np.unique(parent[1:], return_index=True)
    out["child_start"][firsts] = at + 1
    return out


def _entries_of(f, leaves, new_of_old, new_a, new_b, entry_start, n0, n1, k0, k1, iset0, iset1):
    """``entry_parent``, ``entry_slot`` and ``entry_ref`` of the grafted tree: the cut tree's entries
    where its nodes went, each leaf's own turned into choices, and the entries of the two nodes below."""
    e = int(entry_start[-1])
    out = dict(entry_parent=np.empty(e, np.int64), entry_slot=np.empty(e, np.int64),
               entry_ref=np.empty(e, np.int64))
    sizes = np.diff(f.entry_start)
    node = np.repeat(np.arange(sizes.size), sizes)
    dest = entry_start[new_of_old[node]] + np.arange(node.size) - f.entry_start[node]
    for name in out:
        out[name][dest] = getattr(f, name)
    parent, slot, ref = out["entry_parent"], out["entry_slot"], out["entry_ref"]
    for i in range(leaves.size):
        a, b = int(n0[i]), int(n1[i])
        z = int(entry_start[new_of_old[leaves[i]]])
        ref[z:z + a] = iset0[i] + np.arange(a)
        ref[z + a:z + a + b] = -1
        s = int(entry_start[new_a[i]])  # player 1's choice: player 0's entries split by continuation
        parent[s:s + a * k0], slot[s:s + a * k0] = np.repeat(np.arange(a), k0), np.tile(np.arange(k0), a)
        ref[s:s + a * k0] = -1
        s += a * k0
        parent[s:s + b], slot[s:s + b], ref[s:s + b] = np.arange(b), -1, iset1[i] + np.arange(b)
        s = int(entry_start[new_b[i]])  # the terminal: rows (a, c0), columns (b, c1)
        parent[s:s + a * k0], slot[s:s + a * k0] = np.arange(a * k0), -1
        ref[s:s + a * k0] = np.arange(a * k0)
        s += a * k0
        parent[s:s + b * k1], slot[s:s + b * k1] = np.repeat(np.arange(b), k1), np.tile(np.arange(k1), b)
        ref[s:s + b * k1] = np.arange(b * k1)
    return out


def _leaf_matrices(pairs, values_of, k0, k1, n0, n1):
    """Each leaf's :func:`_leaf_matrix`, in order, its pairs' values ``values_of(lo, hi)`` (``(hi - lo,
    k0, k1)``, for the pairs ``lo:hi``)."""
    bounds = np.searchsorted(pairs.leaf, np.arange(n0.size + 1))
    for i in range(n0.size):
        lo, hi = bounds[i], bounds[i + 1]
        yield _leaf_matrix((pairs.entry0[lo:hi], pairs.entry1[lo:hi], pairs.weight[lo:hi]),
                           values_of(lo, hi), k0, k1, int(n0[i]), int(n1[i]))


def _matrices(f, pairs, values, n0, n1, k0, k1):
    """The cut tree's matrices with one appended per leaf (:func:`_leaf_matrix`)."""
    rps, cols, data = [], [], []
    for rp, c, d in _leaf_matrices(pairs, lambda lo, hi: values[lo:hi], k0, k1, n0, n1):
        rps.append(rp), cols.append(c), data.append(d)
    cells = np.array([d.size for d in data], np.int64)
    return dict(
        matrix_start=np.concatenate([f.matrix_start, f.matrix_start[-1] + np.cumsum(cells)]),
        matrix_cols=np.concatenate([f.matrix_cols, n1 * k1]),
        matrix_rowp=np.concatenate([f.matrix_rowp, f.matrix_rowp[-1] + np.cumsum(n0 * k0 + 1)]),
        row_ptr=np.concatenate([f.row_ptr, *rps]), cell_col=np.concatenate([f.cell_col, *cols]),
        matrix_data=np.concatenate([f.matrix_data, *data]))


def _infosets(tree, leaves, new_of_old, new_a, pairs, first, n, k):
    """The information-set arrays of the grafted tree (the cut tree's, then player 0's choices by
    leaf and entry, then player 1's) and its keys."""
    f, base = tree.flat, tree.num_infosets
    m0, m1 = int(n[0].sum()), int(n[1].sum())
    num_actions = np.concatenate([f.infoset_num_actions, np.full(m0, k[0]), np.full(m1, k[1])])
    count0 = np.bincount(first[0][pairs.leaf] + pairs.entry0, minlength=m0)
    count1 = np.bincount(first[1][pairs.leaf] + pairs.entry1, minlength=m1) * k[0]
    leaf_of = [np.repeat(np.arange(leaves.size), n[p]) for p in (0, 1)]

    def key(i):
        if i < base:
            return tree.infoset_key(i)
        p, j = (0, i - base) if i < base + m0 else (1, i - base - m0)
        leaf = leaf_of[p][j]
        return f"continuation of player {p}, leaf {leaf} entry {j - first[p][leaf]}"

    return dict(
        infoset_actions=np.concatenate([tree.infoset_actions, np.tile(np.arange(k[0]), m0),
                                        np.tile(np.arange(k[1]), m1)]),
        infoset_player=np.concatenate([f.infoset_player, np.zeros(m0), np.ones(m1)]),
        infoset_num_actions=num_actions, infoset_offset=np.concatenate(([0], np.cumsum(num_actions)[:-1])),
        infoset_count=np.concatenate([f.infoset_count, np.maximum(count0, 1), np.maximum(count1, 1)]),
        infoset_node=np.concatenate([new_of_old[f.infoset_node], np.repeat(new_of_old[leaves], n[0]),
                                     np.repeat(new_a, n[1])])), key
