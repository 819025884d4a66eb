"""Games told in plain words, as the players see them: every step, forced ones included (the logs of
``coupsolve random`` and ``coupsolve play``).

A step is told from the events the engine emits (the observation tokens), so what a log shows is
exactly what a player observes: the move, then what follows from it without a choice (a proof and
the card it showed, a failed proof, a forced loss of influence), an elimination, and each new turn
with the turn limit. A Pass is labelled with the round it ends (challenge, block, challenge of the
block).
"""

from __future__ import annotations

import numpy as np

from coupsolve import engine as E
from coupsolve.names import card_name, token_name

#: The round a Pass belongs to, by the phase it is played in.
PASS_ROUND = {E.PH_CHALLENGE: "no challenge", E.PH_BLOCK: "no block",
              E.PH_BLOCK_CHALLENGE: "no challenge to the block"}


class Narrator:
    """Applies moves to a state and tells each step as log lines.

    Parameters
    ----------
    rules : Rules
    viewer : int or None
        The seat whose view is told (others' hidden cards stay hidden); ``None``: everything.
    """

    def __init__(self, rules, viewer=None):
        self.rules, self.viewer = rules, viewer
        self.turn = None
        self.claim = -1  # the last claim made: the card a proof shows

    def _token(self, owner, private, public):
        return private if self.viewer is None or owner in (-1, self.viewer) else public

    def apply(self, state, action) -> list[str]:
        """Apply ``action`` to ``state``; the lines telling what happened (forced steps marked)."""
        phase, seen, before = state.phase, len(state.events), state.influence
        state.apply_action(action)
        lines = []
        for k, event in enumerate(state.events[seen:]):
            lines.append(("" if k == 0 else "   forced: ") + self._describe(self._token(*event), phase))
        after = state.influence
        lines += [f"   p{p} has no influence left: out of the game" for p in range(len(after))
                  if before[p] > 0 and after[p] == 0]
        if state.turn != self.turn and state.turn > 0:  # a new turn begins after this step's events
            self.turn = state.turn
            lines.append(f"-- turn {state.turn} of {self.rules.turn_limit}")
        return lines

    def _describe(self, token, phase):
        text = token_name(token, self.rules.challenge_buyout)
        code = int(token) % E.TOKEN_SEAT
        if code < E.CODE_DEAL:  # a move
            if code == E.ACT_PASS and phase in PASS_ROUND:
                return f"{text} ({PASS_ROUND[phase]})"
            claim = int(E.ACTION_CLAIM[code])
            if claim >= 0:
                self.claim = claim
        elif code == E.CODE_PROVED and self.claim >= 0:
            c = self.claim
            return f"{text}: showed {card_name(int(E.CLAIM_CHAR[c]), E.CLAIM_MARK[c] >= 0)}"
        return text


def random_game_log(rules, seed: int) -> list[str]:
    """Play one game with uniformly random legal moves; return the log lines and final table.

    Parameters
    ----------
    rules : Rules
    seed : int
        Seed of every random choice (chance outcomes and moves).
    """
    from coupsolve.openspiel.game import load_game

    game = load_game(rules)
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    narrator = Narrator(rules)
    lines = [f"{game}", f"seed {seed}", ""]
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            action = int(rng.choice(outcomes, p=probs))
        else:
            action = int(rng.choice(state.legal_actions()))
        lines += narrator.apply(state, action)
    lines += ["", str(state), f"returns: {state.returns()}"]
    return lines
