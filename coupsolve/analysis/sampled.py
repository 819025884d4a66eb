"""The bluff and challenge table of :mod:`coupsolve.analysis.history`, estimated from seeded self-play.

The exact analysis weighs every decision of a solved two-player tree by its reach; here the same
quantities are estimated for any number of players from games sampled through the OpenSpiel game
(:func:`coupsolve.load_game`) with one OpenSpiel policy per seat (or one for all seats), so that a
strategy too large for a tree (:class:`solvers.MCCFRSolver`'s, through
:class:`solvers.mccfr.policy.SampledPolicy`) has its table too.

Layout: :func:`self_play` plays the games and keeps, per game, the counts of every claim made, bluffed,
challenged and caught, counted by the exact analysis's own kernel (``coupsolve.analysis.history._accumulate``,
each sampled decision an information set of one action with reach 1, the decision's context from
:func:`coupsolve.engine.context.node_context`: no rule is read twice); :class:`SampledAnalysis` turns the sums
into rates with confidence intervals and prints them in the exact table's shape.

Definitions are the exact analysis's (per claim: ``made`` times a game, ``bluff`` the fraction of
claims made without the character, ``challenged`` the fraction of claims challenged,
``challenge_success`` the fraction of challenges that caught a bluff), by turn and by the claimant's
influence. Intervals (at ``confidence``, 95% by default):

- ``made`` (a mean per game): the normal interval ``mean +- z * sd / sqrt(games)`` over the per-game
  counts (games are independent);
- the three rates (proportions of claims, or of challenges): Wilson score intervals over the events
  counted, which treats the claims as independent; claims of one game are not quite, so these are
  slightly narrow when a game holds many claims.

A rate from fewer than ``MIN_EVENTS`` events is shown in parentheses (the exact table's mark for a
rarely reached claim), a claim never made reads "never made". Turns past ``TURN_ROWS`` share the
last row (``"6+"``).
"""

from __future__ import annotations

import dataclasses
import math
from statistics import NormalDist
from typing import NamedTuple

import numpy as np

from solvers import DECISION

from coupsolve.analysis.history import Analysis, ClaimStats
from coupsolve.analysis.claims import BLUFF, CHALLENGED, CLAIMS, CLAIM_CHARACTER, MADE, SUCCESS
from coupsolve.analysis.history import _accumulate  # the exact analysis's counting, reused on sampled decisions
from coupsolve.engine.context import node_context

__all__ = ["Estimate", "SampledClaim", "SampledAnalysis", "self_play", "sampled_analysis", "wilson",
           "MIN_EVENTS", "TURN_ROWS"]

#: Rates from fewer events than this are shown in parentheses.
MIN_EVENTS = 30
#: Turns with a row of their own in the by-turn table; later turns share the last row.
TURN_ROWS = 6


class Estimate(NamedTuple):
    """A sampled figure: ``value`` with its confidence interval ``[low, high]`` from ``events``
    (games for a per-game mean, claims or challenges for a rate); NaN when ``events`` is 0."""

    value: float
    low: float
    high: float
    events: int


def wilson(k, n, z) -> Estimate:
    """The Wilson score interval of ``k`` successes in ``n`` trials at normal quantile ``z``."""
    if n <= 0:
        return Estimate(math.nan, math.nan, math.nan, 0)
    p = k / n
    d = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / d
    half = z / d * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    low = 0.0 if k <= 0 else max(0.0, centre - half)  # the ends are exactly 0 and 1 there (rounding)
    high = 1.0 if k >= n else min(1.0, centre + half)
    return Estimate(p, min(low, p), max(high, p), int(round(n)))


def _mean(total, total_sq, games, z) -> Estimate:
    mean = total / games
    var = max(total_sq - total * total / games, 0.0) / max(games - 1, 1)
    half = z * math.sqrt(var / games)
    return Estimate(mean, mean - half, mean + half, games)


