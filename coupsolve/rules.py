"""The rules configuration of Coup: one frozen, validated ``Rules`` object.

Every option of the rules (``docs/rules.md``) is a field here, named exactly as there; the
OpenSpiel game takes the same names as parameters. ``Rules.params()`` packs a configuration into the
small integer vector that the compiled engine reads (layout in :mod:`coupsolve.engine.tables`).

Options that the rules reference marks as options but does not name (the costs of Coup and Assassinate
and the forced-Coup threshold) are the fields ``coup_cost``, ``assassinate_cost`` and ``forced_coup``.
"""

from __future__ import annotations

import dataclasses
import json
import re
from typing import Any, Mapping

import numpy as np

from coupsolve.engine import tables

CHARACTERS = ("Duke", "Assassin", "Captain", "Ambassador", "Contessa")
MAX_PLAYERS = tables.MAXP
SETUPS = ("standard", "selection")
LIMIT_PAYOFFS = ("draw", "influence")
# The packed node context holds the turn in 14 bits (tables.CTX_TURN): 10000 fits.
MAX_TURN_LIMIT = 10_000
# Every chance weight is a whole count of draws below 2**53 (at most the event mat's C(deck, 4) times the
# deck, deck = 5 * copies = 500), so each probability is the exact ratio rounded once.
MAX_COPIES = 100
# Starting coins, costs, the forced-Coup threshold, bounty and buyout. A turn gains at most four
# bounties (the challenges of the action, of a block, of a Treaty and of a Vengeance's block) and 10
# coins besides, so no coin count, nor their sum, comes near the engine's 32-bit integers.
MAX_COINS = 1_000
assert MAX_PLAYERS * MAX_COINS + MAX_TURN_LIMIT * (4 * MAX_COINS + 10) < 2**31 // 16


@dataclasses.dataclass(frozen=True)
class FieldRange:
    """The values one ``Rules`` field accepts: whole numbers ``lo`` to ``hi`` (when ``lo`` is set), the
    words of ``choices``, and what ``note`` adds (a rule across fields, the forms a value may take)."""

    lo: int | None = None
    hi: int | None = None
    choices: tuple = ()
    note: str = ""

    def describe(self) -> str:
        """The range in words, as the error messages and the ``Rules`` docstring give it."""
        parts = [f"a whole number from {self.lo} to {self.hi}"] if self.lo is not None else []
        words = [str(c).lower() if isinstance(c, bool) else repr(c) for c in self.choices]
        if words:
            parts.append(words[0] if len(words) == 1 else "one of " + ", ".join(words))
        return " or ".join(parts) + (f" ({self.note})" if self.note else "")


_FLAG = FieldRange(choices=(False, True), note="also 0/1 and the strings 'true'/'false'")
_COINS = FieldRange(0, MAX_COINS)
# The one table of every field's range: the validation, its error messages and the docstring read it.
RANGES: dict[str, FieldRange] = {
    "players": FieldRange(2, MAX_PLAYERS),
    "setup": FieldRange(choices=SETUPS, note="selection: 2 players, 3 copies, at least 2 characters"),
    "turn_limit": FieldRange(1, MAX_TURN_LIMIT),
    "limit_payoff": FieldRange(choices=LIMIT_PAYOFFS),
    "starting_seat": FieldRange(0, MAX_PLAYERS - 1, ("random",), "below players; 'p1' or '1' is seat 1"),
    "starting_coins": FieldRange(0, MAX_COINS, note="each value; 1 to players values as a number, a "
                                 "tuple or a list '0,1' or '0;1'; None for the printed rule"),
    "characters": FieldRange(choices=CHARACTERS, note="a non-empty set of them, a tuple or 'Duke+Captain'"),
    "copies": FieldRange(1, MAX_COPIES, note="enough to deal 2 cards a seat and the event mat's cards"),
    "coup_cost": _COINS,
    "assassinate_cost": _COINS,
    "forced_coup": FieldRange(0, MAX_COINS, note="at least coup_cost"),
    "selective_coup": _FLAG,
    "contessa_blocks_tax": _FLAG,
    "factions": _FLAG,
    "ambassador_halves_steal": _FLAG,
    "challenge_bounty": FieldRange(0, MAX_COINS, note="0 is off"),
    "challenge_buyout": FieldRange(0, MAX_COINS, note="0 is off"),
    "marked_cards": _FLAG,
    "event_mat": FieldRange(choices=(False, True), note=_FLAG.note + "; standard setup only"),
    "decline_proof": _FLAG,
}


def _refuse(name, value, why=""):
    """The one-line ValueError for a value outside ``RANGES[name]``."""
    return ValueError(f"{name}: {why or 'got'} {value!r}; expected {RANGES[name].describe()}")


