"""The order of a game between its phases: after the deal, the end of a turn, the start of the next.

Every phase that finishes a turn calls :func:`end_turn`; the setup calls :func:`deal_done`. The hooks of
the variants that work between turns are here: the event mat's flips (:func:`coupsolve.engine.eventmat.event_turn`)
and ``turn_over`` (a Vengeance's actor restored, a Treaty or a Selective Coup's named character cleared).
Arrays: ``P`` ``int32[P_SIZE]``, ``s`` ``int32[S_SIZE]`` (mutated in place).
"""

from coupsolve.engine.jit import njit
from coupsolve.engine.core import begin_turn, influence, next_living
from coupsolve.engine.eventmat import event_turn
from coupsolve.engine.tables import *  # noqa: F403 (the layout constants and tables)


@njit(cache=True)
def deal_done(P, s):
    """Every seat has its cards: the event mat's cards, Factions' choice of sides, or the first turn."""
    s[S_ACTOR] = s[S_START]
    if P[P_EVENT_MAT] and not s[S_EVENT_DONE] & EV_DEALT:
        s[S_PHASE] = PH_EVENT_DEAL
    elif P[P_FACTIONS]:
        s[S_PHASE] = PH_FACTION
        s[S_CURSOR] = s[S_START]
    else:
        next_turn(P, s)


@njit(cache=True)
def next_turn(P, s):
    """Begin the turn of S_ACTOR (the event mat's flips and coin come first)."""
    begin_turn(s)
    if P[P_EVENT_MAT]:
        event_turn(P, s)


@njit(cache=True, inline="always")
def end_turn(P, s):
    """The turn is over: clear the eliminated seats' coins, then the game ends at the turn limit or the
    next living seat begins its turn."""
    n = P[P_PLAYERS]
    if P[P_TURN_HOOK]:
        turn_over(s)
    for p in range(n):
        if influence(s, p) == 0:
            s[S_COINS + p] = 0
    if s[S_TURN] >= P[P_TURN_LIMIT]:
        s[S_PHASE] = PH_TERMINAL
        return
    s[S_ACTOR] = next_living(P, s, s[S_ACTOR])
    next_turn(P, s)


@njit(cache=True)
def turn_over(s):
    """Between turns: a Vengeance is over (back to the turn's actor); no Treaty claim is pending; no
    Selective Coup's named character."""
    if s[S_SAVED_ACTOR] >= 0:
        s[S_ACTOR] = s[S_SAVED_ACTOR]
        s[S_SAVED_ACTOR] = -1
    s[S_TREATY] = 0
    s[S_NAMED] = -1
