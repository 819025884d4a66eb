"""Leaf values from a strategy of a longer game: where each leaf of the cut game goes on, and what the
continuations earn there.

A Coup game cut after turn ``k`` (rules with ``turn_limit=k``) is the beginning of the same game cut
later (``turn_limit=n > k``): the engine walks both the same way until the first ends, so the cut
tree's histories are the longer tree's, and each history that ends at the cut's turn limit is a
history of the longer tree where play goes on. :func:`node_map` finds them by walking both trees
together (and checks that they agree node for node); :func:`values_from_longer_game` evaluates the
longer game under each pair of continuations (:mod:`coupsolve.depth.continuations`) of a strategy for
it (the *blueprint*), exactly, by one backward pass of the longer tree per pair.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from solvers.history.evaluate import reach_and_values
from solvers.kinds import TERMINAL

from coupsolve.depth.continuations import CONTINUATIONS, continuation_policies

__all__ = ["LeafValues", "NodeMap", "check_blueprint_rules", "node_map", "values_from_longer_game"]


class NodeMap(NamedTuple):
    """The cut tree inside the longer one: ``node[v]`` is the longer tree's history at the cut tree's
    history ``v``; ``infoset[I]`` the longer tree's information set of the cut tree's set ``I``."""

    node: np.ndarray
    infoset: np.ndarray


class LeafValues(NamedTuple):
    """Per leaf of a cut game (``leaves``, its histories that end at the turn limit), player 0's value
    ``values[i, c0, c1]`` when player 0 continues with continuation ``c0`` and player 1 with ``c1``
    (names in ``continuations``), and where they came from (``source``: a description). Estimated
    values also carry ``stderr`` (the standard error of each, same shape) and ``states`` (how many
    distinct leaf states were played); exact ones have ``None``.

    With ``row_of`` (one row per leaf), ``values`` and ``stderr`` hold one row per distinct leaf state
    instead of one per leaf, and leaf ``i``'s values are ``values[row_of[i]]``: a cut after turn 3 has
    tens of millions of leaves in a few million states, and four continuations make each row sixteen
    values, too many to repeat per leaf. :meth:`per_leaf` gives them per leaf.
    """

    leaves: np.ndarray
    values: np.ndarray
    continuations: tuple
    source: str
    stderr: np.ndarray | None = None
    states: int | None = None
    row_of: np.ndarray | None = None

    def rows(self) -> np.ndarray:
        """Each leaf's row of ``values``."""
        return np.arange(len(self.leaves)) if self.row_of is None else self.row_of

    def per_leaf(self) -> np.ndarray:
        """The values of each leaf, ``(leaves, K, K)``."""
        return self.values if self.row_of is None else self.values[self.row_of]

    def mean_stderr(self) -> float:
        """The mean standard error of a leaf value, over the leaves (NaN without standard errors)."""
        if self.stderr is None:
            return float("nan")
        counts = np.bincount(self.rows(), minlength=len(self.stderr))
        return float((self.stderr.mean(axis=(1, 2)) * counts).sum() / max(counts.sum(), 1))


def check_blueprint_rules(cut_rules, rules):
    """A blueprint of ``rules`` can value the leaves of the game of ``cut_rules`` when both are two
    players' and the same but for the turn limit, the blueprint's the longer; else a ``ValueError``
    naming what differs."""
    if rules.players != 2:
        raise ValueError(f"a blueprint of {rules.players} players; the leaves are for two")
    differ = [n for n, v in cut_rules.to_dict().items() if n != "turn_limit" and rules.to_dict().get(n) != v]
    if differ or rules.turn_limit <= cut_rules.turn_limit:
        why = (f"{', '.join(differ)} differ" if differ else
               f"its game ends after {rules.turn_limit} turns, not after the cut's {cut_rules.turn_limit}")
        raise ValueError(f"not a blueprint of this game ({why})")


@numba.njit(cache=True)
def _walk_together(kind_k, start_k, num_k, iset_k, kind_n, start_n, num_n, iset_n, node, infoset):
    """Fill ``node`` (cut tree -> longer tree) and ``infoset``; returns the first cut node where the
    trees disagree (kind, number of children, or an information set seen as two), else -1."""
    node[0] = 0
    infoset[:] = -1
    for v in range(kind_k.shape[0]):
        w = node[v]
        if kind_k[v] == TERMINAL:
            continue
        if kind_n[w] != kind_k[v] or num_n[w] != num_k[v]:
            return v
        I = iset_k[v]
        if I >= 0:
            if infoset[I] == -1:
                infoset[I] = iset_n[w]
            elif infoset[I] != iset_n[w]:
                return v
        for j in range(num_k[v]):
            node[start_k[v] + j] = start_n[w] + j
    return -1


