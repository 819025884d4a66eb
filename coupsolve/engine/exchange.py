"""The Exchange after it resolves: the actor draws two cards (``PH_EXCHANGE_DRAW``), then keeps as many
cards as they have influence from their hand and the draw (``PH_KEEP``); the rest go back to the deck.

The keep is private (the others see that cards were kept). With the marked cards a keep also says which
marked copies are kept (``ACT_KEEP_MARKED + j``: :mod:`coupsolve.engine.marked`).
Arrays: ``P`` ``int32[P_SIZE]``, ``s`` ``int32[S_SIZE]``, ``out`` ``int32[MAX_MOVES]``, ``prob``
``float64[MAX_MOVES]``, ``ev`` ``int32[k, 3]`` events with ``ne`` used.
"""

from coupsolve.engine.jit import njit
from coupsolve.engine.chance import draw_cards, draw_outcomes, emit_marks
from coupsolve.engine.core import deck_size, emit_private, emit_public, influence, marks_at, move_cards, pair_code, plain_count
from coupsolve.engine.flow import end_turn
from coupsolve.engine.marked import keep_marks, keeps_marked
from coupsolve.engine.tables import *  # noqa: F403 (the layout constants and tables)


@njit(cache=True, inline="always")
def exchange_draw_outcomes(P, s, out, prob):
    """PH_EXCHANGE_DRAW: two cards from the Court deck (fewer when a reduced deck runs short)."""
    return draw_outcomes(P, s, min(2, deck_size(s)), out, prob)


@njit(cache=True, inline="always")
def exchange_draw_step(P, s, outcome, ev, ne):
    """PH_EXCHANGE_DRAW: the drawn cards go to the pool S_POOL, seen by the actor only."""
    a = s[S_ACTOR]
    if deck_size(s) == 0:  # nothing to draw (a tiny reduced deck)
        ne = emit_public(ev, ne, a, CODE_HIDDEN_DRAW0)
        ne = emit_marks(P, ev, ne, a, 0)
    else:
        ne = draw_cards(P, s, outcome, S_POOL, LOC_POOL, ev, ne, a, CODE_DRAW, CODE_HIDDEN_DRAW)
    s[S_PHASE] = PH_KEEP
    return ne


@njit(cache=True, inline="always")
def keep_actions(P, s, out):
    """PH_KEEP: every multiset of S_ACTOR's influence in size from their hand and the pool (plain keeps
    by id, then the keeps holding marked cards). Returns how many."""
    a = s[S_ACTOR]
    keep = influence(s, a)
    base = S_HAND + NCH * a
    marked = (marks_at(s, LOC_HAND + a) | marks_at(s, LOC_POOL)) if P[P_MARKED] else 0
    k = 0
    for x in range(NCH):
        hx = plain_count(s[base + x] + s[S_POOL + x], x, marked)
        if hx == 0:
            continue
        if keep == 1:
            out[k] = ACT_KEEP + x
            k += 1
            continue
        for y in range(x, NCH):
            hy = plain_count(s[base + y] + s[S_POOL + y], y, marked)
            if (x == y and hx >= 2) or (x != y and hy > 0):
                out[k] = ACT_KEEP + pair_code(x, y)
                k += 1
    if marked:
        k = keeps_marked(s, base, keep, marked, out, k)
    return k


@njit(cache=True, inline="always")
def keep_step(P, s, action, ev, ne):
    """PH_KEEP: hand and pool go back to the deck and the kept cards come back to hand (private);
    the turn ends."""
    p = s[S_ACTOR]
    base = S_HAND + NCH * p
    for c in range(NCH):
        s[S_DECK + c] += s[base + c] + s[S_POOL + c]
        s[base + c] = 0
        s[S_POOL + c] = 0
    if P[P_MARKED]:
        keep_marks(s, p, action)
    m = KM_M[action - ACT_KEEP_MARKED] if action >= ACT_KEEP_MARKED else action - ACT_KEEP
    move_cards(s, S_DECK, base, m)
    ne = emit_private(ev, ne, p, action, CODE_HIDDEN_KEEP)
    end_turn(P, s)
    return ne
