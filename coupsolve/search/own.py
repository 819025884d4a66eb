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
history of each private state at a new root and multiplies them out. A history with an earlier choice
of the player that no kept re-solve covers (a policy that joined the game late) has no such product,
and the blueprint's range is used instead.
"""

from __future__ import annotations

import functools

import numpy as np

__all__ = ["OwnRange"]


@functools.lru_cache(maxsize=4)
def _game(rules):
    from coupsolve import load_game

    return load_game(rules)


class OwnRange:
    """The own ranges of a re-solving player through one game (module docstring): :meth:`follow` each
    history it is asked to act at, :meth:`add` each re-solve it plays, :meth:`at` a new root."""

    def __init__(self):
        self.history, self.known = (), {}

    def follow(self, history) -> None:
        """Continue with ``history`` (the game's moves so far); one that does not extend the last starts
        a new game and forgets the re-solves kept."""
        history = tuple(int(a) for a in history)
        if history[:len(self.history)] != self.history:
            self.known = {}
        self.history = history

    def add(self, resolution) -> None:
        """Keep ``resolution``'s (a :class:`~coupsolve.search.resolve.Resolution`) strategy at each of
        its player's information sets at the decision it re-solved."""
        p = resolution.player
        self.known.update({(p, h): sigma for h, sigma in resolution.own_policy.items()})

    def at(self, root, player):
        """``player``'s range at ``root`` (per private state, in the order of
        :meth:`~coupsolve.trees.rooted.PublicRoot.hands`) under the re-solves kept, or None when a
        choice of the player on the way there is not among them."""
        from coupsolve.trees.stepwalk.build import sequence_hashes

        first = np.unique(root.node.entry[:, player], return_index=True)[1]
        game = _game(root.rules)
        prefixes, moves, owner = [], [], []
        for k, j in enumerate(first):
            path = root.node.paths[j]
            path = path[path >= 0]
            state = game.new_initial_state()
            for n, a in enumerate(path):
                if not state.is_chance_node() and state.current_player() == player and \
                        len(state.legal_actions()) > 1:
                    prefixes.append(path[:n])
                    moves.append(int(a))
                    owner.append(k)
                state.apply_action(int(a))
        reach = np.ones(first.size)
        if prefixes:
            rows = np.full((len(prefixes), max(len(x) for x in prefixes) + 1), -1, np.int32)
            for i, x in enumerate(prefixes):
                rows[i, :len(x)] = x
            for h, a, k in zip(sequence_hashes(root.rules, rows)[:, player, 0], moves, owner):
                sigma = self.known.get((player, int(h)))
                if sigma is None:
                    return None
                reach[k] *= sigma.get(a, 0.0)
        out = np.zeros(root.num_private[player])
        out[root.node.entry[first, player]] = reach  # all histories of a private state: perfect recall
        return out
