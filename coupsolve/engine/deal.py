"""The setup: the starting seat, starting coins, the deal, the card-selection choice, the event mat's cards.

Standard setup: two cards to each seat in turn (``PH_DEAL``). Card-selection setup (two players): each
chooses one card of their own set of the five characters (``PH_CHOOSE``, private), then gets one card
from the third set, the Court deck (``PH_DEAL_ONE``). A random starting seat is a chance node first
(``PH_START_SEAT``). After the deal (:func:`coupsolve.engine.flow.deal_done`) come the event mat's face-down
cards (``PH_EVENT_DEAL``), the Factions choice (:mod:`coupsolve.engine.variants`), then the first turn.
Arrays: ``P`` ``int32[P_SIZE]``, ``s`` ``int32[S_SIZE]``, ``out`` ``int32[MAX_MOVES]``, ``prob``
``float64[MAX_MOVES]``, ``ev`` ``int32[k, 3]`` events with ``ne`` used.
"""

from coupsolve.engine.jit import njit
from coupsolve.engine.chance import draw_cards, draw_outcomes
from coupsolve.engine.core import deck_size, emit_private, emit_public, in_game, marks_at, plain_count
from coupsolve.engine.flow import deal_done
from coupsolve.engine.tables import *  # noqa: F403 (the layout constants and tables)


@njit(cache=True)
def reset(P, s):
    """Fill ``s`` with the state before the first chance event (the deck, the selection sets, the
    marked cards in the deck; the starting seat's coins when it is fixed)."""
    s[:] = 0
    for i in range(16):
        s[i] = -1
    s[S_NAMED] = -1
    s[S_SAVED_ACTOR] = -1
    for m in range(3):
        s[S_MARK + m] = LOC_DECK if P[P_MARKED] and in_game(P, MARK_CHAR[m]) else LOC_NONE
    s[S_TURN] = 0
    n = P[P_PLAYERS]
    for c in range(NCH):
        if P[P_SETUP] == SETUP_STANDARD:
            s[S_DECK + c] = P[P_COPIES + c]
        else:  # selection: the third set is the deck; the two players' sets wait out of the game
            s[S_DECK + c] = 1 if P[P_COPIES + c] > 0 else 0
            s[S_OUT + c] = n if P[P_COPIES + c] > 0 else 0
    if P[P_START_SEAT] < 0:
        s[S_PHASE] = PH_START_SEAT
    else:
        _seat_coins(P, s, P[P_START_SEAT])


@njit(cache=True)
def _seat_coins(P, s, start):
    """Seat ``start`` begins: the starting coins in turn order from it, then the deal or the choice."""
    n = P[P_PLAYERS]
    s[S_START] = start
    for i in range(n):
        s[S_COINS + (start + i) % n] = P[P_START_COINS + i]
    if P[P_SETUP] == SETUP_STANDARD:
        s[S_PHASE] = PH_DEAL
    else:
        s[S_PHASE] = PH_CHOOSE
    s[S_CURSOR] = 0


@njit(cache=True, inline="always")
def start_outcomes(P, s, out, prob):
    """PH_START_SEAT: each seat with probability 1 / players."""
    n = P[P_PLAYERS]
    for i in range(n):
        out[i] = CH_START + i
        prob[i] = 1.0 / n
    return n


@njit(cache=True, inline="always")
def start_step(P, s, outcome, ev, ne):
    """PH_START_SEAT: the starting seat is drawn (public)."""
    seat = outcome - CH_START
    ne = emit_public(ev, ne, 0, CODE_START + seat)
    _seat_coins(P, s, seat)
    return ne


@njit(cache=True, inline="always")
def deal_outcomes(P, s, out, prob):
    """PH_DEAL: two cards from the Court deck; PH_DEAL_ONE: one."""
    return draw_outcomes(P, s, 2 if s[S_PHASE] == PH_DEAL else 1, out, prob)


@njit(cache=True, inline="always")
def deal_step(P, s, outcome, ev, ne):
    """PH_DEAL / PH_DEAL_ONE: S_CURSOR gets the dealt cards (private); after the last seat, deal_done."""
    p = s[S_CURSOR]
    ne = draw_cards(P, s, outcome, S_HAND + NCH * p, LOC_HAND + p, ev, ne, p, CODE_DEAL, CODE_HIDDEN_DEAL)
    if p + 1 == P[P_PLAYERS]:
        deal_done(P, s)
    else:
        s[S_CURSOR] = p + 1
    return ne


@njit(cache=True, inline="always")
def choose_actions(P, s, out):
    """PH_CHOOSE: 'Choose C' for each character in the game."""
    k = 0
    for c in range(NCH):
        if in_game(P, c):
            out[k] = ACT_CHOOSE + c
            k += 1
    return k


@njit(cache=True, inline="always")
def choose_step(P, s, action, ev, ne):
    """PH_CHOOSE: S_CURSOR takes the chosen card from their set (private); after the last seat, the deal."""
    p = s[S_CURSOR]
    c = action - ACT_CHOOSE
    s[S_HAND + NCH * p + c] += 1
    s[S_OUT + c] -= 1
    ne = emit_private(ev, ne, p, action, CODE_HIDDEN_CHOOSE)
    if p + 1 == P[P_PLAYERS]:
        s[S_PHASE] = PH_DEAL_ONE
        s[S_CURSOR] = 0
    else:
        s[S_CURSOR] = p + 1
    return ne


@njit(cache=True)
def _choose(a, b):
    """The binomial coefficient a choose b, as a float (0 outside 0 <= b <= a)."""
    if b < 0 or b > a:
        return 0.0
    r = 1.0
    for i in range(b):
        r = r * (a - i) / (i + 1)
    return r


@njit(cache=True, inline="always")
def event_deal_outcomes(P, s, out, prob):
    """PH_EVENT_DEAL: ``P[P_EVENT_MAT]`` cards from the Court deck (multivariate hypergeometric), as
    ``CH_EVENTS + 8 * i + mask`` for multiset i of ``EV_MS`` holding the marked cards of mask."""
    k = P[P_EVENT_MAT]
    denom = _choose(deck_size(s), k)
    in_deck = marks_at(s, LOC_DECK)
    nout = 0
    for i in range(NUM_EVENT_MULTISETS):
        if EV_MS_SIZE[i] != k:
            continue
        for mask in range(8):
            if mask & ~in_deck:
                continue
            w = 1.0
            for c in range(NCH):
                w *= _choose(plain_count(s[S_DECK + c], c, in_deck), plain_count(EV_MS[i, c], c, mask))
            if w > 0:
                out[nout] = CH_EVENTS + 8 * i + mask
                prob[nout] = w / denom
                nout += 1
    return nout


@njit(cache=True, inline="always")
def event_deal_step(P, s, outcome, ev, ne):
    """PH_EVENT_DEAL: the cards go face down on the event mat (public that it happened; nobody sees them)."""
    i = (outcome - CH_EVENTS) >> 3
    emask = (outcome - CH_EVENTS) & 7
    for m in range(3):
        if (emask >> m) & 1:
            s[S_MARK + m] = LOC_EVENT
    for c in range(NCH):
        s[S_EVENT + c] += EV_MS[i, c]
        s[S_DECK + c] -= EV_MS[i, c]
    s[S_EVENT_DONE] |= EV_DEALT
    ne = emit_public(ev, ne, 0, CODE_EVENTS)
    deal_done(P, s)
    return ne
