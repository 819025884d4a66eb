"""The depth-limited Coup game on the public tree: the cut game's public tree, each turn-limit leaf a
choice of continuations.

On the history tree (:mod:`coupsolve.depth.game`) a leaf is a history and its choice grafts ``K + K²``
nodes below it; Coup's cut trees are mostly leaves, so the graft multiplies the tree. On the public
tree a leaf is a public node, a player's information set there is one of its entries, and the leaf's
value is a matrix over the pairs of entries per pair of continuations
(:func:`solvers.trees.leaves.graft_public_leaf_choices`): the same game, with the same equilibria and
the same exploitability, in far fewer nodes.

Which histories a pair of entries is: the walk that steps every history
(:func:`coupsolve.trees.stepwalk.build.build_public_tree`) writes each entry's first observation hash
(``entry_hash``), and the history builder each leaf's two players' hashes (``leaf_key``). A pair's
value is the chance-weighted mean of its histories' values (:func:`public_leaf_values`); the weights
summed per pair must be the public tree's own chance weights of that pair, which is checked, so the
two trees cannot silently disagree on what a leaf is.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from solvers.kinds import TERMINAL
from solvers.trees.derive import chance_reach, parents, within
from solvers.trees.leaves import graft_public_leaf_choices, public_leaf_pairs, with_leaf_weights

from coupsolve.depth.game import CutGame

__all__ = ["HistoryPairs", "JoinedLeaves", "PublicDepthLimitedGame", "group_starts", "history_order",
           "history_pairs", "join_leaves", "public_depth_limited_game", "public_leaves", "public_leaf_values"]

#: Relative tolerance of the check that the two trees weigh each pair of entries alike.
WEIGHT_RTOL = 1e-9


def public_leaves(cut_public) -> np.ndarray:
    """The turn-limit leaves of a cut game's public tree: its terminal public nodes where both players
    still hold a face-down card (a Coup game between two players ends early only when one has none)."""
    f = cut_public.tree.flat
    sizes = np.diff(f.entry_start).astype(np.int64)
    node_of_entry = np.repeat(np.arange(sizes.size), sizes)
    emptied = np.bincount(node_of_entry[cut_public.entry_hand == 0], minlength=sizes.size) > 0
    return np.flatnonzero((f.node_kind == TERMINAL) & (sizes > 0) & ~emptied)


def _pair_keys(h0, h1):
    """One sortable key per pair of first hashes (a structured pair, compared lexicographically)."""
    keys = np.empty(h0.size, dtype=[("a", np.uint64), ("b", np.uint64)])
    keys["a"], keys["b"] = h0, h1
    return keys


def _pair_order(h0, h1):
    """The stable order that sorts the pairs ``(h0[i], h1[i])`` as :func:`_pair_keys` compares them;
    sorting the structured keys themselves is far slower."""
    return np.lexsort((h1, h0))


def group_starts(*keys):
    """``(order, first)``: the stable order that sorts rows by ``keys`` (equal-length columns, the first
    most significant) and where each run of rows equal in every key starts in that order."""
    order = np.lexsort(keys[::-1])
    change = np.zeros(order.size, bool)
    change[:1] = True
    for k in keys:
        k = k[order]
        change[1:] |= k[1:] != k[:-1]
    return order, np.flatnonzero(change)


class HistoryPairs(NamedTuple):
    """The leaves of a cut game's history tree, summed by pair of first observation hashes
    (:func:`history_pairs`): ``keys`` sorted (:func:`_pair_keys`), each pair's chance ``weight`` and
    player 0's chance-weighted mean ``values`` ``(pairs, K0, K1)``; the ``rules`` of the tree they
    came from. Small beside the tree, so the tree can be let go before the public tree is built."""

    rules: object
    keys: np.ndarray
    weight: np.ndarray
    values: np.ndarray


def history_pairs(cut_history, leaf_values) -> HistoryPairs:
    """``leaf_values`` (per leaf of ``cut_history``, a ``CoupTree`` built with ``leaves=True``) summed
    by the pair of the two players' first observation hashes at the leaf (``leaf_key``): what a pair
    of entries at a public leaf is worth (:func:`public_leaf_values`)."""
    if cut_history.leaf_node is None:
        raise ValueError("cut_history must be built with leaves=True")
    if not np.array_equal(np.asarray(leaf_values.leaves), cut_history.leaf_node):
        raise ValueError("the leaf values are not for this cut game's leaves")
    h0, h1 = cut_history.leaf_key[:, 0, 0], cut_history.leaf_key[:, 1, 0]
    order, first = group_starts(h0, h1)  # as _pair_order sorts
    keys = _pair_keys(h0[order[first]], h1[order[first]])
    del h0, h1
    w = chance_reach(cut_history.tree)[cut_history.leaf_node][order]
    rows = leaf_values.rows()[order]
    del order
    weight = np.add.reduceat(w, first)
    k0, k1 = leaf_values.values.shape[1:]
    values = np.empty((first.size, k0, k1))
    for c0 in range(k0):  # a cell at a time: one leaf-long array at once, not K x K of them
        for c1 in range(k1):
            values[:, c0, c1] = np.add.reduceat(w * leaf_values.values[rows, c0, c1], first) / weight
    return HistoryPairs(cut_history.rules, keys, weight, values)


def public_leaf_values(cut_public, leaves, cut_history, leaf_values=None):
    """``(pairs, values)``: the pairs of entries of ``leaves`` (:func:`solvers.trees.leaves.public_leaf_pairs`)
    and player 0's value of each under each pair of continuations (``(P, K0, K1)``), the chance-weighted
    mean of ``leaf_values`` (per leaf of ``cut_history``, a ``CoupTree`` built with ``leaves=True``) over
    the pair's histories. ``cut_history`` may instead be its :func:`history_pairs` (then without
    ``leaf_values``).

    Raises
    ------
    ValueError
        When the public tree was not built with entry hashes, or a pair's histories are not found or
        weigh otherwise than the public tree says.
    """
    if cut_public.entry_hash is None:
        raise ValueError("the public tree has no entry hashes: build it by stepping every history")
    known = cut_history if isinstance(cut_history, HistoryPairs) else history_pairs(cut_history, leaf_values)
    f = cut_public.tree.flat
    pairs = public_leaf_pairs(cut_public.tree, leaves)
    at_leaf = np.asarray(leaves)[pairs.leaf]
    lo, n0 = f.entry_start[at_leaf], f.num_entries0[at_leaf]
    h0, h1 = cut_public.entry_hash[lo + pairs.entry0], cut_public.entry_hash[lo + n0 + pairs.entry1]
    del at_leaf, lo, n0
    order = _pair_order(h0, h1)  # sorted as the history pairs are: then one to one, in order
    keys = known.keys
    if keys.size != order.size or not (np.array_equal(keys["a"], h0[order]) and np.array_equal(keys["b"], h1[order])):
        _mismatch(keys, _pair_keys(h0, h1))
    del h0, h1
    at = np.empty(order.size, np.int64)
    at[order] = np.arange(order.size)
    del order
    if not np.allclose(known.weight[at], pairs.weight, rtol=WEIGHT_RTOL, atol=0.0):
        raise ValueError("the history and public trees weigh a pair of entries at a leaf differently")
    return pairs, known.values[at]


def _mismatch(groups, want):
    """Raise the ``ValueError`` that says how the public leaves' pairs (``want``) and the history
    pairs (``groups``, sorted) differ."""
    at = np.searchsorted(groups, want)
    found = (at < groups.size) & (groups[np.minimum(at, max(groups.size - 1, 0))] == want)
    if not found.all():
        raise ValueError(f"{int((~found).sum()):,} pairs of entries at the public leaves have no history "
                         "leaf with their observation hashes")
    if groups.size != want.size:
        raise ValueError(f"{groups.size - want.size:,} pairs of history leaves are at no public leaf")
    raise ValueError("two pairs of entries at the public leaves have the same observation hashes")


class PublicDepthLimitedGame(CutGame):
    """A Coup game cut after ``rules.turn_limit`` turns, on its public tree, with multi-valued leaves.

    ``tree``: the grafted :class:`solvers.PublicTree` (solve this); ``coup_tree``: the same with the
    Coup-side extras, for :func:`coupsolve.analysis.analyse`; ``cut``: the cut game's
    :class:`~coupsolve.trees.stepwalk.build.CoupPublicTree`; ``leaves``: its turn-limit leaves (public
    nodes); ``choices``: where the graft put the continuation choices
    (:class:`~solvers.trees.leaves.PublicLeafChoices`); ``leaf_values``: the per-history values the
    pairs' came from.
    """

    def __init__(self, tree, coup_tree, cut, leaves, choices, leaf_values):
        self.tree, self.coup_tree, self.cut, self.leaves = tree, coup_tree, cut, leaves
        self.choices, self.leaf_values = choices, leaf_values

    def describe(self) -> str:
        """Its size, for the line said once it is built."""
        return (f"{self.tree.num_nodes:,} public nodes, {len(self.leaves):,} leaves "
                f"({self.leaf_values.leaves.size:,} histories), {self.tree.num_infosets:,} information sets")

    def leaf_choice(self, policy) -> dict:
        """How often each player picks each continuation at its leaves, weighted by how often the leaf
        is reached under ``policy``: ``{player: {continuation: probability}}``."""
        from coupsolve.analysis.public import entry_reach

        sigma = np.ascontiguousarray(policy, np.float64)
        reach, cf, _, _ = entry_reach(self.coup_tree, sigma)
        f, c, out = self.tree.flat, self.choices, {}
        names = self.leaf_values.continuations
        for p, nodes in ((0, c.leaf_decision), (1, f.child_start[c.leaf_decision])):
            n = self.tree.num_entries0[nodes] if p == 0 else np.diff(f.entry_start)[nodes] - f.num_entries0[nodes]
            lo = f.entry_start[nodes] + (0 if p == 0 else f.num_entries0[nodes])
            e = np.repeat(lo, n) + within(n.astype(np.int64))
            e = e[f.entry_ref[e] >= 0]
            offsets = f.infoset_offset[f.entry_ref[e]]
            mass = np.array([(reach[e] * cf[e] * sigma[offsets + k]).sum() for k in range(len(names))])
            out[p] = dict(zip(names, (mass / mass.sum()).tolist())) if mass.sum() > 0 else {}
        return out


def _analysable(cut, tree, choices, leaves):
    """The grafted ``tree`` as a :class:`CoupPublicTree` for the analysis: the cut's extras carried to
    the renumbered nodes, each continuation choice keyed by its leaf entry's hash with no context, and
    the grafted tree with its leaves' chance weights as the chance weights
    (:func:`~solvers.trees.leaves.public.with_leaf_weights`)."""
    f, g = cut.tree.flat, tree.flat
    sizes = np.diff(f.entry_start).astype(np.int64)
    old = np.repeat(np.arange(sizes.size), sizes)
    moved = g.entry_start[choices.new_of_old[old]] + np.arange(old.size) - f.entry_start[old]
    hand = np.zeros(tree.num_entries, np.uint16)
    hashes = np.zeros(tree.num_entries, np.uint64)
    hand[moved], hashes[moved] = cut.entry_hand, cut.entry_hash
    z, parent = choices.leaf_decision, parents(g)
    for nodes in (g.child_start[z], g.child_start[g.child_start[z]]):  # the two levels below the leaves
        n = np.diff(g.entry_start)[nodes].astype(np.int64)
        e = np.repeat(g.entry_start[nodes], n) + within(n)
        node = np.repeat(nodes, n)
        p1 = (e - g.entry_start[node]) >= g.num_entries0[node]
        pn = np.repeat(parent[nodes], n)
        src = g.entry_start[pn] + np.where(p1, g.num_entries0[pn], 0) + g.entry_parent[e]
        hand[e], hashes[e] = hand[src], hashes[src]
    lo, n0 = f.entry_start[leaves], f.num_entries0[leaves].astype(np.int64)
    n1 = sizes[leaves] - n0
    iset_hash = np.concatenate([cut.infoset_hash, cut.entry_hash[np.repeat(lo, n0) + within(n0)],
                                cut.entry_hash[np.repeat(lo + n0, n1) + within(n1)]])
    m = tree.num_infosets - choices.base_infosets
    context = np.concatenate([cut.infoset_context, np.zeros(m, cut.infoset_context.dtype)])
    weights = with_leaf_weights(tree, choices)
    return cut._replace(tree=tree, infoset_hash=iset_hash, infoset_context=context, entry_hand=hand,
                        entry_hash=hashes, weights=weights)


class JoinedLeaves(NamedTuple):
    """The cut game's public tree (``cut_public``), its turn-limit ``leaves``, their ``pairs`` of
    entries and each pair's ``values`` ``(P, K0, K1)``: what the graft takes (:func:`join_leaves`)."""

    cut_public: object
    leaves: np.ndarray
    pairs: object
    values: np.ndarray


