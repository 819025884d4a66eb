"""Coup as an OpenSpiel game (``python_coup``): a thin adapter over :mod:`coupsolve.engine`.

Importing :mod:`coupsolve` registers the game, so ``pyspiel.load_game("python_coup(players=3)")``
works, and :func:`load_game` builds it from a :class:`~coupsolve.Rules`. The parameters are exactly the
option names of ``docs/rules.md`` (and of ``Rules``). A ``State`` holds only a tuple of small integers (the
engine state) and a tuple of observation events, so OpenSpiel's deep-copy clone is cheap.

The observer (what each player sees, as strings and tensors) is :mod:`coupsolve.openspiel.observer`.
"""

from __future__ import annotations

import re

import numpy as np
import pyspiel

from coupsolve import engine as E
from coupsolve.names import action_name, all_action_names, canonical_name, card_name, chance_name, declared_name
from coupsolve.openspiel.observer import CoupObserver
from coupsolve.rules import CHARACTERS, GAME_NAME, GAME_PARAMETERS, Rules

SHORT_NAME = GAME_NAME

_PARAMETERS = GAME_PARAMETERS

_GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Python Coup",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=E.MAXP,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=_PARAMETERS,
)


def rules_from_params(params: dict) -> Rules:
    """A ``Rules`` from OpenSpiel parameters (unknown names and bad values raise ValueError)."""
    unknown = sorted(set(params) - set(_PARAMETERS))
    if unknown:
        raise ValueError(f"python_coup: unknown parameter(s) {', '.join(unknown)}; the parameters are "
                         f"{', '.join(_PARAMETERS)}")
    kw = {k: v for k, v in params.items()}
    if "starting_seat" in kw:
        kw["starting_seat"] = str(kw["starting_seat"])
    if kw.get("starting_coins", None) in ("", None):
        kw.pop("starting_coins", None)
    elif not isinstance(kw["starting_coins"], str):
        kw["starting_coins"] = str(kw["starting_coins"])
    return Rules(**kw)


# Scratch buffers shared by every state (the engine fills them; nothing is kept between calls).
_EV = np.zeros((E.MAX_EVENTS_PER_STEP, 3), dtype=np.int32)
_BUF = np.zeros(E.MAX_MOVES, dtype=np.int32)
_PROB = np.zeros(E.MAX_MOVES, dtype=np.float64)
_RET = np.zeros(E.MAXP, dtype=np.float64)
_PARAMS: dict[tuple, np.ndarray] = {}


def _params_array(key: tuple) -> np.ndarray:
    arr = _PARAMS.get(key)
    if arr is None:
        arr = _PARAMS[key] = np.asarray(key, dtype=np.int32)
    return arr


class CoupGame(pyspiel.Game):
    """Coup for OpenSpiel; ``game.rules`` is its :class:`~coupsolve.Rules`."""

    def __init__(self, params=None):
        params = dict(params or {})
        rules = rules_from_params(params)
        info = pyspiel.GameInfo(
            num_distinct_actions=E.NUM_ACTIONS,
            max_chance_outcomes=E.NUM_CHANCE_OUTCOMES,
            num_players=rules.players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=E.game_bounds(rules.params())[0],
        )
        full = dict(_PARAMETERS)
        full.update(params)
        super().__init__(_GAME_TYPE, info, full)

    # Derived lazily from the game's parameters: an unpickled game is rebuilt without __init__.
    @property
    def rules(self) -> Rules:
        if "_rules" not in self.__dict__:
            self._rules = rules_from_params(self.get_parameters())
        return self._rules

    @property
    def _pkey(self) -> tuple:
        if "_pkey_" not in self.__dict__:
            self._pkey_ = tuple(int(x) for x in self.rules.params())
        return self._pkey_

    @property
    def max_events(self) -> int:
        return E.game_bounds(self._pkey)[1]

    def new_initial_state(self):
        return CoupState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        """The observer of an observation type (what ``make_observation`` and the default strings and
        tensors use); the tensor sizes OpenSpiel reports come from it (layout in :mod:`coupsolve.openspiel.observer`).

        Parameters
        ----------
        iig_obs_type : pyspiel.IIGObservationType, optional
            What to show; default the observation (public and the player's own private state, no recall).
        params : dict, optional
            Must be empty: the observer takes no parameters.
        """
        if params:
            raise ValueError(f"python_coup observers take no parameters; got {params}")
        return CoupObserver(iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), self)


