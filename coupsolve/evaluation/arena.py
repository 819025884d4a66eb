"""Head-to-head evaluation: seeded games of an OpenSpiel game with one policy per seat, in duplicate deals.

:func:`play` plays ``games`` games of a game (``python_coup`` or any OpenSpiel game) with the policies
given per *entry*, one entry per seat. The games come in *deals*, as duplicate bridge and poker
matches are played: a deal is ``players`` games that draw their chance outcomes from the same seeded
stream, with the seats rotated one place each game, so every entry plays every seat of the same cards
(the first seat's advantage and the luck of the deal cancel within the deal). Entries with the same
name are pooled: their payoffs in a game are averaged into one sample.

Each name's mean payoff comes with a 95% confidence interval from the normal approximation on its
per-deal means: ``mean +- 1.96 * sd / sqrt(deals)``. The deals are independent, so this is the usual
large-sample interval (not exact for a few deals); the games within a deal are not, which is why the
deal is the sample. The chance streams are shared only in the order of their draws: once the games of
a deal take different paths, the same draw can mean different cards.

Given a value function fixed before the games (``value``, for Coup
:func:`~coupsolve.evaluation.aivat.fit_value` on pilot games), every payoff is also corrected by its
control variates (:mod:`coupsolve.evaluation.aivat`), which keep its expectation and cut its variance;
the result then carries both estimates and the variance reduction.

A game is a *win* for a seat whose payoff is positive (the sole survivor; at a turn limit paid by
influence, a share of the win counts as a win); a name's win rate averages its entries'. The same
seed and policies give the same games. Stepping is OpenSpiel's (``state.apply_action``), in Python:
measured in :func:`play`'s ``seconds``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

__all__ = ["ArenaResult", "correction", "deal_interval", "paired", "play", "play_one", "Z95"]

Z95 = 1.959963984540054  # the standard normal's 97.5% quantile


@dataclass(frozen=True)
class ArenaResult:
    """What :func:`play` measured, per distinct name (in order of first appearance).

    ``mean`` and ``half_width`` give the 95% interval ``mean +- half_width`` of the mean payoff per
    game (over deals); ``win_rate`` the fraction of the name's seats (over games) that won;
    ``draw_rate`` the fraction of games no seat won (a game stopped at its turn limit, paying nobody
    more than 0); ``payoffs`` the per-game samples (float64, (games, names), a deal's games in a row);
    ``seconds`` the wall time. With a value function, ``adjusted`` holds the variance-reduced samples
    and ``adjusted_mean`` / ``adjusted_half_width`` their interval (else None).
    """

    names: tuple
    games: int
    mean: np.ndarray
    half_width: np.ndarray
    win_rate: np.ndarray
    payoffs: np.ndarray
    seconds: float
    draw_rate: float = 0.0
    adjusted: np.ndarray | None = None
    adjusted_mean: np.ndarray | None = None
    adjusted_half_width: np.ndarray | None = None
    players: int = 2

    @property
    def deals(self):
        """The deals played: each in ``players`` games, one per rotation of the seats."""
        return self.games // self.players

    @property
    def variance_reduction(self):
        """Per name, the plain interval's half-width over the variance-reduced one's, squared: how
        many times fewer games the estimate needs for the same interval (None without a value; 1
        where neither varies, as a policy against itself in mirrored deals)."""
        if self.adjusted_half_width is None:
            return None
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = (self.half_width / self.adjusted_half_width) ** 2
        return np.where((self.half_width == 0) & (self.adjusted_half_width == 0), 1.0, ratio)

    def deal_means(self, name, adjusted=False) -> np.ndarray:
        """``name``'s mean payoff in each deal (``adjusted``: of the variance-reduced samples), the
        samples its interval is made of."""
        samples = self.adjusted if adjusted else self.payoffs
        if samples is None:
            raise ValueError("no variance-reduced estimate: the games were played without a value function")
        return samples[:, self.names.index(name)].reshape(-1, self.players).mean(axis=1)

    def interval(self, name, adjusted=False):
        """The 95% interval ``(low, high)`` of ``name``'s mean payoff (``adjusted``: of the
        variance-reduced estimate)."""
        i = self.names.index(name)
        mean, half = (self.adjusted_mean, self.adjusted_half_width) if adjusted else (self.mean,
                                                                                      self.half_width)
        if mean is None:
            raise ValueError("no variance-reduced estimate: the games were played without a value function")
        return mean[i] - half[i], mean[i] + half[i]

    def __str__(self):
        pace = self.games / max(self.seconds, 1e-9)
        rows = [f"{self.games:,} games ({self.deals:,} deals), {pace:.1f} games/s"]
        for i, n in enumerate(self.names):
            rows.append(f"{n:<16} mean payoff {self.mean[i]:+.4f} +- {self.half_width[i]:.4f} (95%), "
                        f"win rate {self.win_rate[i]:.3f}")
            if self.adjusted_mean is not None:
                rows.append(f"{'':<16} variance-reduced {self.adjusted_mean[i]:+.4f} +- "
                            f"{self.adjusted_half_width[i]:.4f} (95%, worth "
                            f"{self.variance_reduction[i]:.1f}x the games)")
        rows.append(f"draw rate {self.draw_rate:.3f}")
        return "\n".join(rows)


def _sample(rng, actions, probs):
    c = np.cumsum(np.asarray(probs, np.float64))
    return actions[min(int(np.searchsorted(c, rng.random() * c[-1], side="right")), len(actions) - 1)]


def correction(state, actions, probs, taken, value):
    """The control variate of one event (:mod:`coupsolve.evaluation.aivat`):
    ``V(h·taken) - E_p[V(h·a)]`` (one number per seat) at ``state`` (``h``), whose next action is
    drawn from ``actions`` with probabilities ``probs`` (normalised here, as the draw normalises
    them). Zero in expectation over the draw."""
    p = np.asarray(probs, np.float64)
    p = p / p.sum()
    children = []
    for a in actions:
        child = state.clone()
        child.apply_action(int(a))
        children.append(value(child))
    children = np.asarray(children, np.float64)
    return children[list(actions).index(taken)] - p @ children


def play_one(game, seat_policies, rng, chance_rng=None, value=None, visit=None, finish=None):
    """One game with ``seat_policies[seat]`` at each seat: ``(returns, correction)``, the final
    returns and the sum of the game's control variates (:func:`correction`
    under ``value``; zeros without one). Actions are drawn from ``rng``, chance outcomes from
    ``chance_rng`` (default ``rng``); ``visit(state)`` is called at every decision, ``finish(state)``
    with the final state."""
    chance_rng = rng if chance_rng is None else chance_rng
    n = game.num_players()
    total = np.zeros(n)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes())
            a = int(_sample(chance_rng, actions, probs))
        else:
            if visit is not None:
                visit(state)
            dist = seat_policies[state.current_player()].action_probabilities(state)
            actions, probs = tuple(dist), tuple(dist.values())
            a = int(_sample(rng, actions, probs))
        if value is not None:
            total += correction(state, actions, probs, a, value)
        state.apply_action(a)
    if finish is not None:
        finish(state)
    return state.returns(), total


def paired(first, second):
    """The mean difference of two players' per-deal means over the same deals (:meth:`ArenaResult.
    deal_means` of two matches with the same seed, games and opponent) and its 95% half-width, over
    the per-deal differences. The deals' chance streams are the same in both matches, so the cards'
    luck common to both cancels in the difference (until the games take different paths), and the
    interval is the difference's own, not the two matches' intervals combined; ``ValueError`` for
    deals of different numbers."""
    if len(first) != len(second) or len(first) < 2:
        raise ValueError(f"pair the same deals, at least two: got {len(first)} and {len(second)}")
    d = np.asarray(first, np.float64) - np.asarray(second, np.float64)
    return float(d.mean()), float(Z95 * d.std(ddof=1) / np.sqrt(d.size))


def _interval(samples):
    """Means and 95% half-widths of the columns of ``samples`` (one row per independent sample)."""
    return samples.mean(axis=0), Z95 * samples.std(axis=0, ddof=1) / np.sqrt(samples.shape[0])


def deal_interval(per_game, players):
    """Means and 95% half-widths over the deals of per-game samples (``per_game``: a row per game, a
    deal's ``players`` games in a row, as :func:`play` plays them): the deal is the sample."""
    per_game = np.asarray(per_game)
    return _interval(per_game.reshape(-1, players, *per_game.shape[1:]).mean(axis=1))


def play(game, policies, games, seed, names=None, value=None, stream=0, watch=None):
    """Play ``games`` seeded games with the entries ``policies`` (one per seat), in duplicate deals.

    Parameters
    ----------
    game : pyspiel.Game
    policies : sequence of open_spiel Policy
        Exactly ``game.num_players()`` entries.
    games : int
        A multiple of the number of players, with at least two deals (an interval needs two samples).
    seed : int
        Seeds the games.
    names : sequence of str, optional
        One per entry (default ``"0"``, ``"1"``, ...); equal names are pooled.
    value : callable, optional
        A value function (state to a value per seat, :class:`~coupsolve.evaluation.aivat.LinearValue`)
        fixed before the games: the result then carries the variance-reduced estimate as well.
    stream : int
        Which family of seeded games: the matches' is 0, pilot games (:func:`~coupsolve.evaluation.
        aivat.fit_value`) use others, so that no seed makes a pilot game a matched one.
    watch : callable, optional
        ``watch(g, seat_of, state)`` with the final state of game ``g``, whose entry ``e`` sat at seat
        ``seat_of[e]`` (for instance :class:`~coupsolve.evaluation.losses.CardLosses`).

    Returns
    -------
    ArenaResult

    Raises
    ------
    ValueError
        A wrong number of entries or names, or a number of games that is not whole deals.
    """
    n = game.num_players()
    if len(policies) != n:
        raise ValueError(f"give one policy per seat: {n} seats, {len(policies)} policies")
    names = tuple(str(i) for i in range(n)) if names is None else tuple(names)
    if len(names) != n:
        raise ValueError(f"give one name per policy: {n} policies, {len(names)} names")
    if int(games) < 2 * n or int(games) % n:
        raise ValueError(f"games must be a multiple of the {n} seats and at least {2 * n} (two deals: an "
                         f"interval needs two samples), got {games}")
    distinct = tuple(dict.fromkeys(names))
    col = np.array([distinct.index(x) for x in names])
    count = np.bincount(col, minlength=len(distinct))
    payoffs = np.zeros((int(games), len(distinct)))
    adjusted = np.zeros_like(payoffs)
    wins = np.zeros(len(distinct))
    draws = 0
    t0 = time.perf_counter()
    for g in range(int(games)):
        deal, turn = divmod(g, n)
        seat_of = (np.arange(n) + turn) % n  # entry e sits at seat seat_of[e]
        by_seat = [None] * n
        for e in range(n):
            by_seat[seat_of[e]] = policies[e]
        chance = np.random.default_rng([stream, seed, deal, 0])  # the deal's chance: the same in its n games
        moves = np.random.default_rng([stream, seed, deal, 1 + turn])
        ret, corr = play_one(game, by_seat, moves, chance, value,
                             finish=None if watch is None else lambda state: watch(g, seat_of, state))
        ret = np.asarray(ret)[seat_of]  # per entry
        np.add.at(payoffs[g], col, ret)
        np.add.at(adjusted[g], col, ret - corr[seat_of])
        np.add.at(wins, col, ret > 0)
        draws += not bool(np.any(ret > 0))
    payoffs /= count
    adjusted /= count
    mean, half = deal_interval(payoffs, n)
    fields = {}
    if value is not None:
        fields["adjusted"] = adjusted
        fields["adjusted_mean"], fields["adjusted_half_width"] = deal_interval(adjusted, n)
    return ArenaResult(names=distinct, games=int(games), mean=mean, half_width=half,
                       win_rate=wins / (count * games), payoffs=payoffs,
                       seconds=time.perf_counter() - t0, draw_rate=draws / int(games), players=n,
                       **fields)

