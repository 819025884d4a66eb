"""The re-solving player's own range, by Bayes' rule over the strategies its own re-solves played.

A re-solve needs each player's range at its root. The opponent's comes from the blueprint (what the
re-solving player believes the opponent plays); its own need not be guessed: the player knows what it
did. At each of its decisions a re-solve chose a strategy for *every* private state it could have held
there (the average strategy at each of its information sets at the re-solve's root), and it played
the move drawn from the one of the hand it held. Its range at a later public state is, per private
state, the product over its earlier decisions of the probability those strategies gave to the move each
history of that private state made there (the move may be private, as an Exchange's choice of cards
to keep is): Bayes' rule with the chance probabilities left to the rooted tree
(:meth:`coupsolve.trees.rooted.PublicRoot.weights`), exactly the range of the strategy it played
(DeepStack's "own range", Moravcik, Schmid, Burch et al., Science 2017).

:class:`OwnRange` keeps, for one game, each re-solve's strategies at the player's information sets
(by the hash the trees key them by, so that what a history's move was and whether it was a choice at
all come from the game, not from how a tree numbers its entries); :meth:`OwnRange.at` replays one
history of each private state at a new root and multiplies them out. Where the hand it held had a
single move (so the player did not re-solve) but another hand had a choice, that hand's strategy is
the one of the latest re-solve whose tree reached there (:data:`KEPT_SOLVES` are kept). A hand that a
re-solve left out of its tree (the lightest hands, ``SearchSettings.prune``) has no strategy there: its range is 0 from
then on, as if the player could not hold it, which is what that re-solve assumed. A policy that joined
a game after its first choice has no such product, and the blueprint's range is used instead.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np

from coupsolve.trees.stepwalk.walk import replay_choices

__all__ = ["KEPT_SOLVES", "HashedSolve", "OwnRange", "infoset_strategy", "own_choices"]

#: How many of the latest re-solves :class:`OwnRange` keeps whole, for the decisions after them that
#: are not re-solved (the hand held had one move there; others may have had a choice).
KEPT_SOLVES = 2


def own_choices(P, paths, player, row, move, key):
    """Every choice of ``player`` along the action sequences ``paths`` (int32, rows padded with -1):
    where it acts with more than one legal move, the ``row``, the ``move`` made and the ``key`` of its
    information set there (its first token hash, as
    :func:`coupsolve.trees.stepwalk.build.sequence_hashes` of the prefix gives it), by the compiled
    replay (:func:`coupsolve.trees.stepwalk.walk.replay_choices`). Returns how many (the outputs hold
    at most ``paths.size``), or ``-1 - r`` for the first row ``r`` with a move not legal where it is
    played."""
    out = np.zeros((paths.shape[0], 2, 2), np.uint64)
    return replay_choices(P, paths, False, out, player, row, move, key)


def infoset_strategy(tree, average, i) -> dict:
    """``{action: probability}`` of the average strategy ``average`` at information set ``i`` of
    ``tree``, normalised (uniform where it is all zero)."""
    o, m = int(tree.infoset_offset[i]), int(tree.infoset_num_actions[i])
    sigma = np.asarray(average[o:o + m], np.float64)
    sigma = sigma / sigma.sum() if sigma.sum() > 0 else np.full(m, 1.0 / m)
    return {int(a): float(x) for a, x in zip(tree.infoset_actions[o:o + m], sigma)}


class HashedSolve(NamedTuple):
    """A re-solve's average strategy, its information sets found by hash (as
    :attr:`~coupsolve.trees.stepwalk.build.CoupPublicTree.infoset_hash` keys them): ``hashes`` sorted,
    ``order`` the information set of each, the solved ``tree`` and its ``average`` strategy."""

    hashes: np.ndarray
    order: np.ndarray
    tree: object
    average: np.ndarray

    @classmethod
    def of(cls, resolution):
        """The solve of ``resolution`` (a :class:`~coupsolve.search.resolve.Resolution`)."""
        coup = resolution.game.coup_tree
        order = np.argsort(coup.infoset_hash, kind="stable")
        return cls(coup.infoset_hash[order], order, resolution.game.tree, resolution.result.average_policy)

    def find(self, h) -> int:
        """The information set of hash ``h``, or -1 where the solved game has none."""
        i = int(np.searchsorted(self.hashes, np.uint64(h)))
        return int(self.order[i]) if i < self.hashes.size and self.hashes[i] == h else -1

    def strategy(self, i) -> dict:
        """``{action: probability}`` at information set ``i`` (:func:`infoset_strategy`)."""
        return infoset_strategy(self.tree, self.average, i)


@functools.lru_cache(maxsize=4)
def _game(rules):
    from coupsolve import load_game

    return load_game(rules)


class OwnRange:
    """The own ranges of a re-solving player through games of ``rules`` (module docstring):
    :meth:`follow` each history it is asked to act at, :meth:`add` each re-solve it plays, :meth:`at`
    a new root."""

    def __init__(self, rules):
        self.rules, self.history, self.known, self.solves, self.late = rules, None, {}, [], False

    def follow(self, history) -> None:
        """Continue with ``history`` (the game's moves so far); one that does not extend the last starts
        a new game and forgets the re-solves kept (one joined after a choice of the player it is asked
        for: ``late``, and :meth:`at` has no range to give)."""
        history = tuple(int(a) for a in history)
        if self.history is None or history[:len(self.history)] != self.history:
            self.known, self.solves, self.late = {}, [], False
            state, chose = _game(self.rules).new_initial_state(), set()
            for a in history:
                if not state.is_chance_node() and len(state.legal_actions()) > 1:
                    chose.add(state.current_player())
                state.apply_action(a)
            self.late = not state.is_terminal() and state.current_player() in chose
        self.history = history

    def add(self, resolution) -> None:
        """Keep ``resolution``'s (a :class:`~coupsolve.search.resolve.Resolution`) strategy at each of
        its player's information sets at the decision it re-solved, and its whole solve (the last
        :data:`KEPT_SOLVES`) for the decisions after it that are not re-solved."""
        p = resolution.player
        self.known.update({(p, h): sigma for h, sigma in resolution.own_policy.items()})
        self.solves = [(p, HashedSolve.of(resolution))] + self.solves[:KEPT_SOLVES - 1]

    def _strategy(self, player, h, a):
        """The probability of move ``a`` at the information set of hash ``h`` of ``player``: the
        re-solve made there, else the latest kept solve whose tree has it, else 0 (a hand left out)."""
        sigma = self.known.get((player, h))
        if sigma is not None:
            return sigma.get(a, 0.0)
        for p, solve in self.solves:
            i = solve.find(h) if p == player else -1
            if i >= 0:
                return solve.strategy(i).get(a, 0.0)
        return 0.0

    def at(self, root, player):
        """``player``'s range at ``root`` (per private state, in the order of
        :meth:`~coupsolve.trees.rooted.PublicRoot.hands`) under the re-solves kept, or None when a
        game joined ``late`` (or, should it happen, when the product leaves the hand it holds at 0). A
        hand a re-solve left out of its tree (``SearchSettings.prune``) has no strategy there, and its
        range is 0 from then on."""
        if self.late:
            return None
        first = np.unique(root.node.entry[:, player], return_index=True)[1]
        paths = np.ascontiguousarray(root.node.paths[first], np.int32)
        row, move = np.zeros(paths.size, np.int64), np.zeros(paths.size, np.int32)
        key = np.zeros(paths.size, np.uint64)
        n = own_choices(root.rules.params(), paths, player, row, move, key)
        if n < 0:
            raise ValueError(f"history {paths[-1 - n][paths[-1 - n] >= 0].tolist()} is not a game of {root.rules}")
        reach = np.ones(first.size)
        for k, a, h in zip(row[:n].tolist(), move[:n].tolist(), key[:n].tolist()):
            if reach[k] > 0:
                reach[k] *= self._strategy(player, h, a)
        out = np.zeros(root.num_private[player])
        out[root.node.entry[first, player]] = reach  # all histories of a private state: perfect recall
        if not out[root.node.entry[root.node.target, player]] > 0:
            return None
        return out
