"""The re-solving player's opening: the game's first turn played from one solve at its start.

A re-solve looks ``lookahead`` turns ahead from the turn it is in, counting the card selection before
the first turn as part of it (:meth:`coupsolve.trees.rooted.PublicRoot.turn_limit_ahead`). So every
decision before the second turn looks ahead to the same turn limit as a re-solve at the game's start,
and that root is the same in every game: nothing has been played, and each range is the deal's. With
two turns ahead or more, that subgame is most of a turn-limit-two game, and re-solving it at each of
those decisions is the slowest part of a game. The opening solves it once per seat instead (its
leaves, the opponent model and the solver exactly as a re-solve at the start would have them) and
plays every decision it covers from that solve's average strategy at the decision's information set.

This is how Libratus and Pluribus play their first betting round: from a strategy computed ahead
(Brown and Sandholm, "Superhuman AI for heads-up no-limit poker: Libratus beats top professionals",
Science 2018; "Superhuman AI for multiplayer poker", Science 2019). It is the whole subgame solved,
not re-solved at each decision, so the opponent's moves inside it meet the strategy trained for them
instead of a range the blueprint guesses; but it does not change with what the opponent has done in
the first turn (its type's posterior under ``SearchSettings.honest`` stays the prior there).

The solves (:func:`coupsolve.search.resolve.solve_opening`) are kept for the process, one per
blueprint, settings and seat (the latest :data:`KEPT_OPENINGS`); the first decision of a seat pays
for its solve, which ``SearchSettings.most_histories`` does not cut.
"""

from __future__ import annotations

from collections import OrderedDict

__all__ = ["KEPT_OPENINGS", "covers", "keep", "kept", "kept_opening"]

#: How many openings (blueprint, settings, seat) the process keeps.
KEPT_OPENINGS = 4

_KEPT: OrderedDict = OrderedDict()


def covers(state, settings) -> bool:
    """Whether the decision at ``state`` (an OpenSpiel state of the blueprint's game) is played from
    the opening under ``settings``: ``settings.opening``, two turns ahead or more, and a decision whose
    re-solve would be cut at the turn a re-solve at the game's start is."""
    from coupsolve.trees.rooted import turn_limit_ahead

    k = settings.lookahead
    return bool(settings.opening) and k > 1 and turn_limit_ahead(state.turn, k) == turn_limit_ahead(0, k)


def _key(blueprint, settings, seat):
    return id(blueprint), settings._replace(threads=None), int(seat)


def kept(blueprint, settings, seat: int) -> bool:
    """Whether the opening of ``seat`` under ``settings`` is solved already."""
    return _key(blueprint, settings, seat) in _KEPT


def kept_opening(blueprint, settings, seat: int):
    """The opening of ``seat`` under ``settings`` solved already, or None."""
    key = _key(blueprint, settings, seat)
    if key not in _KEPT:
        return None
    _KEPT.move_to_end(key)
    return _KEPT[key][1]


def keep(blueprint, settings, seat: int, solved) -> None:
    """Keep ``solved``, the opening of ``seat`` under ``settings`` (the latest :data:`KEPT_OPENINGS`)."""
    _KEPT[_key(blueprint, settings, seat)] = (blueprint, solved)  # the blueprint kept alive: its id stays its own
    while len(_KEPT) > KEPT_OPENINGS:
        _KEPT.popitem(last=False)