def join_leaves(rules, leaf_values, cut_history, *, cut_public=None, progress=None) -> JoinedLeaves:
    """The public tree of ``rules`` (built by stepping every history unless ``cut_public`` is given)
    with the values of its leaves' pairs (:func:`public_leaf_values`), for
    :func:`public_depth_limited_game`; apart from it so a caller can let the history pairs go first."""
    from coupsolve.trees.stepwalk.build import build_public_tree

    if rules.players != 2:
        raise ValueError("depth-limited solving is for two players")
    if cut_history.rules != rules:
        raise ValueError("cut_history must be build_coup_tree(rules, leaves=True) of these rules")
    if not isinstance(cut_history, HistoryPairs):
        cut_history = history_pairs(cut_history, leaf_values)
    if cut_public is None:
        cut_public = build_public_tree(rules, progress=progress)
    if cut_public.rules != rules:
        raise ValueError("cut_public is the public tree of other rules")
    leaves = public_leaves(cut_public)
    pairs, values = public_leaf_values(cut_public, leaves, cut_history)
    return JoinedLeaves(cut_public, leaves, pairs, values)


def public_depth_limited_game(rules, leaf_values, cut_history, *, cut_public=None,
                              progress=None) -> PublicDepthLimitedGame:
    """The public tree of the Coup game of ``rules`` (cut after ``rules.turn_limit`` turns) with
    ``leaf_values`` (per leaf of ``cut_history``, :func:`coupsolve.build_coup_tree` of ``rules`` with
    ``leaves=True``) at its leaves. ``cut_history`` may instead be its :func:`history_pairs`, so that
    the history tree can be let go before the public tree is built, or the :func:`join_leaves` of
    these, so that the pairs can be let go before the graft.

    ``cut_public``: the cut game's public tree built by stepping every history, when already built.
    """
    joined = cut_history if isinstance(cut_history, JoinedLeaves) else join_leaves(
        rules, leaf_values, cut_history, cut_public=cut_public, progress=progress)
    if joined.cut_public.rules != rules:
        raise ValueError("the joined leaves are of other rules")
    cut_public, leaves = joined.cut_public, joined.leaves
    k = len(leaf_values.continuations)
    tree, choices = graft_public_leaf_choices(cut_public.tree, leaves, joined.values,
                                              game_id=f"{rules.game_string()}+leaves({k})")
    return PublicDepthLimitedGame(tree, _analysable(cut_public, tree, choices, leaves), cut_public,
                                  leaves, choices, leaf_values)


