"""A depth-limited Coup game: the game cut after turn ``k``, each leaf a choice of continuations.

:func:`depth_limited_game` builds the cut game's history tree with its turn-limit leaves
(:func:`coupsolve.build_coup_tree` with ``leaves=True``), names each player's information set at each
leaf from that player's observations there, and grafts the continuation choices of
:mod:`solvers.trees.leaves` onto it with the given :class:`~coupsolve.depth.values.LeafValues`. The
result is an ordinary two-player zero-sum :class:`solvers.GameTree` (``.tree``): every algorithm of
:func:`solvers.solve`, the exact exploitability (of the depth-limited game: each player's best
response chooses among its continuations at the leaves), checkpoints and
:func:`coupsolve.analysis.analyse` (on ``.coup_tree``) take it as they take any tree.

Which player chooses what (Brown, Sandholm and Amos, NeurIPS 2018, with both players choosing):
at a leaf, player 0 chooses its continuation knowing exactly what it knows there, and player 1 its
own, without seeing player 0's; the leaf pays what that pair of continuations earns from the leaf's
history. The choices come after the game's own information sets, so a policy's first
``base_actions`` entries are the cut game's strategy (:meth:`DepthLimitedGame.cut_policy`).
"""

from __future__ import annotations

import numpy as np

from solvers.trees.leaves import graft_leaf_choices

from coupsolve.trees.history.tree import CoupTree, build_coup_tree

__all__ = ["DepthLimitedGame", "depth_limited_game", "leaf_infosets"]


def leaf_infosets(coup_tree) -> np.ndarray:
    """Each turn-limit leaf's information set per player, numbered from 0 per player (int64, (L, 2)).

    Two leaves share a number for a player when the player's two observation hashes there agree
    (:mod:`coupsolve.trees.history.builder`); a first hash shared with another second is a collision,
    reported rather than merged.
    """
    keys = coup_tree.leaf_key
    if keys is None:
        raise ValueError("the cut tree must be built with leaves=True")
    out = np.empty((keys.shape[0], 2), np.int64)
    for p in range(2):
        pairs, inverse = np.unique(keys[:, p, :], axis=0, return_inverse=True)
        if np.unique(pairs[:, 0]).size != pairs.shape[0]:
            raise RuntimeError("an observation-hash collision among the leaves: please report it")
        out[:, p] = inverse.reshape(-1)
    return out


class _Renderer:
    """The cut tree's key renderer, read through the graft's node map (for ``CoupTree.state_at``)."""

    def __init__(self, renderer, old_of_new):
        self._renderer, self._old = renderer, old_of_new

    def state(self, v):
        old = int(self._old[v])
        if old < 0:
            raise ValueError(f"history {v} is a continuation choice, not a history of the game")
        return self._renderer.state(old)


class CutGame:
    """What every depth-limited game says of its cut: its rules and its part of a flat policy (the cut
    game's own information sets come first, the leaves' choices after). Needs ``cut`` and
    ``choices``."""

    @property
    def rules(self):
        return self.cut.rules

    @property
    def base_actions(self) -> int:
        """The flat actions of the cut game's own information sets (they come first)."""
        return self.choices.base_actions

    def cut_policy(self, policy) -> np.ndarray:
        """The cut game's part of a flat ``policy`` over :attr:`tree` (a policy of ``cut.tree``)."""
        return np.asarray(policy, np.float64)[:self.base_actions]


