"""A public state of two-player Coup, named by a history that reaches it, and ranges over its private states.

:func:`public_root` takes a history (engine action and chance outcome ids from the game's start, as
OpenSpiel's ``state.history()``: the actions of the game so far, private ones included), keeps what
is public about it (the public node it stops at) and finds every history of the game at that public
node (:func:`coupsolve.trees.stepwalk.descend.reach`), with its chance probability: the deal's, the
card choices' and every draw's, so card removal (and the card-selection setup's three sets) is
exact, not assumed.

A player's *private states* there are the player's entries of the public tree at that node: their
distinct private observation sequences (their cards as chosen, dealt and drawn, what they kept in an
Exchange), in the public tree's order (first appearance in the walk from the game's start; the same
order as :attr:`CoupPublicTree.entry_hand` at that node). Several may hold the same hand: in the
card-selection setup, Duke chosen and Captain dealt is not Captain chosen and Duke dealt (each
knows a different card is missing from the Court deck), so a range is over private states, not hands;
:meth:`PublicRoot.hands` names each one's hand and :meth:`PublicRoot.range_from_hands` spreads a
range over hands onto them.

A *range* is a non-negative weight per private state (any scale): the probability of reaching the
public state with that private state under the player's own strategy (Bayes: the product of the
player's own action probabilities along the way). The chance node at the root of a tree rooted here
gives each pair of private states ``chance[i, j] * range0[i] * range1[j]``, normalised
(:meth:`PublicRoot.weights`): exactly the distribution of the game's histories at that public node
when the ranges are the players' own reach probabilities (Johanson, Bard, Lanctot, Gibson and
Bowling, "Efficient Nash equilibrium approximation through Monte Carlo counterfactual regret
minimization", AAMAS 2012: a history's reach is chance's times each player's own; Moravcik, Schmid,
Burch et al., "DeepStack", Science 2017: a subgame is rooted by the ranges at its public state).
"""

from __future__ import annotations

import numpy as np

from solvers import DECISION, TERMINAL

from coupsolve import engine as E
from coupsolve.rules import CHARACTERS, Rules
from coupsolve.trees.stepwalk.descend import reach

__all__ = ["PublicRoot", "hand_name", "public_root", "turn_limit_ahead"]


def turn_limit_ahead(turn: int, turns: int) -> int:
    """The turn limit that lets ``turns`` turns be played from a state in turn ``turn``, that one
    included; the card selection before the first turn (turn 0) counts as part of the first."""
    if turns < 1:
        raise ValueError(f"turns must be at least 1, got {turns}")
    return max(int(turn), 1) + turns - 1


def hand_name(code: int) -> str:
    """A packed hand (:func:`coupsolve.engine.core.pack_hand`) as 'Duke+Captain' ('' when empty)."""
    return "+".join(CHARACTERS[c] for c in range(E.NCH) for _ in range((int(code) >> (3 * c)) & 7))