def _whole(name, value) -> int:
    """``value`` as an int inside ``RANGES[name]`` (bools, floats, even 2.0, and strings are refused)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise _refuse(name, value, "not a whole number:")
    r = RANGES[name]
    if not r.lo <= value <= r.hi:
        raise _refuse(name, int(value), "out of range:")
    return int(value)


def _flag(name, value) -> bool:
    """A true/false field: bools, 0 and 1, and the strings 'true', 'false', '1', '0' (any case)."""
    if isinstance(value, str) and value.lower() in ("true", "false", "1", "0"):
        return value.lower() in ("true", "1")
    if isinstance(value, (bool, np.bool_)) or (isinstance(value, (int, np.integer)) and value in (0, 1)):
        return bool(value)
    raise _refuse(name, value)


def _choice(name, value) -> str:
    if not isinstance(value, str) or value not in RANGES[name].choices:
        raise _refuse(name, value)
    return value


def _seat(value) -> int | str:
    """A seat number, 'p1' or '1' (OpenSpiel game strings type a bare number as int), or 'random'."""
    if isinstance(value, str) and value != "random":
        digits = value.removeprefix("p")
        if not digits.isdecimal():
            raise _refuse("starting_seat", value)
        value = int(digits)
    return value if value == "random" else _whole("starting_seat", value)


def _parse_characters(value) -> tuple[str, ...]:
    if isinstance(value, str):
        names = [v.strip() for v in value.split("+") if v.strip()]
    elif isinstance(value, (tuple, list)):
        names = list(value)
    else:
        raise _refuse("characters", value)
    lookup = {c.lower(): c for c in CHARACTERS}
    out = []
    for name in names:
        if not isinstance(name, str) or name.lower() not in lookup:
            raise _refuse("characters", name, "unknown character")
        canon = lookup[name.lower()]
        if canon in out:
            raise ValueError(f"characters: {canon} is listed twice")
        out.append(canon)
    if not out:
        raise _refuse("characters", value, "no character in")
    return tuple(c for c in CHARACTERS if c in out)  # canonical order


def _parse_coins(value) -> tuple[int, ...]:
    """Starting coins from a number, a sequence of numbers, or a list '1,2' / '1;2' (pieces may be empty)."""
    if isinstance(value, str):
        pieces = [v.strip() for v in re.split(r"[,;]", value) if v.strip()]
        if not all(re.fullmatch(r"[+-]?[0-9]+", v) for v in pieces):
            raise _refuse("starting_coins", value, "not a list of whole numbers:")
        vals = [int(v) for v in pieces]
    elif isinstance(value, (tuple, list, np.ndarray)):
        vals = list(value)
    else:
        vals = [value]
    if not vals:
        raise _refuse("starting_coins", value, "no value in")
    return tuple(_whole("starting_coins", v) for v in vals)


def _spelled(name, v):
    """A rule's value as a game string spells it: the characters joined by '+'; the starting coins by
    ';' (a comma would end the parameter, and a bare number would be typed int, so one value is
    written '2;'; empty: the printed rule, two players 1;2, else 2); the starting seat 'p1' or 'random'
    (a bare '1' would be typed int)."""
    if name == "characters":
        return "+".join(v)
    if name == "starting_coins":
        v = v or ()
        return ";".join(map(str, v)) + (";" if len(v) == 1 else "")
    if name == "starting_seat":
        return v if v == "random" else f"p{v}"
    return v


@dataclasses.dataclass(frozen=True)
class Rules:
    """A complete, validated rules configuration.

    Parameters
    ----------
    players : int
        Number of seats, 2 to 6.
    setup : {'standard', 'selection'}
        'standard' deals two cards to each seat; 'selection' is the two-player card-selection setup.
    turn_limit : int
        The game ends after this many turns (see ``limit_payoff``); at least 1.
    limit_payoff : {'draw', 'influence'}
        What a game that reaches the turn limit pays.
    starting_seat : int or 'random'
        The seat that takes the first turn; 'random' adds a chance node.
    starting_coins : tuple of int or None
        Coins per seat in turn order from the starting seat; the last value repeats. None means the
        printed rule: ``(1, 2)`` with two players, else ``(2,)``.
    characters : tuple of str
        The characters in the deck, any subset of the five (canonical order is kept).
    copies : int
        Copies of each character (3 in the printed game).
    coup_cost, assassinate_cost, forced_coup : int
        Cost of Coup (7), of Assassinate (3), and the coins at the start of a turn that force a Coup (10).
    selective_coup, contessa_blocks_tax, factions : bool
        The condensed rules sheet's variants: Selective Coup (``Coup p1 Duke``), Blocking Contessa (Contessa
        blocks Tax too) and Factions (``Faction Up``/``Faction Down`` at setup, ``Defect``).
    ambassador_halves_steal : bool
        House rule: an Ambassador block reduces a Steal to 1 coin instead of stopping it.
    challenge_bounty, challenge_buyout : int
        House rules, in coins (0 = off): what a challenger takes from the Treasury before the challenge
        is resolved; what the loser of a challenge may pay instead of losing an influence (``Pay 5``).
    marked_cards, event_mat : bool
        House rules: the marked cards (Inheritance, Vengeance, Treaty) and the event mat.
    decline_proof : bool
        A challenged player who holds the character may decline to prove it (``Prove``/``Decline``).
    """

    players: int = 2
    setup: str = "standard"
    turn_limit: int = 100
    limit_payoff: str = "draw"
    starting_seat: int | str = 0
    starting_coins: tuple[int, ...] | None = None
    characters: tuple[str, ...] = CHARACTERS
    copies: int = 3
    coup_cost: int = 7
    assassinate_cost: int = 3
    forced_coup: int = 10
    selective_coup: bool = False
    contessa_blocks_tax: bool = False
    factions: bool = False
    ambassador_halves_steal: bool = False
    challenge_bounty: int = 0
    challenge_buyout: int = 0
    marked_cards: bool = False
    event_mat: bool = False
    decline_proof: bool = False

    def __post_init__(self):
        set_ = lambda k, v: object.__setattr__(self, k, v)  # noqa: E731 (frozen dataclass)
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            r = RANGES[f.name]
            if f.name == "characters":
                value = _parse_characters(value)
            elif f.name == "starting_coins":
                value = None if value is None else _parse_coins(value)
            elif f.name == "starting_seat":
                value = _seat(value)
            elif r.choices == (False, True):
                value = _flag(f.name, value)
            elif r.choices:
                value = _choice(f.name, value)
            else:
                value = _whole(f.name, value)
            set_(f.name, value)
        self._validate()

    def _validate(self):
        """The rules across fields (each field's own range is checked against ``RANGES`` first)."""
        n = self.players
        if self.starting_seat != "random" and not 0 <= self.starting_seat < n:
            raise ValueError(f"starting_seat: seat {self.starting_seat} does not exist with {n} players")
        if self.forced_coup < self.coup_cost:
            raise ValueError(
                f"forced_coup: a player forced to Coup at {self.forced_coup} coins could not pay its cost "
                f"of {self.coup_cost}")
        if self.starting_coins is not None and len(self.starting_coins) > n:
            raise ValueError(
                f"starting_coins: {len(self.starting_coins)} values given for {n} players")
        deck = self.copies * len(self.characters)
        if self.setup == "standard":
            if deck < 2 * n:
                raise ValueError(
                    f"characters/copies: a deck of {deck} cards cannot deal 2 cards to each of {n} players")
        else:
            if n != 2:
                raise ValueError(f"setup: the card-selection setup is for 2 players, got players={n}")
            if self.copies != 3:
                raise ValueError(
                    f"copies: the card-selection setup splits the deck into 3 sets, so copies must be 3, "
                    f"got {self.copies}")
            if len(self.characters) < 2:
                raise ValueError("characters: the card-selection setup needs at least 2 characters "
                                 "to deal one card to each player from the third set")
        if self.event_mat:
            if self.setup == "selection":
                raise ValueError(
                    "event_mat with setup=selection: the event mat needs 4 face-down cards for two "
                    "players and the card-selection setup's Court deck has only 3")
            k = self.event_cards
            if deck < 2 * n + k:
                raise ValueError(
                    f"event_mat with characters/copies: a deck of {deck} cards cannot deal 2 cards to each "
                    f"of {n} players and {k} to the event mat")

    # ----------------------------------------------------------------------------------------------
    @classmethod
    def standard(cls, players: int = 2, **kwargs) -> "Rules":
        """The printed game: standard deck, two cards each, the two-player coin rule with 2 players."""
        return cls(players=players, setup="standard", **kwargs)

    @classmethod
    def two_player_selection(cls, turn_limit: int = 100, **kwargs) -> "Rules":
        """The two-player card-selection setup (the main solving target)."""
        return cls(players=2, setup="selection", turn_limit=turn_limit, **kwargs)

    @classmethod
    def house(cls, players: int = 2, **kwargs) -> "Rules":
        """McGuire's house rules together: the Ambassador's halved steal, starting coins 0 then 1, a
        challenge bounty of 1, a challenge buyout of 5, the marked cards and the event mat (standard
        setup: the event mat does not fit the card-selection setup's Court deck)."""
        house = dict(ambassador_halves_steal=True, starting_coins="0,1", challenge_bounty=1,
                     challenge_buyout=5, marked_cards=True, event_mat=True)
        house.update(kwargs)
        return cls(players=players, setup="standard", **house)

    def replace(self, **changes) -> "Rules":
        return dataclasses.replace(self, **changes)

    @property
    def coins_by_turn_order(self) -> tuple[int, ...]:
        """Starting coins per seat, in turn order from the starting seat (the last value repeats)."""
        base = self.starting_coins
        if base is None:
            base = (1, 2) if self.players == 2 else (2,)
        return tuple(base[min(i, len(base) - 1)] for i in range(self.players))

    @property
    def event_cards(self) -> int:
        """Face-down cards of the event mat (0 without it): 4 with two or three players, 3 with four, else 1."""
        return tables.event_cards(self.players) if self.event_mat else 0

    @property
    def deck_size(self) -> int:
        return self.copies * len(self.characters)

    # ----------------------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """Every field, JSON-ready (characters as a '+' list, starting coins as a comma list)."""
        d = dataclasses.asdict(self)
        d["characters"] = "+".join(self.characters)
        d["starting_coins"] = None if self.starting_coins is None else ",".join(map(str, self.starting_coins))
        return d

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Rules":
        fields = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(d) - fields)
        if unknown:
            raise ValueError(f"unknown rules option(s): {', '.join(unknown)}; the options are "
                             f"{', '.join(sorted(fields))}")
        return cls(**dict(d))

    @classmethod
    def from_json(cls, text: str) -> "Rules":
        return cls.from_dict(json.loads(text))

    def game_params(self) -> dict[str, Any]:
        """Parameters for ``pyspiel.load_game('python_coup', params)`` (only non-default values)."""
        default = Rules()
        out = {}
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            if v != getattr(default, f.name):
                out[f.name] = _spelled(f.name, v)
        return out

    def game_string(self) -> str:
        """The OpenSpiel game string of these rules, as ``str(load_game(rules))`` prints it (every
        parameter, sorted by name), made without loading the game: the game id of every tree, strategy
        file and cache entry of these rules."""
        full = {**GAME_PARAMETERS, **self.game_params()}
        return f"{GAME_NAME}(" + ",".join(f"{k}={full[k]}" for k in sorted(full)) + ")"

    def params(self) -> np.ndarray:
        """The integer parameter vector read by the compiled engine (``int32[P_SIZE]``, layout in
        :mod:`coupsolve.engine.tables`)."""
        p = np.zeros(tables.P_SIZE, dtype=np.int32)
        p[tables.P_PLAYERS] = self.players
        p[tables.P_SETUP] = SETUPS.index(self.setup)
        p[tables.P_TURN_LIMIT] = self.turn_limit
        p[tables.P_LIMIT_PAYOFF] = LIMIT_PAYOFFS.index(self.limit_payoff)
        p[tables.P_START_SEAT] = -1 if self.starting_seat == "random" else self.starting_seat
        p[tables.P_COUP_COST] = self.coup_cost
        p[tables.P_ASSASSINATE_COST] = self.assassinate_cost
        p[tables.P_FORCED_COUP] = self.forced_coup
        for c, name in enumerate(CHARACTERS):
            p[tables.P_COPIES + c] = self.copies if name in self.characters else 0
        for i, coins in enumerate(self.coins_by_turn_order):
            p[tables.P_START_COINS + i] = coins
        p[tables.P_SELECTIVE_COUP] = self.selective_coup
        p[tables.P_CONTESSA_TAX] = self.contessa_blocks_tax
        p[tables.P_FACTIONS] = self.factions
        p[tables.P_HALVES_STEAL] = self.ambassador_halves_steal
        p[tables.P_BOUNTY] = self.challenge_bounty
        p[tables.P_BUYOUT] = self.challenge_buyout
        p[tables.P_DECLINE_PROOF] = self.decline_proof
        p[tables.P_EVENT_MAT] = self.event_cards
        p[tables.P_MARKED] = self.marked_cards
        p[tables.P_TURN_HOOK] = self.marked_cards or self.event_mat or self.selective_coup
        return p

    def __str__(self) -> str:
        """The players and setup (always: the command line's default is not ``Rules()``'s), the rest if changed."""
        changed = {"players": self.players, "setup": self.setup, **self.game_params()}
        return "Rules(" + ", ".join(f"{k}={v}" for k, v in changed.items()) + ")"


Rules.__doc__ += "\n    Ranges (``RANGES``)\n    -------------------\n" + "".join(
    f"    {name}: {r.describe()}\n" for name, r in RANGES.items())


#: The OpenSpiel name of the game (:mod:`coupsolve.openspiel.game` registers it).
GAME_NAME = "python_coup"


#: The OpenSpiel game's parameters with their defaults (those of ``Rules()``), spelled as game strings do.
GAME_PARAMETERS = {f.name: _spelled(f.name, getattr(Rules(), f.name)) for f in dataclasses.fields(Rules)}