@dataclasses.dataclass
class SampledClaim:
    """One claim's sampled figures (module docstring)."""

    claim: str
    character: str
    made: Estimate
    bluff: Estimate
    challenged: Estimate
    challenge_success: Estimate

    def point(self) -> ClaimStats:
        """The point estimates as the exact analysis's :class:`~coupsolve.analysis.history.ClaimStats`."""
        return ClaimStats(self.claim, self.character, self.made.value, self.bluff.value,
                          self.challenged.value, self.challenge_success.value)


def _claims(s, q, games, z):
    """:class:`SampledClaim` of every claim from the summed counts ``s`` (claims x fields) and the
    summed squares ``q`` of the per-game counts."""
    return [SampledClaim(CLAIMS[c], CLAIM_CHARACTER[c], _mean(s[c, MADE], q[c, MADE], games, z),
                         wilson(s[c, BLUFF], s[c, MADE], z), wilson(s[c, CHALLENGED], s[c, MADE], z),
                         wilson(s[c, SUCCESS], s[c, CHALLENGED], z)) for c in range(len(CLAIMS))]


class SelfPlay(NamedTuple):
    """What :func:`self_play` counted: ``sums`` and ``squares`` of the per-game counts, shape
    (groups, claims, 4 fields) with the groups all turns, each turn row, the claimant with two
    influence, with one; ``returns`` and ``returns_sq`` summed per seat; ``games``."""

    sums: np.ndarray
    squares: np.ndarray
    returns: np.ndarray
    returns_sq: np.ndarray
    games: int


def _choose(rng, items, probs):
    p = np.asarray(probs, np.float64)
    return items[int(rng.choice(len(items), p=p / p.sum()))]


def _one_game(game, policies, rng):
    """One game's decisions as (contexts, actions) and its returns."""
    state = game.new_initial_state()
    contexts, actions = [], []
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(_choose(rng, outcomes, probs))
            continue
        dist = policies[state.current_player()].action_probabilities(state)
        moves = list(dist)
        action = _choose(rng, moves, [dist[a] for a in moves])
        contexts.append(node_context(state.engine_state()))
        actions.append(action)
        state.apply_action(action)
    return np.asarray(contexts, np.int64), np.asarray(actions, np.int64), np.asarray(state.returns())


def self_play(game, policies, games, seed, turn_rows=TURN_ROWS) -> SelfPlay:
    """Play ``games`` seeded games of ``game`` (a ``python_coup`` OpenSpiel game) and count every claim.

    Parameters
    ----------
    game : pyspiel.Game
    policies : open_spiel Policy or sequence of them
        One policy for every seat, or one per seat.
    games : int
    seed : int
        Seeds every chance outcome and every sampled action (``numpy.random.default_rng``).
    turn_rows : int
        Turns with a row of their own (later ones share the last).
    """
    n = game.num_players()
    if not isinstance(policies, (list, tuple)):
        policies = [policies] * n
    if len(policies) != n:
        raise ValueError(f"give one policy or one per seat ({n}), got {len(policies)}")
    if int(games) < 1:
        raise ValueError(f"games must be at least 1, got {games}")
    rows = max(1, min(turn_rows, game.rules.turn_limit))
    rng = np.random.default_rng(seed)
    shape = (3 + rows, len(CLAIMS), 4)
    sums, squares = np.zeros(shape), np.zeros(shape)
    ret, ret_sq = np.zeros(n), np.zeros(n)
    acc = np.zeros((rows + 1, 2, len(CLAIMS), 4))
    for _ in range(int(games)):
        ctx, act, returns = _one_game(game, policies, rng)
        acc[:] = 0.0
        k = ctx.shape[0]
        ones = np.ones(k)
        _accumulate(np.full(k, DECISION, np.int8), np.arange(k), ctx, np.arange(k),
                    np.ones(k, np.int64), act, ones, ones, acc)
        per_game = np.concatenate([acc.sum(axis=(0, 1))[None], acc[1:].sum(axis=1),
                                   acc[:, 0].sum(axis=0)[None], acc[:, 1].sum(axis=0)[None]])
        sums += per_game
        squares += per_game * per_game
        ret += returns
        ret_sq += returns * returns
    return SelfPlay(sums, squares, ret, ret_sq, int(games))


