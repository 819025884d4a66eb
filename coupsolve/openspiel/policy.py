"""Strategies over Coup's trees as OpenSpiel policies, and a sampled check of a best response.

:class:`HistoryTreePolicy` reads a flat policy of a history tree by walking a state's history down the
tree.

A turn-limit-4 strategy has about 10**8 information sets: too many for OpenSpiel's ``TabularPolicy``
(one Python string and row each). :class:`PublicTreePolicy` instead looks a state's information set up
by the hash of the acting player's token sequence (:func:`coupsolve.trees.stepwalk.build.sequence_hashes`, the
key the builder gave it), in a sorted array: 8 bytes per information set, no strings. It is an
``open_spiel.python.policy.Policy``, so any OpenSpiel algorithm or evaluator takes it.

:func:`sampled_value` plays two such policies against each other through the OpenSpiel game, seeded,
and gives player 0's mean payoff with its 99% confidence interval: the independent check of an exact
best-response value computed on the public tree (its best response played against the strategy must
score it, within the interval).
"""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
from open_spiel.python import policy as os_policy

from coupsolve.trees.stepwalk.build import sequence_hashes

__all__ = ["HistoryTreePolicy", "PublicTreePolicy", "sampled_value"]

Z99 = 2.5758293035489004  # two-sided 99% normal quantile


class PublicTreePolicy(os_policy.Policy):
    """A flat policy over a :class:`~coupsolve.trees.stepwalk.build.CoupPublicTree`, for OpenSpiel
    (:meth:`of_table` for any table of the same information sets with their keys: a tree held in
    pieces, :class:`solvers.PublicPieces`).

    Parameters
    ----------
    game : pyspiel.Game
        The ``python_coup`` game of the tree's rules.
    coup_public : CoupPublicTree
    flat : ndarray, float64 (or float32: kept so), shape (num_actions,)
        The policy, in the tree's information-set order.

    A tree rooted mid-game (:mod:`coupsolve.trees.rooted`, a game id ending ``+root(...)``) is a part of
    the game: its policy answers at the states below its root.

    Raises
    ------
    ValueError
        A game of other rules, or a policy of the wrong length.
    """

    def __init__(self, game, coup_public, flat):
        self._setup(game, coup_public.rules, coup_public.tree, coup_public.infoset_hash, flat)

    @classmethod
    def of_table(cls, game, rules, table, infoset_hash, flat):
        """The policy ``flat`` over ``table`` (an information-set table: ``game_id``,
        ``infoset_offset``, ``infoset_num_actions``, ``infoset_actions``) whose information set ``i``
        has the key ``infoset_hash[i]``."""
        self = cls.__new__(cls)
        self._setup(game, rules, table, np.asarray(infoset_hash), flat)
        return self

    @classmethod
    def of_result(cls, game, rules, result):
        """The average policy of a :class:`solvers.SolveResult` that carries its information sets'
        keys (``infoset_hash``: a strategy solved in pieces), with no tree."""
        n = np.asarray(result.infoset_num_actions, np.int32)
        table = SimpleNamespace(
            game_id=result.game_id, infoset_num_actions=n, infoset_actions=result.infoset_actions,
            infoset_offset=np.concatenate(([0], np.cumsum(n, dtype=np.int64)[:-1])),
            num_infosets=n.shape[0], num_actions=int(n.sum()))
        return cls.of_table(game, rules, table, result.infoset_hash, result.average_policy)

    def with_choices(self, choice):
        """The pure policy that takes, at information set ``i``, its action at position ``choice[i]``
        (an integer array over the information sets: a best response as
        :meth:`solvers.public.rep.PublicTreeRep.best_choices` gives it), sharing this one's keys;
        it holds a number per information set, not a flat policy."""
        choice = np.asarray(choice)
        if choice.shape != (self._tree.num_infosets,) or choice.dtype.kind not in "iu":
            raise ValueError(f"choices have shape {choice.shape} and type {choice.dtype}, expected "
                             f"({self._tree.num_infosets},) integers")
        if choice.size and (choice.min() < 0 or np.any(choice >= self._tree.infoset_num_actions)):
            raise ValueError("a choice is not an action of its information set")
        other = self.__class__.__new__(self.__class__)
        other.__dict__.update(self.__dict__)
        other._flat, other._choice = None, choice
        return other

    @staticmethod
    def _checked(flat, tree):
        flat = np.ascontiguousarray(flat, dtype=np.float32 if np.asarray(flat).dtype == np.float32
                                    else np.float64)
        if flat.shape != (tree.num_actions,):
            raise ValueError(f"policy has shape {flat.shape}, expected ({tree.num_actions},)")
        return flat

    def _setup(self, game, rules, tree, infoset_hash, flat):
        super().__init__(game, [0, 1])
        if tree.game_id != str(game) and not tree.game_id.startswith(f"{game}+root("):
            raise ValueError(f"game {str(game)!r} is not the public tree's {tree.game_id!r}")
        if infoset_hash.shape != (tree.num_infosets,):
            raise ValueError(f"keys have shape {infoset_hash.shape}, expected ({tree.num_infosets},)")
        flat = self._checked(flat, tree)
        self._rules = rules
        self._tree = tree
        self._flat = flat
        self._order = np.argsort(infoset_hash, kind="stable")
        self._sorted = infoset_hash[self._order]

    def infoset_of(self, state):
        """The public tree's information set of ``state``'s current player (int).

        Raises
        ------
        KeyError
            When the tree has no such information set (a state past the tree's turn limit).
        """
        key = sequence_hashes(self._rules, state.history())[state.current_player(), 0]
        k = int(np.searchsorted(self._sorted, key))
        if k == self._sorted.shape[0] or self._sorted[k] != key:
            raise KeyError(f"no information set of the public tree for {state.history_str()!r}")
        return int(self._order[k])

    def action_probabilities(self, state, player_id=None):
        """``{action: probability}`` at ``state`` (OpenSpiel's ``Policy`` interface)."""
        i = self.infoset_of(state)
        o = int(self._tree.infoset_offset[i])
        m = int(self._tree.infoset_num_actions[i])
        actions = self._tree.infoset_actions[o:o + m]
        if self._flat is None:  # a pure policy by its choices
            pick = int(self._choice[i])
            return {int(a): float(k == pick) for k, a in enumerate(actions)}
        return {int(a): float(p) for a, p in zip(actions, self._flat[o:o + m])}


