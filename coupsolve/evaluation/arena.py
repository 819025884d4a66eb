"""Head-to-head evaluation: seeded games of an OpenSpiel game with one policy per seat.

:func:`play` plays ``games`` games of a game (``python_coup`` or any OpenSpiel game) with the policies
given per *entry*, one entry per seat. Seats rotate: game ``g`` seats entry ``e`` at seat
``(e + g) % players``, so over a multiple of ``players`` games every entry plays every seat equally
often (the first seat's advantage cancels). Entries with the same name are pooled: their payoffs in a
game are averaged into one sample, so a policy against three copies of another gives two samples a
game.

Each name's mean payoff comes with a 95% confidence interval from the normal approximation on its
per-game payoffs: ``mean +- 1.96 * sd / sqrt(games)`` (``sd`` the sample standard deviation); the
games are independent, so this is the usual large-sample interval (it is not exact for a few games).
A game is a *win* for a seat whose payoff is positive (the sole survivor; at a turn limit paid by
influence, a share of the win counts as a win); a name's win rate averages its entries'.

Games are sampled with one ``numpy`` generator seeded by ``seed``: the chance outcomes and every
policy's action are drawn from it, so the same seed and policies give the same games. Stepping is
OpenSpiel's (``state.apply_action``), in Python: measured in :func:`play`'s ``seconds``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

__all__ = ["ArenaResult", "play", "Z95"]

Z95 = 1.959963984540054  # the standard normal's 97.5% quantile


@dataclass(frozen=True)
class ArenaResult:
    """What :func:`play` measured, per distinct name (in order of first appearance).

    ``mean`` and ``half_width`` give the 95% interval ``mean +- half_width`` of the mean payoff per
    game; ``win_rate`` the fraction of the name's seats (over games) that won; ``draw_rate`` the
    fraction of games no seat won (a game stopped at its turn limit, paying nobody more than 0);
    ``payoffs`` the per-game samples (float64, (games, names)); ``seconds`` the wall time.
    """

    names: tuple
    games: int
    mean: np.ndarray
    half_width: np.ndarray
    win_rate: np.ndarray
    payoffs: np.ndarray
    seconds: float
    draw_rate: float = 0.0

    def interval(self, name):
        """The 95% interval ``(low, high)`` of ``name``'s mean payoff."""
        i = self.names.index(name)
        return self.mean[i] - self.half_width[i], self.mean[i] + self.half_width[i]

    def __str__(self):
        rows = [f"{self.games:,} games, {self.games / max(self.seconds, 1e-9):.1f} games/s"]
        for i, n in enumerate(self.names):
            rows.append(f"{n:<16} mean payoff {self.mean[i]:+.4f} +- {self.half_width[i]:.4f} (95%), "
                        f"win rate {self.win_rate[i]:.3f}")
        rows.append(f"draw rate {self.draw_rate:.3f}")
        return "\n".join(rows)


def _sample(rng, actions, probs):
    c = np.cumsum(np.asarray(probs, np.float64))
    return actions[min(int(np.searchsorted(c, rng.random() * c[-1], side="right")), len(actions) - 1)]


def play_one(game, seat_policies, rng):
    """One game with ``seat_policies[seat]`` at each seat; the final returns (list of float)."""
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes())
        else:
            dist = seat_policies[state.current_player()].action_probabilities(state)
            actions, probs = tuple(dist), tuple(dist.values())
        state.apply_action(int(_sample(rng, actions, probs)))
    return state.returns()


def play(game, policies, games, seed, names=None):
    """Play ``games`` seeded games with the entries ``policies`` (one per seat), seats rotating.

    Parameters
    ----------
    game : pyspiel.Game
    policies : sequence of open_spiel Policy
        Exactly ``game.num_players()`` entries.
    games : int
        At least 2 (an interval needs two samples); a multiple of the number of players gives every
        entry every seat equally often.
    seed : int
        Seeds the games.
    names : sequence of str, optional
        One per entry (default ``"0"``, ``"1"``, ...); equal names are pooled.

    Returns
    -------
    ArenaResult

    Raises
    ------
    ValueError
        A wrong number of entries or names, or fewer than 2 games.
    """
    n = game.num_players()
    if len(policies) != n:
        raise ValueError(f"give one policy per seat: {n} seats, {len(policies)} policies")
    names = tuple(str(i) for i in range(n)) if names is None else tuple(names)
    if len(names) != n:
        raise ValueError(f"give one name per policy: {n} policies, {len(names)} names")
    if int(games) < 2:
        raise ValueError(f"games must be at least 2 (an interval needs two samples), got {games}")
    distinct = tuple(dict.fromkeys(names))
    col = np.array([distinct.index(x) for x in names])
    count = np.bincount(col, minlength=len(distinct))
    rng = np.random.default_rng(seed)
    payoffs = np.zeros((int(games), len(distinct)))
    wins = np.zeros(len(distinct))
    draws = 0
    t0 = time.perf_counter()
    for g in range(int(games)):
        seat_of = (np.arange(n) + g) % n  # entry e sits at seat seat_of[e]
        by_seat = [None] * n
        for e in range(n):
            by_seat[seat_of[e]] = policies[e]
        ret = np.asarray(play_one(game, by_seat, rng))[seat_of]  # per entry
        np.add.at(payoffs[g], col, ret)
        np.add.at(wins, col, ret > 0)
        draws += not bool(np.any(ret > 0))
    payoffs /= count
    sd = payoffs.std(axis=0, ddof=1)
    return ArenaResult(names=distinct, games=int(games), mean=payoffs.mean(axis=0),
                       half_width=Z95 * sd / np.sqrt(games), win_rate=wins / (count * games),
                       payoffs=payoffs, seconds=time.perf_counter() - t0, draw_rate=draws / int(games))