class PublicRoot:
    """A public state of two-player Coup, with every history of the game there (module docstring).

    Made by :func:`public_root`; the tree rooted here is built by
    :func:`coupsolve.trees.rooted.build.build_rooted_public_tree`.

    Attributes
    ----------
    rules : Rules
        The rules the history was played under.
    actions : tuple of int
        The history given.
    node : coupsolve.trees.stepwalk.descend.ReachedNode
        The public node with its histories (states, token hashes, chance probabilities, entries, each
        history's action ids from the start, the public path).
    chance : ndarray, float64, shape (n0, n1)
        ``chance[i, j]``: the sum of the chance probabilities of the histories there in which player
        0 has private state ``i`` and player 1 ``j`` (0: impossible together).
    """

    def __init__(self, rules: Rules, actions, node):
        self.rules, self.actions, self.node = rules, tuple(int(a) for a in actions), node
        n0, n1 = (len(h) for h in node.hand)
        self.chance = np.zeros((n0, n1))
        np.add.at(self.chance, (node.entry[:, 0], node.entry[:, 1]), node.start.prob)

    @property
    def num_private(self) -> tuple:
        """How many private states each player has here: ``(n0, n1)``."""
        return self.chance.shape

    @property
    def public_path(self) -> tuple:
        """The child taken at each public node from the game's start in the public tree of ``rules``
        (``tree.child_start[v] + k``, from the root): where this public state is in that tree."""
        return self.node.public_path

    @property
    def turn(self) -> int:
        """The turn in progress (1 is the starting player's first; 0 during the setup)."""
        return int(self.node.start.states[0, E.S_TURN])

    @property
    def kind(self) -> int:
        """The node's kind (``solvers.DECISION``, ``CHANCE`` or ``TERMINAL``)."""
        return self.node.kind

    @property
    def player(self) -> int:
        """The player to act at a decision, else -1."""
        return self.node.player if self.node.kind == DECISION else -1

    def hands(self, player: int) -> list:
        """The face-down cards of each of ``player``'s private states, as 'Duke+Captain'."""
        return [hand_name(code) for code in self.node.hand[player]]

    def private_paths(self, player: int) -> np.ndarray:
        """One history of each of ``player``'s private states (action ids from the game's start, rows
        padded with -1): the player's own actions on it are those of every history of that private
        state (perfect recall), so the player's own reach probability can be read along it."""
        first = np.array([np.flatnonzero(self.node.entry[:, player] == e)[0]
                          for e in range(self.num_private[player])], np.int64)
        return self.node.paths[first]

    def turn_limit_ahead(self, turns: int) -> int:
        """The turn limit that lets ``turns`` turns be played from here, this one included
        (:func:`turn_limit_ahead`)."""
        return turn_limit_ahead(self.turn, turns)

    def check_range(self, player: int, values) -> np.ndarray:
        """``values`` as a range of ``player`` here (float64), or ``ValueError`` in one line naming the
        problem: not one number per private state, not finite, negative, or all zero."""
        name, n = f"range{player}", self.num_private[player]
        r = np.asarray(values, dtype=np.float64)
        if r.ndim != 1 or r.shape[0] != n:
            raise ValueError(f"{name} has shape {r.shape}; player {player} has {n} private states "
                             f"at this public state (PublicRoot.hands({player}) lists them)")
        if not np.all(np.isfinite(r)):
            raise ValueError(f"{name} holds a value that is not finite")
        if np.any(r < 0):
            raise ValueError(f"{name} holds a negative weight ({r.min():g} at private state "
                             f"{int(np.argmin(r))})")
        if not np.any(r > 0):
            raise ValueError(f"{name} is all zero: player {player} reaches this public state with "
                             f"no private state")
        return r

    def weights(self, range0, range1) -> np.ndarray:
        """The root's chance probabilities: ``chance[i, j] * range0[i] * range1[j]``, normalised to sum
        to 1 (float64, ``(n0, n1)``); ``ValueError`` when a range is refused (:meth:`check_range`) or
        when the two give no pair of private states that the public cards allow together."""
        r0, r1 = self.check_range(0, range0), self.check_range(1, range1)
        w = self.chance * np.outer(r0, r1)
        total = w.sum()
        if not total > 0:
            raise ValueError("the ranges are inconsistent with the public cards: every pair of private "
                             "states they weigh is impossible together (card removal)")
        return w / total

    def range_from_hands(self, player: int, by_hand) -> np.ndarray:
        """A range of ``player`` from a weight per hand (a mapping 'Duke+Captain' -> weight; hands not
        named weigh 0), each private state taking its hand's weight; ``ValueError`` for a hand that
        no private state here holds (impossible given the public cards, or not this many cards)."""
        hands = self.hands(player)
        known = set(hands)
        for hand in by_hand:
            if hand not in known:
                raise ValueError(f"player {player} cannot hold {hand!r} here (the hands possible: "
                                 f"{', '.join(sorted(known))})")
        return self.check_range(player, [float(by_hand.get(h, 0.0)) for h in hands])

    def hand_range(self, player: int, values) -> dict:
        """A range of ``player`` summed by hand and normalised: ``{hand: probability}``."""
        r = self.check_range(player, values)
        out: dict = {}
        for hand, x in zip(self.hands(player), r / r.sum()):
            out[hand] = out.get(hand, 0.0) + float(x)
        return out

    def __repr__(self):
        n0, n1 = self.num_private
        return (f"PublicRoot(turn {self.turn}, public path {list(self.public_path)}, {n0} x {n1} private "
                f"states, {self.node.start.prob.shape[0]} histories)")


def public_root(rules: Rules, actions, max_histories=None) -> PublicRoot:
    """The public state that the history ``actions`` reaches, with every history of the game there.

    Parameters
    ----------
    rules : Rules
        Two-player rules.
    actions : sequence of int
        Engine action and chance outcome ids from the game's start (OpenSpiel's ``state.history()``
        of a state of :func:`coupsolve.load_game`, or an OpenSpiel state itself).
    max_histories : int, optional
        The most histories the walk there may hold at once
        (:class:`~coupsolve.trees.stepwalk.descend.TooManyHistories` past it).

    Raises
    ------
    ValueError
        An action not legal where it is played, or the game over before the history is (or at its
        end: a finished game has nothing to root).
    """
    if hasattr(actions, "history") and callable(actions.history):
        game_rules = getattr(actions.get_game(), "rules", None)
        if game_rules is not None and game_rules.replace(turn_limit=rules.turn_limit) != rules:
            raise ValueError(f"the state is of a game of other rules ({game_rules}), not {rules}")
        actions = actions.history()
    node = reach(rules, actions, max_histories)
    if node.kind == TERMINAL:
        raise ValueError("the game is over at this public state: there is no tree to root there")
    return PublicRoot(rules, actions, node)