def walk_history(tree, probe, node, actions):
    """The node of a history tree (a :class:`solvers.GameTree` in the engine's order of moves) reached
    from ``node`` by ``actions``, stepping ``probe`` (the OpenSpiel state at ``node``) along: each
    move's position in its node's list of legal moves (or chance outcomes) is its child."""
    for a in actions:
        legal = [o for o, _ in probe.chance_outcomes()] if probe.is_chance_node() else probe.legal_actions()
        node = int(tree.child_start[node]) + legal.index(a)
        probe.apply_action(a)
    return node


class HistoryTreePolicy(os_policy.Policy):
    """A flat policy over a history tree (:class:`coupsolve.CoupTree`) as an OpenSpiel policy: a state's
    node is found by walking its history down the tree (each move's position in its node's list of
    moves is its child), continuing from the last state asked about when the new one extends it.

    Parameters
    ----------
    game : pyspiel.Game
        The tree's game.
    coup_tree : CoupTree
    sigma : float64 array
        The flat policy (``tree.num_actions``).
    """

    def __init__(self, game, coup_tree, sigma):
        super().__init__(game, list(range(game.num_players())))
        self._tree, self._sigma = coup_tree.tree, np.asarray(sigma, np.float64)
        self._node, self._probe = 0, game.new_initial_state()

    def _walk(self, history):
        seen = self._probe.history()
        if history[:len(seen)] != seen:  # another game: start again from the root
            self._node, self._probe = 0, self.game.new_initial_state()
            seen = []
        self._node = walk_history(self._tree, self._probe, self._node, history[len(seen):])
        return self._node

    def action_probabilities(self, state, player_id=None):
        """``{action: probability}`` at ``state`` (OpenSpiel's ``Policy`` interface)."""
        node = self._walk(state.history())
        o = int(self._tree.infoset_offset[int(self._tree.node_infoset[node])])
        legal = state.legal_actions()
        return {int(a): float(p) for a, p in zip(legal, self._sigma[o:o + len(legal)])}


def sampled_value(game, policies, games, seed, progress=None):
    """Player 0's mean payoff when ``policies[p]`` plays seat ``p``, sampled through OpenSpiel.

    Parameters
    ----------
    game : pyspiel.Game
    policies : pair of open_spiel Policy
    games : int
        Games to play.
    seed : int
        Seeds the chance outcomes and the players' sampled actions (``numpy.random.default_rng``).
    progress : callable, optional
        ``progress(done, games)`` every 1,000 games and at the end.

    Returns
    -------
    tuple of float
        ``(mean, half_width)``: the 99% confidence interval is ``mean +- half_width``.
    """
    rng = np.random.default_rng(seed)
    total = 0.0
    total_sq = 0.0
    for g in range(games):
        if progress is not None and g and g % 1000 == 0:
            progress(g, games)
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                probs = np.array([p for _, p in outcomes])
                action = outcomes[rng.choice(len(outcomes), p=probs / probs.sum())][0]
            else:
                dist = policies[state.current_player()].action_probabilities(state)
                actions = list(dist)
                probs = np.array([dist[a] for a in actions])
                action = actions[rng.choice(len(actions), p=probs / probs.sum())]
            state.apply_action(action)
        x = state.returns()[0]
        total += x
        total_sq += x * x
    if progress is not None:
        progress(games, games)
    mean = total / games
    var = max(total_sq / games - mean * mean, 0.0) * games / max(games - 1, 1)
    return mean, Z99 * math.sqrt(var / games)