class CoupState(pyspiel.State):
    """A Coup state: the engine's integer state plus the observation events so far."""

    def __init__(self, game):
        super().__init__(game)
        self._pkey = game._pkey
        s = np.zeros(E.S_SIZE, dtype=np.int32)
        ne = E.initial_state(_params_array(self._pkey), s, _EV, _BUF, _PROB)
        self._s = tuple(s.tolist())
        self._events = tuple(tuple(row) for row in _EV[:ne].tolist())

    # ---- engine access ----------------------------------------------------------------------------
    @property
    def params(self) -> np.ndarray:
        return _params_array(self._pkey)

    def engine_state(self) -> np.ndarray:
        """A fresh int32 copy of the engine state (layout in :mod:`coupsolve.engine.tables`)."""
        return np.asarray(self._s, dtype=np.int32)

    @property
    def events(self) -> tuple:
        """The observation events so far: tuples (owner or -1, private token, public token)."""
        return self._events

    @property
    def num_players_(self) -> int:
        return self._pkey[E.P_PLAYERS]

    @property
    def coins(self) -> list[int]:
        return list(self._s[E.S_COINS:E.S_COINS + self.num_players_])

    @property
    def influence(self) -> list[int]:
        """Face-down cards per seat."""
        s = self._s
        return [sum(s[E.S_HAND + E.NCH * p:E.S_HAND + E.NCH * (p + 1)]) for p in range(self.num_players_)]

    @property
    def face_up(self) -> list[list[str]]:
        """Per seat, the names of the characters turned face up (canonical order)."""
        return [self._cards(E.S_FACEUP, p) for p in range(self.num_players_)]

    def hand(self, player: int) -> list[str]:
        """The face-down cards of a seat (omniscient: for tests, logs and the debug table)."""
        return self._cards(E.S_HAND, player)

    @property
    def turn(self) -> int:
        return self._s[E.S_TURN]

    @property
    def phase(self) -> int:
        return self._s[E.S_PHASE]

    def _cards(self, base: int, p: int) -> list[str]:
        counts = self._s[base + E.NCH * p:base + E.NCH * (p + 1)]
        return [CHARACTERS[c] for c in range(E.NCH) for _ in range(counts[c])]

    # ---- OpenSpiel API ----------------------------------------------------------------------------
    def current_player(self):
        return int(E.current_player(self.engine_state()))

    def _legal_actions(self, player):
        s = self.engine_state()
        if E.current_player(s) != player:
            return []
        k = E.legal_actions(self.params, s, _BUF)
        return _BUF[:k].tolist()

    def chance_outcomes(self):
        s = self.engine_state()
        if not E.is_chance(s):
            raise ValueError("chance_outcomes() called at a node that is not a chance node")
        k = E.chance_outcomes(self.params, s, _BUF, _PROB)
        return list(zip(_BUF[:k].tolist(), _PROB[:k].tolist()))

    def _apply_action(self, action):
        s = self.engine_state()
        if E.is_terminal(s):
            raise ValueError(f"cannot apply action {action}: the game is over")
        if E.is_chance(s):
            legal = [a for a, _ in self.chance_outcomes()]
        else:
            legal = self._legal_actions(self.current_player())
        if action not in legal:
            player = self.current_player()
            names = ", ".join(self._action_to_string(player, a) for a in legal)
            try:
                what = self._action_to_string(player, action)
            except ValueError:
                what = str(action)
            raise ValueError(f"illegal action {what!r} ({action}) for "
                             f"{'chance' if player < 0 else f'p{player}'}; legal: {names}")
        ne = E.apply(self.params, s, int(action), _EV, 0, _BUF, _PROB)
        self._s = tuple(s.tolist())
        self._events = self._events + tuple(tuple(row) for row in _EV[:ne].tolist())

    def apply_action_name(self, name: str) -> None:
        """Apply an action given by its name in docs/rules.md ('Steal p1', 'Pass', 'Draw Duke', ...)."""
        player = self.current_player()
        if self.is_terminal():
            raise ValueError(f"cannot apply {name!r}: the game is over")
        legal = ([a for a, _ in self.chance_outcomes()] if self.is_chance_node()
                 else self._legal_actions(player))
        by_name = {self._action_to_string(player, a): a for a in legal}
        name = canonical_name(name)
        if name not in by_name:
            lower = {k.lower(): k for k in by_name}
            name = lower.get(name.lower(), name)
        if name not in by_name:
            known = (name in all_action_names(self._pkey[E.P_BUYOUT])
                     or name.startswith(("Deal ", "Draw ", "Start ", "Flip ", "Events ")))
            why = "not legal here" if known else "not an action name"
            raise ValueError(f"{name!r} is {why}; legal: {', '.join(by_name)}")
        self.apply_action(by_name[name])

    def _action_to_string(self, player, action):
        if player == pyspiel.PlayerId.CHANCE or (player < 0 and self.is_chance_node()):
            return chance_name(action, self._s[E.S_PHASE])
        return action_name(action, self._pkey[E.P_BUYOUT])

    def is_terminal(self):
        return self._s[E.S_PHASE] == E.PH_TERMINAL

    def returns(self):
        E.returns(self.params, self.engine_state(), _RET)
        return _RET[:self.num_players_].tolist()

    def __str__(self):
        s = self._s
        n = self.num_players_
        r = self.get_game().rules
        lines = []
        ph = s[E.S_PHASE]
        if ph == E.PH_TERMINAL:
            w = s[E.S_WINNER]
            head = f"game over after turn {s[E.S_TURN]}: " + (f"p{w} wins" if w >= 0 else "turn limit")
        else:
            who = self.current_player()
            head = (f"turn {s[E.S_TURN]}/{r.turn_limit}, "
                    f"{'chance' if who < 0 else f'p{who}'} to act: {E.PHASE_NAMES[ph]}")
            if s[E.S_ACTION] >= 0:
                head += f" ({declared_name(s)}"
                if s[E.S_BLOCKER] >= 0:
                    head += f", blocked by p{s[E.S_BLOCKER]} with {CHARACTERS[s[E.S_BLOCK_CHAR]]}"
                head += ")"
        lines.append(head)
        lines.append(f"{'seat':<5} {'coins':>5}  {'face down':<22} face up")
        for p in range(n):
            down = "+".join(self.hand(p)) or "-"
            up = "+".join(self._cards(E.S_FACEUP, p)) or "-"
            lines.append(f"p{p:<4} {s[E.S_COINS + p]:>5}  {down:<22} {up}")
        deck = "+".join(self._cards(E.S_DECK, 0)) or "-"
        lines.append(f"court deck: {deck}")
        out = "+".join(self._cards(E.S_OUT, 0))
        if out:
            lines.append(f"out of the game: {out}")
        if r.event_mat:
            lines.append(f"event mat: face down {'+'.join(self._cards(E.S_EVENT, 0)) or '-'}, "
                         f"flipped {'+'.join(self.event_flipped) or '-'}")
        if r.factions:
            lines.append("factions: " + " ".join(f"p{p} {f}" for p, f in enumerate(self.factions)))
        if r.marked_cards:
            where = {E.LOC_DECK: "court deck", E.LOC_POOL: "exchange draw", E.LOC_EVENT: "event mat",
                     E.LOC_EVENT_UP: "event mat (flipped)"}
            where.update({E.LOC_HAND + p: f"p{p} face down" for p in range(n)})
            where.update({E.LOC_FACEUP + p: f"p{p} face up" for p in range(n)})
            lines.append("marked: " + ", ".join(
                f"{E.MARK_NAMES[k]} {where[s[E.S_MARK + k]]}" for k in range(3) if s[E.S_MARK + k] >= 0))
        return "\n".join(lines)

    def marks(self, loc: int) -> list[str]:
        """The marked cards at an engine location (``engine.LOC_*``), named 'Ambassador (Inheritance)'."""
        return [card_name(int(E.MARK_CHAR[k]), True) for k in range(3) if self._s[E.S_MARK + k] == loc]

    @property
    def event_flipped(self) -> list[str]:
        """The event-mat cards turned face up so far (canonical order)."""
        return self._cards(E.S_EVENT_UP, 0)

    @property
    def factions(self) -> list[str]:
        """Each seat's faction marker, 'Up' or 'Down' (Factions variant)."""
        return ["Down" if (self._s[E.S_FACTIONS] >> p) & 1 else "Up" for p in range(self.num_players_)]


