"""The event mat (a house rule): when its face-down cards flip, the flip itself, the starting player's coin.

The mat's cards are dealt during setup (:mod:`coupsolve.engine.deal`); between turns, :mod:`coupsolve.engine.flow`
calls :func:`event_turn`, which flips the next card that is due (phase ``PH_FLIP``, a chance node).
Decisions where the printed rules are silent: slot 2 holds the coin, not a card; a flip 'after a lost
card' is made once the turn in which the card was lost is over, before the next turn (and never after
the last turn); the cards lost to the flips' triggers are the players' face-up cards.
Arrays: ``P`` ``int32[P_SIZE]``, ``s`` ``int32[S_SIZE]``, ``out``/``prob`` ``int32``/``float64[MAX_MOVES]``,
``ev`` ``int32[k, 3]`` events with ``ne`` used.
"""

from coupsolve.engine.jit import njit
from coupsolve.engine.core import emit_public, marks_at, plain_count
from coupsolve.engine.tables import *  # noqa: F403 (the layout constants and tables)


@njit(cache=True)
def event_turn(P, s):
    """At the start of S_ACTOR's turn: count the starting player's turns, then flip what is due."""
    if s[S_ACTOR] == s[S_START]:
        s[S_START_TURNS] += 1
    event_check(P, s)


@njit(cache=True)
def event_check(P, s):
    """At the start of a turn: flip the next event-mat card that is due (phase PH_FLIP), if any, or give
    the starting player the mat's coin at their second turn."""
    n = P[P_PLAYERS]
    done = s[S_EVENT_DONE]
    lost = 0
    for i in range(NCH * n):
        lost += s[S_FACEUP + i]
    if n <= 4 and lost >= 1 and not done & EV_SLOT4:
        s[S_EVENT_DONE] |= EV_SLOT4
        s[S_PHASE] = PH_FLIP
        return
    if n <= 3 and lost >= 2 and not done & EV_SLOT5:
        s[S_EVENT_DONE] |= EV_SLOT5
        s[S_PHASE] = PH_FLIP
        return
    if s[S_ACTOR] != s[S_START]:
        return
    k = s[S_START_TURNS]
    if k == 1 and not done & EV_SLOT1:
        s[S_EVENT_DONE] |= EV_SLOT1
        s[S_PHASE] = PH_FLIP
    elif k == 2 and not done & EV_COIN:
        s[S_EVENT_DONE] |= EV_COIN
        s[S_COINS + s[S_ACTOR]] += 1
    elif k == 3 and n <= 4 and not done & EV_SLOT3:
        s[S_EVENT_DONE] |= EV_SLOT3
        s[S_PHASE] = PH_FLIP


@njit(cache=True, inline="always")
def flip_outcomes(P, s, out, prob):
    """PH_FLIP: a uniform draw from the face-down event cards (``Flip C``, a marked card's own id)."""
    total = 0
    for c in range(NCH):
        total += s[S_EVENT + c]
    marked = marks_at(s, LOC_EVENT)
    nout = 0
    for c in range(NCH):
        x = plain_count(s[S_EVENT + c], c, marked)
        if x > 0:
            out[nout] = CH_FLIP + c
            prob[nout] = x / total
            nout += 1
    for m in range(3):
        if (marked >> m) & 1:
            out[nout] = CH_FLIP_MARKED + m
            prob[nout] = 1.0 / total
            nout += 1
    return nout


@njit(cache=True, inline="always")
def flip_step(P, s, outcome, ev, ne):
    """PH_FLIP: turn the drawn card face up (public), then flip again if another card is due."""
    if outcome >= CH_FLIP_MARKED:
        m = outcome - CH_FLIP_MARKED
        c = MARK_CHAR[m]
        s[S_MARK + m] = LOC_EVENT_UP
        ne = emit_public(ev, ne, 0, CODE_FLIP_MARKED + m)
    else:
        c = outcome - CH_FLIP
        ne = emit_public(ev, ne, 0, CODE_FLIP + c)
    s[S_EVENT + c] -= 1
    s[S_EVENT_UP + c] += 1
    s[S_PHASE] = PH_TURN
    event_check(P, s)
    return ne