def _turn_labels(rows, turn_limit):
    return [str(t) for t in range(1, rows)] + [str(rows) + ("+" if turn_limit > rows else "")]


@dataclasses.dataclass
class SampledAnalysis:
    """Sampled bluff and challenge rates with confidence intervals (module docstring); plain data with
    ``to_table()``, ``to_dict()`` and ``plot(path)`` like :class:`coupsolve.analysis.history.Analysis`."""

    rules: dict
    games: int
    seed: int
    confidence: float
    returns: list  # Estimate of each seat's mean payoff
    claims: list  # SampledClaim, all turns
    by_turn: dict  # turn label -> list of SampledClaim
    by_influence: dict  # 'one' / 'two' -> list of SampledClaim
    meta: dict = dataclasses.field(default_factory=dict)

    @property
    def bluff(self) -> dict:
        return {s.claim: s.bluff.value for s in self.claims}

    def shown_claims(self) -> list:
        """Indices of the claims of this game (the Treaty only with the marked cards)."""
        return [c for c, name in enumerate(CLAIMS) if name != "Treaty" or self.rules.get("marked_cards")]

    def point(self) -> Analysis:
        """The point estimates as an exact :class:`~coupsolve.analysis.history.Analysis` (no card choice or
        hand values), for its plot."""
        pts = lambda rows: [r.point() for r in rows]  # noqa: E731
        return Analysis(rules=self.rules, game_value=tuple(e.value for e in self.returns),
                        claims=pts(self.claims), by_turn={k: pts(r) for k, r in self.by_turn.items()},
                        by_influence={k: pts(r) for k, r in self.by_influence.items()}, choice={},
                        choice_value={}, choice_best_response={}, hand_value={}, hand_best_response={},
                        meta=dict(self.meta))

    def to_dict(self) -> dict:
        clean = lambda x: None if isinstance(x, float) and math.isnan(x) else x  # noqa: E731
        est = lambda e: {"value": clean(float(e.value)), "low": clean(float(e.low)),  # noqa: E731
                         "high": clean(float(e.high)), "events": int(e.events)}
        row = lambda r: {"claim": r.claim, "character": r.character,  # noqa: E731
                         **{f: est(getattr(r, f)) for f in ("made", "bluff", "challenged",
                                                           "challenge_success")}}
        return {"rules": self.rules, "games": self.games, "seed": self.seed,
                "confidence": self.confidence, "min_events": MIN_EVENTS,
                "intervals": {"made": "normal, over per-game counts",
                              "rates": "Wilson score, over the claims or challenges counted"},
                "returns": [est(e) for e in self.returns], "claims": [row(r) for r in self.claims],
                "by_turn": {k: [row(r) for r in rs] for k, rs in self.by_turn.items()},
                "by_influence": {k: [row(r) for r in rs] for k, rs in self.by_influence.items()},
                "meta": self.meta}

    def to_table(self) -> str:
        """The tables as text (the exact analysis's shape, each figure with its interval)."""
        return _table(self)

    def plot(self, path) -> None:
        """The exact analysis's bar charts of the point estimates (:func:`coupsolve.analysis.view.plot`)."""
        from coupsolve.analysis.view import plot

        plot(self.point(), path)


def sampled_analysis(game, policies, games=2000, seed=0, confidence=0.95, meta=None) -> SampledAnalysis:
    """Estimate the bluff and challenge table of ``policies`` from ``games`` seeded games.

    Parameters
    ----------
    game : pyspiel.Game
        A ``python_coup`` game (:func:`coupsolve.load_game`), any number of players.
    policies : open_spiel Policy or sequence of them
        One for every seat, or one per seat.
    games, seed : int
        Games to play and their seed (:func:`self_play`).
    confidence : float
        Of every interval, in (0, 1).
    meta : dict, optional
        Copied into ``SampledAnalysis.meta`` (``title`` titles the plot).
    """
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must lie strictly between 0 and 1, got {confidence}")
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    played = self_play(game, policies, games, seed)
    s, q, g = played.sums, played.squares, played.games
    rows = s.shape[0] - 3
    labels = _turn_labels(rows, game.rules.turn_limit)
    returns = [_mean(played.returns[p], played.returns_sq[p], g, z) for p in range(len(played.returns))]
    return SampledAnalysis(rules=game.rules.to_dict(), games=g, seed=int(seed), confidence=confidence,
                           returns=returns, claims=_claims(s[0], q[0], g, z),
                           by_turn={labels[t]: _claims(s[1 + t], q[1 + t], g, z) for t in range(rows)},
                           by_influence={"one": _claims(s[-1], q[-1], g, z),
                                         "two": _claims(s[-2], q[-2], g, z)},
                           meta=dict(meta or {}))


