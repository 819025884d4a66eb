"""What each player of the OpenSpiel game sees: observation and information-state strings and tensors.

:class:`CoupObserver` is the game's PyObserver (``CoupGame.make_py_observer``); it alone decides what a
player sees, from the engine's event tokens (perfect recall) or the current engine state.

Observer tensors (``make_py_observer``; every piece is named in ``observer.dict``)
-----------------------------------------------------------------------------------
Perfect-recall information state (``information_state_tensor``):

``player`` [n]: one-hot seat of the observer. ``hand`` [5]: the observer's face-down cards (counts by
character). ``events`` [L]: the observer's observation sequence, one slot per event, each slot holding
``token + 1`` (0 = unused; tokens as in :mod:`coupsolve.tables`, private ones only for the owner).
``L = engine.max_events(...)`` is an upper bound on the events of a game at the turn limit.

Observation (``observation_tensor``, the current state only, not perfect recall):

``player`` [n]; ``phase`` [18] one-hot of the engine phase (``engine.NUM_PHASES``); ``actor``, ``cursor``,
``target``, ``challenger``, ``blocker`` [n each] one-hot seats (all zero when none); ``action`` [7] one-hot
of the declared action's kind (``tables.KIND_NAMES``: Income, Foreign Aid, Tax, Exchange, Coup,
Assassinate, Steal; a Vengeance shows as Assassinate); ``block`` [5] one-hot
of the character claimed by a block; ``turn`` [1]; ``coins`` [n]; ``influence`` [n] face-down
counts; ``face_up`` [n, 5]; ``hand`` [5] and ``exchange`` [5] (the observer's face-down cards and
Exchange draws); ``deck`` [1] the number of cards in the Court deck.
The variants' state (factions, event-mat flips, marks) is in the information state (its events) and in
the observation string (``factions``, ``event mat flipped``, ``marked face up``, and the observer's own
``marked`` cards), not in the observation tensor.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pyspiel

from . import engine as E
from .names import declared_name, token_name
from .rules import CHARACTERS

if TYPE_CHECKING:
    from .game import CoupGame, CoupState


class CoupObserver:
    """Observation and perfect-recall information-state strings and tensors (PyObserver interface)."""

    def __init__(self, iig_obs_type, game: CoupGame):
        n = game.rules.players
        self.n = n
        self.perfect_recall = iig_obs_type.perfect_recall
        self.public = iig_obs_type.public_info
        self.private = iig_obs_type.private_info
        pieces = [("player", n, (n,))]
        if self.private == pyspiel.PrivateInfoType.SINGLE_PLAYER:
            pieces.append(("hand", E.NCH, (E.NCH,)))
        if self.perfect_recall:
            pieces.append(("events", game.max_events, (game.max_events,)))
        elif self.public:
            pieces += [("phase", E.NUM_PHASES, (E.NUM_PHASES,)), ("actor", n, (n,)), ("cursor", n, (n,)),
                       ("target", n, (n,)), ("challenger", n, (n,)), ("blocker", n, (n,)),
                       ("action", len(E.KIND_NAMES), (len(E.KIND_NAMES),)), ("block", E.NCH, (E.NCH,)),
                       ("turn", 1, (1,)),
                       ("coins", n, (n,)), ("influence", n, (n,)), ("face_up", n * E.NCH, (n, E.NCH)),
                       ("deck", 1, (1,))]
            if self.private == pyspiel.PrivateInfoType.SINGLE_PLAYER:
                pieces.append(("exchange", E.NCH, (E.NCH,)))
        size = sum(p[1] for p in pieces)
        self.tensor = np.zeros(size, np.float32)
        self.dict = {}
        i = 0
        for name, k, shape in pieces:
            self.dict[name] = self.tensor[i:i + k].reshape(shape)
            i += k

    def tokens(self, state: CoupState, player: int) -> list[int]:
        """The observation tokens ``player`` has seen, in order (their perfect-recall sequence)."""
        out = []
        everyone = self.private == pyspiel.PrivateInfoType.ALL_PLAYERS
        mine = self.private == pyspiel.PrivateInfoType.SINGLE_PLAYER
        for owner, private, public in state.events:
            if owner < 0:
                if self.public:
                    out.append(public)
            elif everyone or (mine and owner == player):
                out.append(private)
            elif self.public:
                out.append(public)
        return out

    def set_from(self, state: CoupState, player: int):
        """Fill ``self.tensor`` (float32, the pieces named in ``self.dict``) with what ``player`` sees."""
        self.tensor.fill(0)
        s = state._s
        d = self.dict
        d["player"][player] = 1
        if "hand" in d:
            d["hand"][:] = s[E.S_HAND + E.NCH * player:E.S_HAND + E.NCH * (player + 1)]
        if "events" in d:
            toks = self.tokens(state, player)
            d["events"][:len(toks)] = np.asarray(toks, dtype=np.float32) + 1
            return
        if "phase" not in d:
            return
        d["phase"][s[E.S_PHASE]] = 1
        for name, idx in (("actor", E.S_ACTOR), ("cursor", E.S_CURSOR), ("target", E.S_TARGET),
                          ("challenger", E.S_CHALLENGER), ("blocker", E.S_BLOCKER)):
            if s[idx] >= 0 and not (name == "cursor" and (s[E.S_PHASE] <= E.PH_CHOOSE
                                                          or s[E.S_PHASE] >= E.PH_EVENT_DEAL)):
                d[name][s[idx]] = 1
        if s[E.S_ACTION] >= 0:
            d["action"][E.KIND_SLOT[s[E.S_ACTION]]] = 1  # a Vengeance shows as Assassinate
        if s[E.S_BLOCK_CHAR] >= 0:
            d["block"][s[E.S_BLOCK_CHAR]] = 1
        d["turn"][0] = s[E.S_TURN]
        n = self.n
        d["coins"][:] = s[E.S_COINS:E.S_COINS + n]
        d["influence"][:] = state.influence
        d["face_up"][:] = np.asarray(s[E.S_FACEUP:E.S_FACEUP + E.NCH * n]).reshape(n, E.NCH)
        d["deck"][0] = sum(s[E.S_DECK:E.S_DECK + E.NCH])
        if "exchange" in d and s[E.S_PHASE] == E.PH_KEEP and s[E.S_ACTOR] == player:
            d["exchange"][:] = s[E.S_POOL:E.S_POOL + E.NCH]

    def string_from(self, state: CoupState, player: int) -> str:
        """What ``player`` sees as a string: their token sequence (perfect recall) or the current state."""
        s = state._s
        if self.perfect_recall:
            head = f"p{player}"
            pay = state._pkey[E.P_BUYOUT]
            return head + ": " + "; ".join(token_name(t, pay) for t in self.tokens(state, player))
        parts = [f"p{player}"]
        if self.private == pyspiel.PrivateInfoType.SINGLE_PLAYER:
            parts.append("hand " + ("+".join(state.hand(player)) or "-"))
            if s[E.S_PHASE] == E.PH_KEEP and s[E.S_ACTOR] == player:
                parts.append("drew " + ("+".join(state._cards(E.S_POOL, 0)) or "-"))
            mine = state.marks(E.LOC_HAND + player) + state.marks(E.LOC_POOL) * (
                s[E.S_PHASE] == E.PH_KEEP and s[E.S_ACTOR] == player)
            if mine:
                parts.append("marked " + ", ".join(mine))
            ph = s[E.S_PHASE]
            parts.append(f"turn {s[E.S_TURN]}")
            parts.append(E.PHASE_NAMES[ph])
            if s[E.S_ACTION] >= 0:
                parts.append(declared_name(s))
            if s[E.S_BLOCKER] >= 0:
                parts.append(f"p{s[E.S_BLOCKER]} Block {CHARACTERS[s[E.S_BLOCK_CHAR]]}")
            if s[E.S_CHALLENGER] >= 0:
                parts.append(f"p{s[E.S_CHALLENGER]} challenged")
            who = state.current_player()
            if who >= 0:
                parts.append(f"p{who} to act")
            parts.append("coins " + " ".join(map(str, state.coins)))
            parts.append("face up " + " ".join("+".join(u) or "-" for u in state.face_up))
            r = state.get_game().rules
            if r.factions:
                parts.append("factions " + " ".join(state.factions))
            if r.event_mat:
                parts.append("event mat flipped " + ("+".join(state.event_flipped) or "-"))
            if r.marked_cards:
                up = [f"p{p} {m}" for p in range(self.n) for m in state.marks(E.LOC_FACEUP + p)]
                up += state.marks(E.LOC_EVENT_UP)
                if up:
                    parts.append("marked face up " + ", ".join(up))
        return " | ".join(parts)
