"""Exact best responses checked by play: each seat's, played against the strategy through OpenSpiel.

The exploitability a solve prints comes from best responses computed by the same passes, over the
same public tree, as the solve itself. A mistake shared by the tree and the passes (a tree that is not
the game, a value the responder cannot actually earn) would hide from it. This check shares neither:
each seat's pure best response is exported as an OpenSpiel policy, looked up by its information sets'
keys (:class:`~coupsolve.openspiel.policy.PublicTreePolicy`), and played against the strategy in
seeded games of the OpenSpiel game, whose states the engine steps through pyspiel
(:func:`~coupsolve.openspiel.policy.sampled_value`). The exact best-response value must lie in the
99% interval of the sampled mean; so must the exact gain (the best-response value less the
strategy's own value for that seat) lie in the sampled interval less the strategy's value.

What it does and does not show: a sampled mean resolves differences of about its half-width
(2.58 standard deviations of a game's payoff over the square root of the games), far above the gain
of a strategy near equilibrium. So it confirms that the exact values are earned in the real game to
that precision; it does not measure a gain of 1e-3 by itself.
"""

from __future__ import annotations

from typing import NamedTuple

from coupsolve.openspiel.policy import sampled_value
from coupsolve.plan.options import silent

__all__ = ["SeatCheck", "check_by_play", "exact_best_responses"]


#: The rounding an exact value may carry (a float32 solve's passes): an interval is widened by it.
ROUNDING = 1e-6


class SeatCheck(NamedTuple):
    """One seat's check: its exact best-response value and gain, and the sampled mean of that best
    response played against the strategy (the seat's payoff) with its 99% half-width."""

    seat: int
    exact: float
    gain: float
    mean: float
    half_width: float
    games: int
    seed: int

    @property
    def holds(self) -> bool:
        """Whether the sampled 99% interval holds the exact value (and so the exact gain), give or
        take :data:`ROUNDING` (a payoff that never varies gives an interval of width 0)."""
        return abs(self.mean - self.exact) <= self.half_width + ROUNDING

    def to_dict(self) -> dict:
        return {**self._asdict(), "holds": self.holds}


def exact_best_responses(rep, policy, say=silent):
    """Both seats' exact best responses to ``policy``: ``[(value, choices)]``, seat 0's first, each
    pure best response given by the position of its action in each information set (an integer per
    information set, not a flat policy: at turn limit 4 a flat policy is 3.6 GiB, its choices 0.45).

    ``rep`` is the representation they are computed on: anything with ``best_choices(policy, seat)
    -> (value, choices)`` (:class:`solvers.public.rep.PublicTreeRep`, a solver's representation
    of :class:`solvers.PublicPieces`). Computed before any game is played, so that the tree can be
    let go before the games (at turn limit 4 the games need a few GiB, the tree fifteen).
    """
    out = []
    for seat in (0, 1):
        say(f"the exact best response of seat {seat} ...")
        value, choice = rep.best_choices(policy, seat)
        out.append((float(value), choice))
    return out


def check_by_play(strategy, exact, value0, games, seed, say=silent):
    """Play each seat's best response in ``exact`` against ``strategy`` (module docstring).

    Parameters
    ----------
    strategy : coupsolve.openspiel.policy.PublicTreePolicy
        The strategy, as an OpenSpiel policy over its information sets' keys.
    exact : list of (float, ndarray)
        :func:`exact_best_responses`: each seat's exact value and pure best response (its choice at
        each of the strategy's information sets).
    value0 : float
        The strategy's exact value to seat 0 (seat 1's is its negative).
    games : int
        Games played per seat.
    seed : int
        Seat ``s`` plays with seed ``seed + s``.
    say : callable
        Progress lines.

    Returns
    -------
    list of SeatCheck
        Seat 0's, then seat 1's.
    """
    game = strategy.game
    out = []
    for seat, (value, choice) in enumerate(exact):
        responder = strategy.with_choices(choice)
        say(f"seat {seat}'s best response against the strategy: {games:,} games through the OpenSpiel "
            "game ...")

        def progress(done, total):
            if done % 10_000 == 0 or done == total:
                say(f"  {done:,} of {total:,} games")

        players = [responder if q == seat else strategy for q in (0, 1)]
        mean0, half = sampled_value(game, players, games, seed + seat, progress)
        own = value0 if seat == 0 else -value0
        out.append(SeatCheck(seat, value, value - own, mean0 if seat == 0 else -mean0, half, games,
                             seed + seat))
    return out
