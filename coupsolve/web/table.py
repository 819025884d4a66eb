"""One game at the web table: you in one seat, bots in the others, the server playing every move that
is not yours.

The game is the OpenSpiel game over the engine (:mod:`coupsolve.openspiel.game`): the page is sent the
legal moves and what the viewer sees, never the rules. The log is the narrator's
(:class:`coupsolve.openspiel.narrate.Narrator`), told from your seat. When a coach strategy is given,
each of your decisions is kept with its advice (the strategy's probabilities for your hand, and the
moves' values where the strategy file has them), for the coach panel and for the review at the end.
"""

from __future__ import annotations

import time

import numpy as np

from coupsolve import engine as E
from coupsolve.names import declared_name
from coupsolve.openspiel.narrate import Narrator
from coupsolve.rules import CHARACTERS

#: What the acting seat decides, by phase (the page's headline).
DECIDING = {E.PH_TURN: "to declare an action", E.PH_CHALLENGE: "to challenge or let it pass",
            E.PH_BLOCK: "to block or let it pass", E.PH_BLOCK_CHALLENGE: "to challenge the block or let it pass",
            E.PH_LOSE: "to lose an influence: which card goes face up?",
            E.PH_KEEP: "to choose the cards to keep", E.PH_CHOOSE: "to choose a card",
            E.PH_PROVE: "to prove the claim or decline", E.PH_FACTION: "to choose the side of the faction marker",
            E.PH_VENGEANCE: "to choose Vengeance's target"}


class MoveError(ValueError):
    """A move the game cannot take (illegal, out of turn, or sent for an earlier position)."""


def deciding(state) -> str:
    """``'p1 to challenge or let it pass (p0 Tax)'``: who acts at ``state`` and what is being
    decided."""
    s = state.engine_state()
    if state.is_terminal():
        return "the game is over"
    who = state.current_player()
    text = f"p{who} {DECIDING.get(int(state.phase), E.PHASE_NAMES[state.phase])}"
    if s[E.S_ACTION] >= 0 and state.phase != E.PH_TURN:
        text += f" ({declared_name(s)}"
        if s[E.S_BLOCKER] >= 0:
            text += f", blocked by p{s[E.S_BLOCKER]} with {CHARACTERS[s[E.S_BLOCK_CHAR]]}"
        text += ")"
    return text


class Table:
    """A game in progress.

    Parameters
    ----------
    rules : Rules
    game : pyspiel.Game
        The ``python_coup`` game of ``rules``.
    seat : int
        Your seat.
    bots : list
        Per seat, ``(label, policy)`` (an OpenSpiel policy), and None at your seat.
    coach : ServedStrategy or None
        The strategy advising you (of the same rules).
    seed : int
        Seeds the deals and the bots' sampled moves.
    """

    def __init__(self, rules, game, seat, bots, coach=None, seed=0):
        self.rules, self.seat, self.bots, self.coach = rules, seat, bots, coach
        self.seed = seed
        self.state = game.new_initial_state()
        self.narrator = Narrator(rules, viewer=seat)
        self.rng = np.random.default_rng(seed)
        self.log, self.decisions = [], []
        self.touched = time.monotonic()
        self._advice = None
        self._advance()

    def _advance(self):
        """Play chance and the bots until it is your move or the game is over."""
        state = self.state
        while not state.is_terminal() and state.current_player() != self.seat:
            if state.is_chance_node():
                moves, probs = zip(*state.chance_outcomes())
            else:
                dist = self.bots[state.current_player()][1].action_probabilities(state)
                moves = state.legal_actions()
                probs = [dist.get(a, 0.0) for a in moves]
            p = np.asarray(probs, np.float64)
            k = int(self.rng.choice(len(moves), p=p / p.sum()))
            self.log += self.narrator.apply(state, moves[k])
        self._advice = None
        if not state.is_terminal() and self.coach is not None:
            self._advice = self.coach.advice(state)

    def move(self, action, ply=None):
        """Play your ``action`` (an action id), then the others' moves up to your next decision.

        ``ply``, when given, is the number of moves the page saw; a move sent for an earlier position
        (a second click) is refused. Raises :class:`MoveError` (one line) and changes nothing when the
        move cannot be played.
        """
        state = self.state
        if ply is not None and ply != len(state.history()):
            raise MoveError(f"the move was sent for move {ply} but the game is at move "
                            f"{len(state.history())}; reload the game")
        if state.is_terminal():
            raise MoveError("the game is over")
        legal = state.legal_actions()
        if action not in legal:
            names = ", ".join(state.action_to_string(self.seat, a) for a in legal)
            raise MoveError(f"action {action} is not legal here; legal: {names}")
        self.decisions.append(self._decision(action))
        self.log += self.narrator.apply(state, action)
        self._advance()

    def _decision(self, action):
        state = self.state
        entry = {"turn": int(state.turn), "deciding": deciding(state),
                 "hand": "+".join(state.hand(self.seat)), "chosen": state.action_to_string(self.seat, action),
                 "action": int(action)}
        advice = self._advice
        if advice is not None:
            probs, values = advice["probs"], advice["values"]
            best = max(probs, key=probs.get)
            entry.update(prob=probs.get(action, 0.0), best=state.action_to_string(self.seat, best),
                         best_prob=probs[best])
            if values is not None:
                top = max(values.values())
                entry.update(value=values[action], best_value=top, loss=top - values[action])
        return entry

    def view(self) -> dict:
        """What the page shows: the seats as you see them, the Court deck's size, whose move it is and
        what is being decided, the log, your legal moves (with the coach's advice), and at the end
        every hand, the result and the review."""
        state, over = self.state, self.state.is_terminal()
        s = state.engine_state()
        seats = []
        for p in range(self.rules.players):
            label = "You" if p == self.seat else self.bots[p][0]
            seats.append({"seat": p, "label": label, "you": p == self.seat, "coins": int(s[E.S_COINS + p]),
                          "influence": state.influence[p], "face_up": state.face_up[p],
                          "hand": state.hand(p) if over or p == self.seat else None,
                          "acting": not over and state.current_player() == p})
        view = {"seat": self.seat, "seed": self.seed, "seats": seats, "ply": len(state.history()), "over": over,
                "turn": int(state.turn), "turn_limit": self.rules.turn_limit, "rules": str(self.rules),
                "deck": int(sum(s[E.S_DECK:E.S_DECK + E.NCH])), "deciding": deciding(state),
                "log": list(self.log), "moves": [], "coach": self.coach is not None,
                "coach_values": self.coach is not None and self.coach.values is not None}
        if over:
            r = state.returns()[self.seat]
            view["result"] = "You win!" if r > 0 else "You lose." if r < 0 else \
                f"A draw: the turn limit ({self.rules.turn_limit}) was reached."
            view["review"] = self.decisions
        else:
            advice = self._advice or {"probs": {}, "values": None}
            values = advice["values"] or {}
            view["moves"] = [{"action": int(a), "label": state.action_to_string(self.seat, a),
                              "prob": advice["probs"].get(a) if self._advice else None,
                              "value": values.get(a)} for a in state.legal_actions()]
        return view