def node_map(cut, longer) -> NodeMap:
    """Where each history and information set of the ``cut`` tree is in the ``longer`` one.

    Both are :class:`solvers.GameTree` of the same rules but for the turn limit (``cut``'s the
    smaller). Raises ``ValueError`` naming the first history where they disagree.
    """
    node = np.empty(cut.num_nodes, np.int64)
    infoset = np.empty(cut.num_infosets, np.int64)
    bad = _walk_together(cut.node_kind, cut.child_start, cut.num_children, cut.node_infoset,
                         longer.node_kind, longer.child_start, longer.num_children, longer.node_infoset,
                         node, infoset)
    if bad >= 0:
        raise ValueError(f"the cut game is not the beginning of the longer one (they differ at history {bad}): "
                         "are they the same rules but for the turn limit?")
    edges = np.flatnonzero(cut.chance_prob != 1.0)
    if not np.allclose(cut.chance_prob[edges], longer.chance_prob[node[edges]], rtol=0, atol=1e-15):
        raise ValueError("the cut game's chance probabilities differ from the longer game's")
    if (cut.infoset_num_actions != longer.infoset_num_actions[infoset]).any():
        raise ValueError("an information set has other actions in the longer game")
    return NodeMap(node, infoset)


def values_from_longer_game(cut_tree, leaves, longer, blueprint, k: int = 1, *, where=None,
                            continuations=None, extra=(), known=None) -> LeafValues:
    """The values of the ``cut_tree``'s ``leaves`` under ``k`` continuations of a ``blueprint``.

    Parameters
    ----------
    cut_tree : solvers.GameTree
        The cut game (a turn limit ``k``).
    leaves : ndarray, int64
        Its histories that end at the turn limit (``CoupTree.leaf_node``).
    longer : CoupTree
        The longer game, built with ``context=True`` (the continuations read the deciders' cards).
    blueprint : ndarray, float64
        A flat policy over ``longer.tree``.
    k : int
        How many of :data:`~coupsolve.depth.continuations.CONTINUATIONS` each player may choose among.
    where : NodeMap, optional
        :func:`node_map` of the two trees, when already made.
    continuations : list of ndarray, optional
        The ``k`` continuations' flat policies (:func:`continuation_policies` of the ``blueprint``),
        when already made.
    extra : sequence of (name, policy)
        More continuations after the ``k``: flat policies over ``longer.tree`` (for example best
        responses, :mod:`coupsolve.depth.oracle`); each player continues with its own part of one.
    known : ndarray, optional
        ``values`` already computed for the first ``m`` of these continuations (shape ``(len(leaves),
        m, m)``): those pairs are not evaluated again.

    Returns
    -------
    LeafValues
        ``values`` of shape ``(len(leaves), k + len(extra), k + len(extra))``, exact (no sampling).
    """
    if continuations is None:
        continuations = continuation_policies(longer, blueprint, k)
    elif len(continuations) != k:
        raise ValueError(f"{len(continuations)} continuations' policies for k = {k}")
    policies = list(continuations) + [np.asarray(p, np.float64) for _, p in extra]
    names = CONTINUATIONS[:k] + tuple(name for name, _ in extra)
    where = where or node_map(cut_tree, longer.tree)
    tree = longer.tree
    if any(p.shape != (tree.num_actions,) for p in policies):
        raise ValueError(f"a continuation is not a flat policy of the longer tree ({tree.num_actions:,} actions)")
    owner = np.repeat(tree.infoset_player, tree.infoset_num_actions)
    at = where.node[np.asarray(leaves, np.int64)]
    values = np.empty((len(at), len(policies), len(policies)))
    m = 0 if known is None else known.shape[1]
    if known is not None:
        if known.shape != (len(at), m, m) or m > len(policies):
            raise ValueError(f"known values of shape {known.shape} for {len(at):,} leaves and "
                             f"{len(policies)} continuations")
        values[:, :m, :m] = known
    for c0, p0 in enumerate(policies):
        for c1, p1 in enumerate(policies):
            if c0 < m and c1 < m:
                continue
            _, value = reach_and_values(tree, np.where(owner == 0, p0, p1))
            values[:, c0, c1] = value[at]
    return LeafValues(np.asarray(leaves, np.int64), values, names,
                      f"a strategy of the game cut after turn {longer.rules.turn_limit}")
