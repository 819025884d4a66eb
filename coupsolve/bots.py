"""Baseline bots for Coup as OpenSpiel policies: :class:`RandomBot` and :class:`HonestBot`.

Both are ``open_spiel.python.policy.Policy`` objects over :mod:`coupsolve.game` states, for any number
of players, and both decide from what the acting player sees: its legal actions, its own face-down
cards, the face-up cards, the coins and influence of every seat, and the public facts of the turn (the
declared action and a block's character, announced to everyone). They never read another player's
hand. Which character a claim needs is the engine's table (``ACTION_CLAIM``, ``CLAIM_CHAR``), not a
copy of the rules.

``HonestBot`` is meant for the base game; in a variant's own phases it plays its first honest legal
action.
"""

from __future__ import annotations

import numpy as np
from open_spiel.python import policy as os_policy

from . import engine as E
from .rules import CHARACTERS

__all__ = ["RandomBot", "HonestBot", "KEEP_ORDER"]

#: HonestBot's preference among its cards, most wanted first: it loses the last and keeps the first.
KEEP_ORDER = (E.DUKE, E.CAPTAIN, E.ASSASSIN, E.CONTESSA, E.AMBASSADOR)
_RANK = {c: i for i, c in enumerate(KEEP_ORDER)}


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
        rules = game.rules
        self._copies = np.array([rules.copies if name in rules.characters else 0
                                 for name in CHARACTERS])

    def action_probabilities(self, state, player_id=None):
        """``{action: 1.0}`` for the chosen action, 0.0 for every other legal action."""
        legal = state.legal_actions()
        choice = self.choose(state)
        return {int(a): 1.0 if a == choice else 0.0 for a in legal}

    def choose(self, state):
        """The legal action HonestBot plays at ``state`` (see the class docstring)."""
        legal = state.legal_actions()
        me = state.current_player()
        hand = np.bincount([CHARACTERS.index(c) for c in state.hand(me)], minlength=E.NCH)
        honest = [a for a in legal if self._backed(a, hand)]
        s = state.engine_state()
        ph = int(s[E.S_PHASE])
        if ph == E.PH_TURN:
            return self._turn(state, me, hand, honest)
        if ph in (E.PH_CHALLENGE, E.PH_BLOCK_CHALLENGE):
            claimed = _claimed(s, ph)
            up = np.bincount([CHARACTERS.index(c) for f in state.face_up for c in f], minlength=E.NCH)
            impossible = claimed >= 0 and self._copies[claimed] - up[claimed] - hand[claimed] <= 0
            return E.ACT_CHALLENGE if impossible and E.ACT_CHALLENGE in legal else _first(legal, E.ACT_PASS)
        if ph == E.PH_BLOCK:
            blocks = [a for a in honest if E.ACT_BLOCK <= a < E.ACT_BLOCK + E.NCH]
            return blocks[0] if blocks else _first(legal, E.ACT_PASS)
        if ph == E.PH_LOSE:
            loses = [a for a in legal if E.ACT_LOSE <= a < E.ACT_LOSE + E.NCH]
            return max(loses, key=lambda a: _RANK[a - E.ACT_LOSE]) if loses else legal[0]
        if ph == E.PH_KEEP:
            keeps = [a for a in legal if E.ACT_KEEP <= a < E.ACT_KEEP + E.NUM_MULTISETS]
            return min(keeps, key=_keep_rank) if keeps else legal[0]
        if ph == E.PH_CHOOSE:
            return min(legal, key=lambda a: _RANK.get(a - E.ACT_CHOOSE, E.NCH))
        return (honest or legal)[0]

    @staticmethod
    def _backed(action, hand):
        """Whether ``action`` makes no claim, or claims a character in ``hand``."""
        claim = E.ACTION_CLAIM[action] if action < E.NUM_ACTIONS else -1
        return claim < 0 or hand[E.CLAIM_CHAR[claim]] > 0

    def _turn(self, state, me, hand, honest):
        coins, infl = state.coins, state.influence
        n = len(coins)
        others = [(me + j) % n for j in range(1, n) if infl[(me + j) % n] > 0]
        by_target = sorted(others, key=lambda q: (-infl[q], -coins[q], (q - me) % n))
        for base in (E.ACT_COUP, None, E.ACT_ASSASSINATE, E.ACT_STEAL):
            if base is None:
                if E.ACT_TAX in honest:
                    return E.ACT_TAX
                continue
            for q in by_target:
                if base + q in honest and (base != E.ACT_STEAL or coins[q] > 0):
                    return base + q
        return E.ACT_INCOME if E.ACT_INCOME in honest else honest[0]


def _claimed(s, ph):
    """The character claimed by the claim a challenge round is about (-1 if none)."""
    if ph == E.PH_BLOCK_CHALLENGE:
        return int(s[E.S_BLOCK_CHAR])
    kind = int(s[E.S_ACTION])
    claim = E.ACTION_CLAIM[kind] if kind >= 0 else -1
    return int(E.CLAIM_CHAR[claim]) if claim >= 0 else -1


def _first(legal, preferred):
    return preferred if preferred in legal else legal[0]


def _keep_rank(action):
    """Sort key of an Exchange keep: its cards' ranks, best first (lower is better)."""
    m = action - E.ACT_KEEP
    cards = [int(E.MS_FIRST[m])] + ([int(E.MS_SECOND[m])] if E.MS_SECOND[m] >= 0 else [])
    return sorted(_RANK[c] for c in cards)
