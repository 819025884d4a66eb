"""What each player of the OpenSpiel game sees: observation and information-state strings and tensors.

:class:`CoupObserver` is the game's PyObserver (``CoupGame.make_py_observer``, so also
``pyspiel.make_observation``); it alone decides what a player sees, from the engine's event tokens
(perfect recall) or the current engine state, and it honours OpenSpiel's ``IIGObservationType``:

- ``public_info``: whether the public part is shown (public events and public state);
- ``private_info``: ``NONE`` shows nothing private, ``SINGLE_PLAYER`` the observing seat's own private
  state, ``ALL_PLAYERS`` every seat's private state (then the view is the same for every observer);
- ``perfect_recall``: the whole sequence of those observations (events), or only the current state.

The default information state (``information_state_string/tensor``) is perfect recall, public and
``SINGLE_PLAYER``; the default observation (``observation_string/tensor``) the same without perfect recall.
Public information alone (``private_info=NONE``) is the same for every observer, and with perfect recall it
is the public-observation history a public-tree solver groups histories by.

Tensor layout (``observer.dict`` names every piece; pieces appear in this order, only when listed)
---------------------------------------------------------------------------------------------------
``n`` is the number of seats, ``C = 5`` the characters (index as ``rules.CHARACTERS``), float32 throughout.

Always when ``private_info`` is ``SINGLE_PLAYER``: ``player`` [n], one-hot seat of the observer.

Private pieces (``SINGLE_PLAYER``: the observer's; ``ALL_PLAYERS``: every seat's):

- ``hand`` [C] (``SINGLE_PLAYER``) or ``hands`` [n, C] (``ALL_PLAYERS``): face-down cards, counts by
  character.
- without perfect recall: ``exchange`` [C], the cards drawn by an Exchange while their drawer decides
  what to keep (``SINGLE_PLAYER``: only when the observer is that drawer); with ``marked_cards``:
  ``marked`` [3] (``SINGLE_PLAYER``: 1 when marked card k -- 0 Inheritance, 1 Vengeance, 2 Treaty -- is
  face down in the observer's hand or Exchange draw) or [3, n] (``ALL_PLAYERS``: [k, p] = 1 when it is in
  seat p's hand or Exchange draw).

Perfect recall (any piece shown at all): ``events`` [L, n + NUM_CODES], one row per observed event in
order, rows past the last event all zero. An event's token is ``(seat + 1) * TOKEN_SEAT + code``
(:mod:`coupsolve.engine.tables`); its row has a 1 at column ``seat`` (the seat the event is about; 0 for the
starting-seat draw) and a 1 at column ``n + code``, ``code < NUM_CODES = CODE_HIDDEN_MARKS + 1`` (codes
below ``CODE_DEAL`` are action ids, the others the ``CODE_*`` constants). Which token a row holds follows
the rules of "What each player sees" in docs/rules.md: the private token for the seat(s) whose private
info is shown, the public token for the others when public info is shown. ``L = max_events`` is
``engine.game_bounds(...)[1]``, the bound on a game's events (``max_game_length`` plus challenge outcomes),
so the size is exact for every parameter setting.

Public pieces without perfect recall (``public_info`` True):

- ``phase`` [18] one-hot of the engine phase (``engine.NUM_PHASES``, ``tables.PH_*``); ``actor``,
  ``cursor``, ``target``, ``challenger``, ``blocker`` [n each] one-hot seats (all zero when none; the
  cursor is the seat deciding in a round, choosing or being dealt to in the setup, and is left zero at the
  other chance nodes); ``to_act`` [n] one-hot of the seat to act (all zero at chance and terminal
  nodes); ``action`` [7] one-hot of the declared action's kind
  (``tables.KIND_NAMES``: Income, Foreign Aid, Tax, Exchange, Coup, Assassinate, Steal; a Vengeance shows
  as Assassinate); ``block`` [C] one-hot of the character claimed by a block; ``turn`` [1];
  ``coins`` [n]; ``influence`` [n] face-down counts; ``face_up`` [n, C] counts; ``deck`` [1] the number of
  cards in the Court deck.
- ``factions`` [n] (only with ``factions``): 1 when the seat's faction marker is Down, 0 when Up.
- ``event_flipped`` [C] (only with ``event_mat``): the event-mat cards turned face up, counts.
- ``marked_face_up`` [3, n + 1] (only with ``marked_cards``): [k, p] = 1 when marked card k is face up
  in front of seat p, [k, n] = 1 when it was flipped on the event mat.
"""

