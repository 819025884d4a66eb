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

The exact best responses can be kept (:func:`save_best_responses`) and read again
(:func:`load_best_responses`) to play more games against the same strategy: at turn limit 4 they cost
a rebuild of the tree in pieces (over an hour), the games a fraction of that. The file is bound to the
strategy by a digest of its average policy, so a best response is never played against another one.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from coupsolve.openspiel.policy import sampled_value
from coupsolve.plan.options import silent

__all__ = ["SeatCheck", "check_by_play", "exact_best_responses", "load_best_responses",
           "save_best_responses"]

#: The kind of a file of kept best responses (:func:`save_best_responses`).
KIND = "coupsolve best responses"


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


def save_best_responses(path, exact, policy, strategy_name):
    """Keep ``exact`` (:func:`exact_best_responses` of ``policy``) in ``path``: plain ``.npz`` with
    JSON metadata (each seat's choices one byte an information set, as a public tree has at most 127
    actions at one), bound to ``policy`` by its sha256 (:func:`coupsolve.strategy.kept.digest`, as a
    kept analysis is); written durably."""
    from solvers import npz

    from coupsolve.strategy.kept import digest

    choices = {}
    for seat, (_, choice) in enumerate(exact):
        if choice.size and int(choice.max()) > np.iinfo(np.int8).max:
            raise ValueError(f"seat {seat}'s best response picks action {int(choice.max())}")
        choices[f"choices{seat}"] = np.asarray(choice, np.int8)
    meta = {"strategy": strategy_name, "average_policy_sha256": digest(policy)}
    npz.save(path, KIND, meta, {"values": np.array([v for v, _ in exact], np.float64), **choices})


def load_best_responses(path, policy, num_infosets):
    """The best responses kept in ``path`` by :func:`save_best_responses`, as
    :func:`exact_best_responses` gives them, after checking that they answer ``policy`` (its digest)
    over ``num_infosets`` information sets.

    Raises
    ------
    ValueError
        One line naming ``path`` and what is wrong with it: another kind of file, another strategy's
        best responses, arrays of other shapes or types, a value that is not finite. (Each choice is
        checked against its information set's actions when it is played:
        :meth:`~coupsolve.openspiel.policy.PublicTreePolicy.with_choices`.)
    """
    from solvers import npz

    from coupsolve.strategy.kept import digest

    meta, arrays = npz.load(path, KIND)
    npz.check_fields(meta, path, strategy="str", average_policy_sha256="str")
    values = npz.check_vector(arrays, "values", path, "f", 2, finite=True)
    if meta["average_policy_sha256"] != digest(policy):
        raise ValueError(f"{path} holds best responses to another strategy than this one (kept for "
                         f"{meta['strategy']!r}; the average policies' digests differ)")
    return [(float(values[seat]), npz.check_vector(arrays, f"choices{seat}", path, "iu", num_infosets))
            for seat in (0, 1)]


def check_by_play(strategy, exact, value0, games, seed, say=silent, seats=(0, 1)):
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
    seats : sequence of int
        The seats whose best responses are played (both by default).

    Returns
    -------
    list of SeatCheck
        One per seat of ``seats``, in seat order.
    """
    game = strategy.game
    out = []
    for seat, (value, choice) in enumerate(exact):
        if seat not in seats:
            continue
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
