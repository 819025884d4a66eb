"""Where a match's cards are lost: each player's losses of influence per game, by cause.

A mean payoff says who won; it does not say how. In Coup every influence is lost in one of four ways,
and each points at a different part of a strategy:

* **challenged a true claim**: the player challenged a claim (an action, a block, a Treaty) and the
  claimant proved it;
* **caught bluffing**: the player's own claim was challenged and it could not prove it;
* **couped** and **assassinated** (any loss to an attack that is not a challenge).

:class:`CardLosses` counts them from each finished game of :func:`coupsolve.evaluation.arena.play`
(its ``watch``), reading the game's public events in order (:func:`losses`): a loss (a card turned
face up, or a loss paid off in coins under the challenge buyout) right after a challenge's outcome
is that challenge's (the challenger's if the claim was proved, the claimant's if not); any other is the
last attack's, a Coup or an Assassination (the marked cards' Vengeance counts as one). The forced
steps the game takes by itself emit their events too, so a last card's loss is counted.
:meth:`CardLosses.summary` gives each name's mean per game with a 95% interval over the deals, as the
payoffs are given: a strategy that loses to HonestBot by challenging its claims (HonestBot never
bluffs) shows it in the first column.
"""

from __future__ import annotations

import numpy as np

from coupsolve import engine as E
from coupsolve.evaluation.arena import deal_interval

__all__ = ["CAUSES", "CardLosses", "losses", "table"]

#: The causes of a loss, in the order of :class:`CardLosses`'s counts.
CAUSES = ("challenged a true claim", "caught bluffing", "couped", "assassinated")
_LOST = frozenset([*range(E.ACT_LOSE, E.ACT_LOSE + E.NCH), *range(E.ACT_LOSE_MARKED, E.ACT_LOSE_MARKED + 3),
                   E.ACT_PAY])


def losses(events, players: int) -> np.ndarray:
    """Each seat's losses by cause (int64 ``(players, len(CAUSES))``) in a game's events
    (``state.events`` of a ``python_coup`` state: rows ``(owner, private token, public token)``)."""
    out = np.zeros((players, len(CAUSES)), dtype=np.int64)
    outcome, attack = -1, 2
    for _, _, token in events:
        seat, code = divmod(int(token), E.TOKEN_SEAT)
        if code == E.CODE_PROVED or code == E.CODE_FAILED:
            outcome = 0 if code == E.CODE_PROVED else 1
        elif code in _LOST:
            out[seat - 1, attack if outcome < 0 else outcome] += 1
            outcome = -1
        elif code < E.NUM_ACTIONS and E.ACTION_KIND[code] in (E.ACT_COUP, E.ACT_ASSASSINATE, E.ACT_VENGEANCE):
            attack = 2 if E.ACTION_KIND[code] == E.ACT_COUP else 3
    return out


class CardLosses:
    """Counts of each entry's losses by cause in each game of a match: pass the object as
    :func:`~coupsolve.evaluation.arena.play`'s ``watch``; ``counts`` is int64 ``(games, entries,
    len(CAUSES))``. Games of another OpenSpiel game than Coup count nothing."""

    def __init__(self, games: int, entries: int):
        self.counts = np.zeros((int(games), int(entries), len(CAUSES)), dtype=np.int64)

    def __call__(self, g, seat_of, state):
        if not hasattr(state, "events"):
            return
        self.counts[g] = losses(state.events, len(seat_of))[np.asarray(seat_of)]

    def summary(self, names) -> dict:
        """``{name: {cause: (mean, half_width)}}``: losses per game of each distinct name (entries of
        one name averaged, as :func:`~coupsolve.evaluation.arena.play` pools payoffs), with a 95%
        interval over the deals (a deal: one game per seat, so ``len(names)`` games)."""
        names = tuple(names)
        out = {}
        for name in dict.fromkeys(names):
            cols = [e for e, x in enumerate(names) if x == name]
            mean, half = deal_interval(self.counts[:, cols, :].mean(axis=1), len(names))
            out[name] = {c: (float(m), float(h)) for c, m, h in zip(CAUSES, mean, half)}
        return out


def table(summary: dict, labels: dict | None = None, indent: str = "    ") -> list[str]:
    """:meth:`CardLosses.summary` as lines of text: a row per name (shown as ``labels[name]``), a
    column per cause, each cell ``mean +- half_width`` cards a game."""
    labels = labels or {}
    rows = [(labels.get(name, name), by_cause) for name, by_cause in summary.items()]
    width = max(len("cards lost a game"), *(len(label) for label, _ in rows))
    cols = [max(len(c), 15) for c in CAUSES]
    lines = [indent + f"{'cards lost a game':<{width}}  " + "  ".join(f"{c:>{w}}" for c, w in zip(CAUSES, cols))]
    for label, by_cause in rows:
        cells = (f"{by_cause[c][0]:.3f} +- {by_cause[c][1]:.3f}" for c in CAUSES)
        lines.append(indent + f"{label:<{width}}  " + "  ".join(f"{x:>{w}}" for x, w in zip(cells, cols)))
    return lines