from __future__ import annotations

import numpy as np
import pyspiel

from coupsolve import engine as E
from coupsolve.names import declared_name, token_name
from coupsolve.rules import CHARACTERS

NUM_CODES = E.CODE_HIDDEN_MARKS + 1  # the observation codes, 0 to CODE_HIDDEN_MARKS
_SINGLE = pyspiel.PrivateInfoType.SINGLE_PLAYER
_ALL = pyspiel.PrivateInfoType.ALL_PLAYERS
_SEATS = ("actor", E.S_ACTOR), ("cursor", E.S_CURSOR), ("target", E.S_TARGET), \
    ("challenger", E.S_CHALLENGER), ("blocker", E.S_BLOCKER)


def observed_tokens(events, player: int, public: bool, private) -> list[int]:
    """The tokens of ``events`` an observer sees, in order.

    Parameters
    ----------
    events : sequence of (owner, private token, public token)
        The state's events (``CoupState.events``); owner -1 for a public event.
    player : int
        The observing seat (matters only for ``SINGLE_PLAYER``).
    public : bool
        Whether public tokens are shown (public events, and the public side of others' private events).
    private : pyspiel.PrivateInfoType
        Whose private tokens are shown: nobody's, ``player``'s, or every seat's.
    """
    out = []
    for owner, mine, theirs in events:
        if owner >= 0 and (private == _ALL or (private == _SINGLE and owner == player)):
            out.append(mine)
        elif public:
            out.append(theirs)
    return out


def _pieces(game: pyspiel.Game, perfect_recall: bool, public: bool, private) -> list[tuple[str, tuple]]:
    """The named tensor pieces (name, shape) of an observation type, in the module docstring's order."""
    n, r = game.rules.players, game.rules
    pieces = []
    if private == _SINGLE:
        pieces += [("player", (n,)), ("hand", (E.NCH,))]
    elif private == _ALL:
        pieces.append(("hands", (n, E.NCH)))
    if perfect_recall:
        if public or private in (_SINGLE, _ALL):
            pieces.append(("events", (game.max_events, n + NUM_CODES)))
        return pieces
    if private in (_SINGLE, _ALL):
        pieces.append(("exchange", (E.NCH,)))
        if r.marked_cards:
            pieces.append(("marked", (3,) if private == _SINGLE else (3, n)))
    if public:
        pieces += [("phase", (E.NUM_PHASES,))] + [(name, (n,)) for name, _ in _SEATS] + [("to_act", (n,))]
        pieces += [("action", (len(E.KIND_NAMES),)), ("block", (E.NCH,)), ("turn", (1,)), ("coins", (n,)),
                   ("influence", (n,)), ("face_up", (n, E.NCH)), ("deck", (1,))]
        if r.factions:
            pieces.append(("factions", (n,)))
        if r.event_mat:
            pieces.append(("event_flipped", (E.NCH,)))
        if r.marked_cards:
            pieces.append(("marked_face_up", (3, n + 1)))
    return pieces


# phases whose S_CURSOR is stale (chance draws after the setup): the cursor piece is left zero there
_NO_CURSOR = (E.PH_START_SEAT, E.PH_REPLACE, E.PH_EXCHANGE_DRAW, E.PH_EVENT_DEAL, E.PH_FLIP)


def _drawer(s) -> int:
    """The seat deciding what to keep of an Exchange draw (-1 when nobody is)."""
    return s[E.S_ACTOR] if s[E.S_PHASE] == E.PH_KEEP else -1


