"""Baseline bots for Coup as OpenSpiel policies: :class:`RandomBot` and :class:`HonestBot`.

Both are ``open_spiel.python.policy.Policy`` objects over :mod:`coupsolve.openspiel.game` states, for any number
of players, and both decide from what the acting player sees: its legal actions, its own face-down
cards, the face-up cards, the coins and influence of every seat, and the public facts of the turn (the
declared action and a block's character, announced to everyone). They never read another player's
hand. Which character a claim needs is the engine's table (``ACTION_CLAIM``, ``CLAIM_CHAR``), not a
copy of the rules. ``HonestBot``'s rule is compiled once, in :mod:`coupsolve.engine.honest`, which the
training field of :mod:`coupsolve.sampling.keys` reads too (a seat played by the bot while training).

``HonestBot`` is meant for the base game; in a variant's own phases it plays its first honest legal
action.
"""

from __future__ import annotations

import numpy as np
from open_spiel.python import policy as os_policy

from coupsolve.engine.honest import KEEP_ORDER, honest_choice

__all__ = ["RandomBot", "HonestBot", "KEEP_ORDER"]


class RandomBot(os_policy.Policy):
    """Every legal action with the same probability.

    Parameters
    ----------
    game : pyspiel.Game
        A ``python_coup`` game (any game works: only ``legal_actions`` is read).
    """

    def __init__(self, game):
        super().__init__(game, list(range(game.num_players())))

    def action_probabilities(self, state, player_id=None):
        """``{action: 1 / number of legal actions}``."""
        legal = state.legal_actions()
        return {int(a): 1.0 / len(legal) for a in legal}


class HonestBot(os_policy.Policy):
    """Never claims a character it does not hold; challenges only claims it can prove impossible.

    The rule, one decision at a time (deterministic):

    * **its turn**: Coup when it can (the coins and the legal actions say so; a forced Coup too); else
      Tax if it holds the Duke; else Assassinate if it holds the Assassin and can pay; else Steal if it
      holds the Captain and an opponent has coins; else Income. A target is the opponent with the most
      influence, then the most coins, then the first in seat order after the bot.
    * **a challenge round** (of an action or of a block): Challenge exactly when the claimant cannot
      hold the claimed character: every copy of it in the deck (``Rules.copies``, 0 if the character
      is not in the game) is face up or in the bot's own hand. Otherwise Pass.
    * **a block round**: block with a character it holds (the first legal one), else Pass.
    * **losing an influence**: turn face up its least wanted card (``KEEP_ORDER``); **an Exchange's
      keep** and **the card choice**: keep the most wanted cards.
    * any other decision (a variant's): the first legal action that makes no claim it cannot back.

    Parameters
    ----------
    game : pyspiel.Game
        A ``python_coup`` game.
    """

    def __init__(self, game):
        super().__init__(game, list(range(game.num_players())))
        self._params = game.rules.params()

    def action_probabilities(self, state, player_id=None):
        """``{action: 1.0}`` for the chosen action, 0.0 for every other legal action."""
        legal = state.legal_actions()
        choice = self.choose(state)
        return {int(a): 1.0 if a == choice else 0.0 for a in legal}

    def choose(self, state):
        """The legal action HonestBot plays at ``state`` (see the class docstring)."""
        legal = np.asarray(state.legal_actions(), np.int32)
        return int(legal[honest_choice(self._params, state.engine_state(), legal, len(legal))])