def _rate(e, width) -> str:
    """A rate with its interval, ``"45.2% [41.0-49.5]"``, in parentheses from few events."""
    if e.events == 0:
        return f"{'-':>{width}}"
    text = f"{100 * e.value:.1f}% [{100 * e.low:.1f}-{100 * e.high:.1f}]"
    return f"{'(' + text + ')' if e.events < MIN_EVENTS else text:>{width}}"


def _table(a) -> str:
    shown = a.shown_claims()
    pct = f"{100 * a.confidence:g}%"
    payoffs = [f"p{p} {e.value:+.3f} +- {e.high - e.value:.3f}" for p, e in enumerate(a.returns)]
    head = f"{a.games:,} sampled games (seed {a.seed}); mean payoff: "
    lines = [head + ", ".join(payoffs)] if len(head) + 21 * len(payoffs) <= WIDTH else \
        [head.rstrip()] + ["  " + ", ".join(payoffs[i:i + 4]) for i in range(0, len(payoffs), 4)]
    lines += ["", f"{'claim (character)':<23}{'made/game':>9}{'+-' + pct:>8}{'bluff':>20}"
              f"{'challenged':>20}{'chal. wins':>20}"]
    for c in shown:
        s = a.claims[c]
        label = s.claim if s.character in s.claim.split() else f"{s.claim} ({s.character})"
        if s.made.value <= 0.0:
            lines.append(f"{label:<23}{0.0:>9.3f}{'':>8}{'never made':>20}")
            continue
        lines.append(f"{label:<23}{s.made.value:>9.3f}{s.made.high - s.made.value:>8.3f}"
                     f"{_rate(s.bluff, 20)}{_rate(s.challenged, 20)}{_rate(s.challenge_success, 20)}")
    for title, rows_by in (("by turn", a.by_turn), ("by the claimant's influence", a.by_influence)):
        lines += _breakdown(f"bluff rate {title}, then made/game", rows_by, shown)
    lines += ["", f"[low-high]: {pct} intervals (Wilson for the rates, normal for made/game).",
              f"( ): from fewer than {MIN_EVENTS} events: claims for bluff and challenged, challenges for "
              "chal. wins.", "-: no event (no challenge); never made: no rate (not a bluff rate of 0%)."]
    return "\n".join(lines)


#: Columns the breakdowns by turn and by influence fit in: their columns go in blocks of as many as fit.
WIDTH = 100
_CELL = 27  # a rate with its interval (19 characters, parentheses included) and " 0.245" made/game


def _breakdown(title, rows_by, shown):
    """The lines of a breakdown (by turn, by influence) in blocks of columns within :data:`WIDTH`."""
    per = max(1, (WIDTH - 17) // _CELL)
    keys = list(rows_by)
    lines = []
    for i in range(0, len(keys), per):
        block = keys[i:i + per]
        part = "" if len(keys) <= per else f" ({block[0]} to {block[-1]})" if len(block) > 1 else f" ({block[0]})"
        lines += ["", f"{title}{part}:", f"{'':<17}" + "".join(f"{str(k):>{_CELL}}" for k in block)]
        for c in shown:
            lines.append(f"{CLAIMS[c]:<17}" + "".join(_cell(rows_by[k][c]) for k in block))
    return lines


def _cell(row) -> str:
    """A breakdown's cell: the bluff rate with its interval, then the claims a game."""
    rate = f"{'never made':>19}" if row.made.value <= 0 else _rate(row.bluff, 19)
    return f" {rate} {row.made.value:6.3f}"