class CoupObserver:
    """Observation strings and tensors of one ``pyspiel.IIGObservationType`` (PyObserver interface).

    Parameters
    ----------
    iig_obs_type : pyspiel.IIGObservationType
        What to show: ``perfect_recall``, ``public_info`` and ``private_info`` (module docstring).
    game : CoupGame
        The game; its rules decide the seats and the variants' pieces.
    """

    def __init__(self, iig_obs_type, game: pyspiel.Game):
        self.n = game.rules.players
        self.rules = game.rules
        self.perfect_recall = iig_obs_type.perfect_recall
        self.public = iig_obs_type.public_info
        self.private = iig_obs_type.private_info
        pieces = _pieces(game, self.perfect_recall, self.public, self.private)
        sizes = [int(np.prod(shape)) for _, shape in pieces]
        self.tensor = np.zeros(sum(sizes), np.float32)
        self.dict = {}
        i = 0
        for (name, shape), k in zip(pieces, sizes):
            self.dict[name] = self.tensor[i:i + k].reshape(shape)
            i += k

    def tokens(self, state: pyspiel.State, player: int) -> list[int]:
        """The observation tokens ``player`` has seen, in order (their perfect-recall sequence).

        Parameters
        ----------
        state : CoupState
            The state whose events are read.
        player : int
            The observing seat.
        """
        return observed_tokens(state.events, player, self.public, self.private)

    def set_from(self, state: pyspiel.State, player: int):
        """Fill ``self.tensor`` (float32, the pieces named in ``self.dict``) with what ``player`` sees.

        Parameters
        ----------
        state : CoupState
            The state to observe.
        player : int
            The observing seat (with ``NONE`` or ``ALL_PLAYERS`` the tensor does not depend on it).
        """
        self.tensor.fill(0)
        s = state._s
        d = self.dict
        if "player" in d:
            d["player"][player] = 1
        if "hand" in d:
            d["hand"][:] = s[E.S_HAND + E.NCH * player:E.S_HAND + E.NCH * (player + 1)]
        if "hands" in d:
            d["hands"][:] = np.asarray(s[E.S_HAND:E.S_HAND + E.NCH * self.n]).reshape(self.n, E.NCH)
        if "events" in d:
            toks = np.asarray(self.tokens(state, player), dtype=np.int64)
            rows = np.arange(len(toks))
            d["events"][rows, toks // E.TOKEN_SEAT - 1] = 1
            d["events"][rows, self.n + toks % E.TOKEN_SEAT] = 1
        if "exchange" in d:
            self._set_private(s, player)
        if "phase" in d:
            self._set_public(state)

    def _set_private(self, s, player: int):
        """The current private pieces: the Exchange draw and the marked cards face down."""
        d = self.dict
        drawer = _drawer(s)
        everyone = self.private == _ALL
        if drawer >= 0 and (everyone or drawer == player):
            d["exchange"][:] = s[E.S_POOL:E.S_POOL + E.NCH]
        if "marked" in d:
            for k in range(3):
                loc = s[E.S_MARK + k]
                seat = loc - E.LOC_HAND if E.LOC_HAND <= loc < E.LOC_FACEUP else -1
                if loc == E.LOC_POOL:
                    seat = drawer
                if seat >= 0 and everyone:
                    d["marked"][k, seat] = 1
                elif seat >= 0 and seat == player:
                    d["marked"][k] = 1

    def _set_public(self, state: pyspiel.State):
        """The current public pieces, the variants' state included."""
        s, d, n = state._s, self.dict, self.n
        d["phase"][s[E.S_PHASE]] = 1
        for name, idx in _SEATS:
            if s[idx] >= 0 and not (name == "cursor" and s[E.S_PHASE] in _NO_CURSOR):
                d[name][s[idx]] = 1
        who = state.current_player()
        if who >= 0:
            d["to_act"][who] = 1
        if s[E.S_ACTION] >= 0:
            d["action"][E.KIND_SLOT[s[E.S_ACTION]]] = 1  # a Vengeance shows as Assassinate
        if s[E.S_BLOCK_CHAR] >= 0:
            d["block"][s[E.S_BLOCK_CHAR]] = 1
        d["turn"][0] = s[E.S_TURN]
        d["coins"][:] = s[E.S_COINS:E.S_COINS + n]
        d["influence"][:] = state.influence
        d["face_up"][:] = np.asarray(s[E.S_FACEUP:E.S_FACEUP + E.NCH * n]).reshape(n, E.NCH)
        d["deck"][0] = sum(s[E.S_DECK:E.S_DECK + E.NCH])
        if "factions" in d:
            d["factions"][:] = [(s[E.S_FACTIONS] >> p) & 1 for p in range(n)]
        if "event_flipped" in d:
            d["event_flipped"][:] = s[E.S_EVENT_UP:E.S_EVENT_UP + E.NCH]
        if "marked_face_up" in d:
            for k in range(3):
                loc = s[E.S_MARK + k]
                if E.LOC_FACEUP <= loc < E.LOC_FACEUP + n:
                    d["marked_face_up"][k, loc - E.LOC_FACEUP] = 1
                elif loc == E.LOC_EVENT_UP:
                    d["marked_face_up"][k, n] = 1

    def string_from(self, state: pyspiel.State, player: int) -> str:
        """What ``player`` sees as a string: their token sequence (perfect recall) or the current state.

        With perfect recall, ``'p0: '`` (``SINGLE_PLAYER`` only) and the observed events joined by
        ``'; '``; otherwise ``' | '``-separated parts: ``p0`` and the observer's private parts
        (``SINGLE_PLAYER``) or every seat's private parts prefixed by the seat (``ALL_PLAYERS``), then
        the public parts (``public_info``).

        Parameters
        ----------
        state : CoupState
            The state to observe.
        player : int
            The observing seat (with ``NONE`` or ``ALL_PLAYERS`` the string does not depend on it).
        """
        if self.perfect_recall:
            pay = state._pkey[E.P_BUYOUT]
            body = "; ".join(token_name(t, pay) for t in self.tokens(state, player))
            return f"p{player}: {body}" if self.private == _SINGLE else body
        parts = []
        if self.private == _SINGLE:
            parts += [f"p{player}"] + _private_parts(state, player)
        elif self.private == _ALL:
            parts += [f"p{q} {part}" for q in range(self.n) for part in _private_parts(state, q)]
        if self.public:
            parts += _public_parts(state, self.n)
        return " | ".join(parts)


def _private_parts(state: pyspiel.State, seat: int) -> list[str]:
    """The private parts of the observation string of ``seat``: hand, Exchange draw, marked cards."""
    s = state._s
    keeping = _drawer(s) == seat
    parts = ["hand " + ("+".join(state.hand(seat)) or "-")]
    if keeping:
        parts.append("drew " + ("+".join(state._cards(E.S_POOL, 0)) or "-"))
    mine = state.marks(E.LOC_HAND + seat) + state.marks(E.LOC_POOL) * keeping
    if mine:
        parts.append("marked " + ", ".join(mine))
    return parts


def _public_parts(state: pyspiel.State, n: int) -> list[str]:
    """The public parts of an observation string: the turn, the round, coins, face-up cards, variants."""
    s = state._s
    parts = [f"turn {s[E.S_TURN]}", E.PHASE_NAMES[s[E.S_PHASE]]]
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
    parts.append("face down " + " ".join(map(str, state.influence)))
    parts.append("face up " + " ".join("+".join(u) or "-" for u in state.face_up))
    r = state.get_game().rules
    if r.factions:
        parts.append("factions " + " ".join(state.factions))
    if r.event_mat:
        parts.append("event mat flipped " + ("+".join(state.event_flipped) or "-"))
    if r.marked_cards:
        up = [f"p{p} {m}" for p in range(n) for m in state.marks(E.LOC_FACEUP + p)]
        up += state.marks(E.LOC_EVENT_UP)
        if up:
            parts.append("marked face up " + ", ".join(up))
    return parts
