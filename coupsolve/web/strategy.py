"""A strategy as the web app serves it: its rules, its policy, the exact value of each move where its
tree allows, and its analysis.

A file is loaded once, when the server starts (:func:`load_served`), by :func:`coupsolve.strategy.load`
with every check it makes. What the page can show depends on the kind:

* solved on the **history tree**: the policy, the exact value of every move of every information set
  (:class:`MoveValues`: the counterfactual value when everyone plays the strategy from there on), and
  the exact analysis (bluff and challenge rates);
* solved on the **public tree**: the policy and the exact analysis (no move values: the public tree's
  passes are not kept);
* solved **in pieces**: the policy, and the exact analysis when the file keeps it;
* **trained** (``coupsolve train``): the policy only.
"""

from __future__ import annotations

import os

import numpy as np

from solvers import DECISION
from solvers.kinds import TERMINAL
from solvers.history.evaluate import reach_and_values
from solvers.trees.derive import within

from coupsolve.openspiel.policy import walk_history
from coupsolve.plan.options import silent


class MoveValues:
    """The exact value of each move at each information set of a two-player history tree, when every
    player plays ``sigma`` after it.

    The value of action ``a`` at information set ``I`` of player ``i`` is the counterfactual value
    ``sum_h pi_-i(h) v_i(ha) / sum_h pi_-i(h)`` over the histories ``h`` of ``I``, where ``pi_-i`` is
    the probability that chance and the other player reach ``h`` (player ``i``'s own moves left out, so
    a value exists after a move the strategy never makes) and ``v_i`` is player ``i``'s expected payoff
    under ``sigma`` (Zinkevich et al., "Regret minimization in games with incomplete information",
    NIPS 2007).

    Parameters
    ----------
    coup_tree : CoupTree
        A two-player history tree.
    sigma : float64 array
        The flat policy over it.
    """

    def __init__(self, coup_tree, sigma):
        tree = self._tree = coup_tree.tree
        sigma = self._sigma = np.asarray(sigma, np.float64)
        self._v0 = reach_and_values(tree, sigma)[1]  # player 0's payoff (zero-sum: player 1's is -v0)
        kind, n = np.asarray(tree.node_kind), tree.num_nodes
        inner = np.flatnonzero(kind != TERMINAL)
        counts = np.asarray(tree.num_children)[inner]
        parent = np.repeat(inner, counts)
        slot = within(counts)
        child = np.asarray(tree.child_start)[parent] + slot
        decision = kind[parent] == DECISION
        offset = np.asarray(tree.infoset_offset)[np.maximum(np.asarray(tree.node_infoset)[parent], 0)]
        edge = np.where(decision, sigma[np.where(decision, offset + slot, 0)],
                        np.asarray(tree.chance_prob)[child])
        player = np.asarray(tree.node_player)[parent]
        assert np.all(np.diff(child) > 0), "a history tree's children are stored in level order"
        bounds = np.searchsorted(child, np.asarray(tree.level_start))
        self._reach = []
        for i in (0, 1):  # each player's counterfactual reach: its own moves weigh 1
            w = np.where(decision & (player == i), 1.0, edge)
            reach = np.zeros(n)
            reach[0] = 1.0
            for lo, hi in zip(bounds[:-1], bounds[1:]):  # a level's parents are all in earlier levels
                reach[child[lo:hi]] = reach[parent[lo:hi]] * w[lo:hi]
            self._reach.append(reach)
        decisions = np.flatnonzero(kind == DECISION)
        infoset = np.asarray(tree.node_infoset)[decisions]
        order = np.argsort(infoset, kind="stable")
        self._nodes, self._sets = decisions[order], infoset[order]

    def node_of(self, state):
        """The tree's node of ``state`` (its history walked down the tree)."""
        return walk_history(self._tree, state.get_game().new_initial_state(), 0, state.history())

    def child(self, node, k):
        """The node after the ``k``-th legal move (or chance outcome, in their listed order)."""
        return int(self._tree.child_start[node]) + k

    def infoset(self, node):
        """The information set of a decision node."""
        return int(self._tree.node_infoset[node])

    def probabilities(self, node, legal):
        """``{action: probability}`` of the strategy at a decision node whose legal moves are
        ``legal``."""
        o = int(self._tree.infoset_offset[self.infoset(node)])
        return {int(a): float(p) for a, p in zip(legal, self._sigma[o:o + len(legal)])}

    def values(self, state):
        """``{action: value}`` to the player acting at ``state``, or None when the other player's
        strategy never reaches its information set."""
        node = self.node_of(state)
        tree, i = self._tree, int(self._tree.node_player[node])
        s = int(tree.node_infoset[node])
        lo, hi = np.searchsorted(self._sets, s), np.searchsorted(self._sets, s, side="right")
        nodes = self._nodes[lo:hi]
        w = self._reach[i][nodes]
        if w.sum() <= 0:
            return None
        sign = 1.0 if i == 0 else -1.0
        first = np.asarray(tree.child_start)[nodes]
        legal = state.legal_actions()
        return {int(a): float(sign * (w * self._v0[first + j]).sum() / w.sum()) for j, a in enumerate(legal)}