class DepthLimitedGame(CutGame):
    """A Coup game cut after ``rules.turn_limit`` turns with multi-valued leaves (module docstring).

    Attributes
    ----------
    tree : solvers.GameTree
        The game with the continuation choices: solve this.
    coup_tree : CoupTree
        The same tree with the Coup-side extras, for :func:`coupsolve.analysis.analyse`.
    cut : CoupTree
        The cut game as built (its leaves pay the turn-limit payoff).
    choices : solvers.trees.leaves.LeafChoices
    leaf_values : LeafValues
    """

    def __init__(self, cut, tree, choices, leaf_values):
        self.cut, self.tree, self.choices, self.leaf_values = cut, tree, choices, leaf_values
        context = None
        if cut.node_context is not None:
            context = np.zeros(tree.num_nodes, cut.node_context.dtype)
            copied = choices.old_of_new >= 0
            context[copied] = cut.node_context[choices.old_of_new[copied]]
        rep = np.empty(tree.num_infosets, np.int64)
        new_of_old = np.empty(cut.tree.num_nodes, np.int64)
        new_of_old[choices.old_of_new[choices.old_of_new >= 0]] = np.flatnonzero(choices.old_of_new >= 0)
        rep[:choices.base_infosets] = new_of_old[cut.infoset_rep]
        choice = np.flatnonzero(tree.node_infoset >= choices.base_infosets)[::-1]  # the leaves' choices:
        rep[tree.node_infoset[choice]] = choice  # the first node of each (written last)
        self.coup_tree = CoupTree(tree, cut.rules, context, rep, dict(cut.build_info),
                                  _Renderer(cut._renderer, choices.old_of_new))

    def describe(self) -> str:
        """Its size, for the line said once it is built."""
        return (f"{self.tree.num_nodes:,} histories, {len(self.cut.leaf_node):,} leaves, "
                f"{self.tree.num_infosets:,} information sets")

    def leaf_choice(self, policy) -> dict:
        """How often each player picks each continuation at its leaves, weighted by how often the leaf is
        reached under ``policy``: ``{player: {continuation: probability}}``."""
        from solvers.history.evaluate import reach_and_values

        reach, _ = reach_and_values(self.tree, policy)
        sigma = np.asarray(policy, np.float64)
        names, out = self.leaf_values.continuations, {}
        decisions = self.choices.leaf_decision
        k0 = self.choices.num_continuations[0]  # player 1 chooses below each of player 0's picks
        below = (self.tree.child_start[decisions][:, None] + np.arange(k0)).reshape(-1)
        for p, nodes in ((0, decisions), (1, below)):
            w = reach[nodes]
            offsets = self.tree.infoset_offset[self.tree.node_infoset[nodes]]
            mass = np.array([(w * sigma[offsets + c]).sum() for c in range(len(names))])
            out[p] = dict(zip(names, (mass / mass.sum()).tolist())) if mass.sum() > 0 else {}
        return out


def depth_limited_game(rules, leaf_values, *, cut: CoupTree | None = None, context: bool = True,
                       verbose: bool = False) -> DepthLimitedGame:
    """The Coup game of ``rules`` (cut after ``rules.turn_limit`` turns) with ``leaf_values`` at its leaves.

    Parameters
    ----------
    rules : Rules
        The cut game's rules (two players).
    leaf_values : LeafValues
        From :func:`coupsolve.depth.values.values_from_longer_game` (or any source with a value per
        leaf and pair of continuations); its ``leaves`` must be the cut tree's turn-limit leaves.
    cut : CoupTree, optional
        The cut tree built with ``leaves=True``, when already built.
    context : bool
        Keep the decision contexts, for the analysis.
    """
    if rules.players != 2:
        raise ValueError("depth-limited solving is for two players")
    if cut is None:
        cut = build_coup_tree(rules, context=context, leaves=True, verbose=verbose)
    if cut.rules != rules or cut.leaf_node is None:
        raise ValueError("cut must be build_coup_tree(rules, leaves=True) of these rules")
    if not np.array_equal(np.asarray(leaf_values.leaves), cut.leaf_node):
        raise ValueError("the leaf values are not for this cut game's leaves")
    tree, choices = graft_leaf_choices(cut.tree, cut.leaf_node, leaf_infosets(cut), leaf_values.per_leaf(),
                                       game_id=f"{rules.game_string()}+leaves({len(leaf_values.continuations)})")
    return DepthLimitedGame(cut, tree, choices, leaf_values)