def history_order(game, cut_history, history_infosets=None) -> np.ndarray:
    """Where each flat action of the history tree's depth-limited game
    (:func:`coupsolve.depth.game.depth_limited_game` of the same values) is in ``game``'s (public) flat
    policy: ``public_policy[history_order(...)]`` is the same policy on the history tree, so its
    stitching and analysis tools take a public solve. Every information set is named by its player's
    first observation hash: the cut game's by :meth:`~coupsolve.trees.history.tree.CoupTree.infoset_hashes`
    (or ``history_infosets``, when already computed), the leaves' choices by ``leaf_key``, numbered as
    :func:`coupsolve.depth.game.leaf_infosets` numbers them (by hash)."""
    base, m0 = game.choices.base_infosets, game.choices.num_leaf_infosets[0]
    have = game.coup_tree.infoset_hash
    if history_infosets is None:
        history_infosets = cut_history.infoset_hashes()
    parts = [(np.asarray(history_infosets, np.uint64), 0, base),  # each part matched on its own
             (np.unique(cut_history.leaf_key[:, 0, 0]), base, base + m0),
             (np.unique(cut_history.leaf_key[:, 1, 0]), base + m0, have.size)]
    j = []
    for want, lo, hi in parts:
        mine = have[lo:hi]
        if want.size != mine.size:
            raise ValueError(f"{want.size:,} information sets on the history tree where the public one has "
                             f"{mine.size:,}")
        order = np.argsort(mine)
        at = order[np.minimum(np.searchsorted(mine[order], want), max(mine.size - 1, 0))]
        if not np.array_equal(mine[at], want):
            raise ValueError("an information set of the history tree has no public one with its hash")
        j.append(lo + at)
    j = np.concatenate(j)
    n = game.tree.infoset_num_actions[j].astype(np.int64)
    return np.repeat(game.tree.infoset_offset[j], n) + within(n)