class ServedStrategy:
    """One strategy as the page uses it: ``name``, ``rules``, ``game``, ``policy`` (an OpenSpiel
    policy), ``what`` (one line), ``values`` (:class:`MoveValues`, for a history tree) and
    ``analysis`` (the analysis as a dict, or None).

    :func:`load_served` makes one of a strategy file.

    Parameters
    ----------
    name : str
    rules : Rules
    game : pyspiel.Game
    policy : open_spiel Policy
    what : str
    history_tree : CoupTree, optional
        The history tree the strategy was solved on, and ``average_policy`` its flat policy: every
        move's exact value.
    average_policy : float64 array, optional
    analysis : Analysis, optional
    make_policy : callable, optional
        A new policy for each seat it plays (:meth:`seat_policy`), for players that keep state.
    """

    def __init__(self, name, rules, game, policy, what, history_tree=None, average_policy=None,
                 analysis=None, make_policy=None):
        self.name, self.rules, self.game, self.policy, self.what = name, rules, game, policy, what
        self.make_policy = make_policy
        self.values = None if history_tree is None else MoveValues(history_tree, average_policy)
        self.analysis = None if analysis is None else analysis.to_dict()

    def seat_policy(self):
        """The policy for one seat of one new game: ``policy``, or a fresh one from ``make_policy`` for a
        player that keeps what it did in its game (a re-solving one)."""
        return self.policy if self.make_policy is None else self.make_policy()

    def describe(self) -> dict:
        """What the page's menus show of it."""
        return {"name": self.name, "what": self.what, "rules": str(self.rules),
                "players": self.rules.players, "values": self.values is not None,
                "analysis": self.analysis is not None}

    def advice(self, state):
        """``{"probs": {action: p}, "values": {action: v} or None}`` at ``state`` for its acting
        player."""
        probs = self.policy.action_probabilities(state)
        values = self.values.values(state) if self.values is not None else None
        return {"probs": {int(a): float(p) for a, p in probs.items()}, "values": values}


def searching_served(served, path, settings) -> ServedStrategy:
    """The re-solving player (:class:`coupsolve.search.ResolvingPolicy`) on the trained strategy
    ``served`` (loaded from ``path``) with ``settings``, served as a strategy of its own: a new player
    for each seat of each game, so that each keeps its own range through its own game. Each of its
    moves is a re-solve, and the page waits for it.

    Raises
    ------
    coupsolve.strategy.StrategyError
        The strategy is not a two-player training over the features abstraction (one line).
    """
    from coupsolve.search import Blueprint, ResolvingPolicy

    blueprint = Blueprint.load(path)
    turns = f"{settings.lookahead} turn{'s' if settings.lookahead > 1 else ''}"
    return ServedStrategy(f"{served.name} re-solving {turns} ahead", served.rules, served.game,
                          ResolvingPolicy(served.game, blueprint, settings),
                          f"{served.what}; re-solving {turns} ahead at each move, {settings.iterations} "
                          "iterations", make_policy=lambda: ResolvingPolicy(served.game, blueprint, settings))


def load_served(path, name=None, say=silent) -> ServedStrategy:
    """The strategy file ``path`` as the page serves it, named ``name`` (default: the file's name);
    its tree rebuilt and its analysis made (said through ``say``). A strategy solved in pieces keeps
    the analysis its file carries (no rebuild: at turn limit 4 it takes half an hour).

    Raises
    ------
    coupsolve.strategy.StrategyError
        The file cannot be used (one line naming it and why).
    """
    from coupsolve.strategy import load, stored_analysis

    strategy = load(path, say)
    game = strategy.game()
    name = name or os.path.basename(str(path))
    if strategy.kind == "trained":
        return ServedStrategy(name, strategy.rules, game, strategy.policy(game), f"trained, {strategy.what}")
    result = strategy.result
    what = (f"solved, {result.algorithm}, {result.iterations:,} iterations, exploitability "
            f"{result.exploitability:.3g}")
    if strategy.kind == "pieces":
        analysis = stored_analysis(strategy.path, result)
    else:
        analysis = strategy.analyse(say=say)
        say(f"{name}: valuing every move ..." if strategy.kind == "history" else "")
    history = strategy.tree if strategy.kind == "history" else None
    return ServedStrategy(name, strategy.rules, game, strategy.policy(game), what, history_tree=history,
                          average_policy=result.average_policy, analysis=analysis)