def parse_game_string(text: str) -> dict:
    """The parameters of a ``python_coup(...)`` game string, as ``rules_from_params`` takes them.

    Numbers of any size are Python ints and ``True``/``False`` bools, so a value OpenSpiel's own parser
    cannot hold (``turn_limit=3000000000``) reaches the ``Rules`` range check instead of a CHECK failure.
    A parameter given twice is refused: OpenSpiel's parser keeps the last one silently.
    """
    match = re.fullmatch(rf"\s*{SHORT_NAME}\s*(?:\((.*)\))?\s*", text, flags=re.S)
    if match is None:
        raise ValueError(f"not a {SHORT_NAME} game string: {text!r}; for example {SHORT_NAME}(players=3)")
    params = {}
    for item in filter(str.strip, (match.group(1) or "").split(",")):
        name, sep, value = (part.strip() for part in item.partition("="))
        if not sep or not name:
            raise ValueError(f"game string {text!r}: {item.strip()!r} is not name=value")
        if name in params:
            raise ValueError(f"game string {text!r}: {name} is given more than once")
        params[name] = (int(value) if re.fullmatch(r"[+-]?[0-9]+", value)
                        else value == "True" if value in ("True", "False") else value)
    return params


def load_game(rules: Rules | str | None = None, **options) -> CoupGame:
    """The OpenSpiel game for a :class:`Rules`, for keyword options of ``Rules`` (which change ``rules``
    when both are given), or for a ``python_coup(...)`` game string.

    Every value is checked by ``Rules`` before OpenSpiel sees it: a bad one raises a one-line
    ``ValueError`` naming the option and its range (:data:`coupsolve.rules.RANGES`), and an unknown name
    one listing the valid names.
    """
    if isinstance(rules, str):
        rules = rules_from_params(parse_game_string(rules))
    if rules is None:
        rules = Rules.from_dict(options)
    elif options:
        rules = Rules.from_dict({**rules.to_dict(), **options})
    return pyspiel.load_game(SHORT_NAME, rules.game_params())


pyspiel.register_game(_GAME_TYPE, CoupGame)
