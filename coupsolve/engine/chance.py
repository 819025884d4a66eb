"""Drawing from the Court deck: the outcomes of a draw of one or two cards, and taking the drawn cards.

Every deal, replacement draw and Exchange draw goes through these two functions, with or without the
marked cards (which tell a marked copy from the plain ones: see :mod:`coupsolve.engine.tables`). The phases'
own chance steps are beside their decisions (:mod:`coupsolve.engine.deal`, :mod:`coupsolve.engine.loss`,
:mod:`coupsolve.engine.exchange`, :mod:`coupsolve.engine.eventmat`); :mod:`coupsolve.engine` dispatches on the phase.
Arrays: ``P`` ``int32[P_SIZE]``, ``s`` ``int32[S_SIZE]``, ``out`` ``int32[MAX_MOVES]`` outcome ids,
``prob`` ``float64[MAX_MOVES]`` their probabilities, ``ev`` ``int32[k, 3]`` events with ``ne`` used.
"""

from coupsolve.engine.jit import njit
from coupsolve.engine.core import deck_size, emit_private, marks_at, move_cards, pair_code, plain_count
from coupsolve.engine.tables import *  # noqa: F403 (the layout constants and tables)


@njit(cache=True, inline="always")
def _copies(s, t, in_deck):
    """Copies in the Court deck of card type ``t``: 0-4 the plain copies of a character, 5 + k the
    marked card k (``in_deck``: bit mask of the marked cards in the deck)."""
    if t >= NCH:
        return (in_deck >> (t - NCH)) & 1
    return plain_count(s[S_DECK + t], t, in_deck)


@njit(cache=True, inline="always")
def _type_char(t):
    return t if t < NCH else MARK_CHAR[t - NCH]


@njit(cache=True, inline="always")
def _type_mask(t):
    return 1 << (t - NCH) if t >= NCH else 0


@njit(cache=True, inline="always")
def draw_id(m, mask):
    """The chance outcome id of multiset code ``m`` holding the marked cards of ``mask``."""
    return m if mask == 0 else CH_MARKED + 8 * m + mask


@njit(cache=True, inline="always")
def draw_outcomes(P, s, k, out, prob):
    """Fill ``out``/``prob`` with the outcomes of drawing ``k`` (0, 1 or 2) cards from the Court deck,
    sorted by id; return how many. An outcome is the multiset code of the cards, or with marked cards
    among them ``CH_MARKED + 8 * multiset + mask``."""
    in_deck = marks_at(s, LOC_DECK) if P[P_MARKED] else 0
    types = NCH + 3 if in_deck else NCH
    total = deck_size(s)
    nout = 0
    if k == 1:
        for t in range(types):
            x = _copies(s, t, in_deck)
            if x > 0:
                out[nout] = draw_id(_type_char(t), _type_mask(t))
                prob[nout] = x / total
                nout += 1
    elif k == 2:
        denom = total * (total - 1)
        for t1 in range(types):
            x1 = _copies(s, t1, in_deck)
            if x1 == 0:
                continue
            for t2 in range(t1, types):
                w = x1 * (x1 - 1) if t1 == t2 else 2 * x1 * _copies(s, t2, in_deck)
                if w > 0:
                    out[nout] = draw_id(pair_code(_type_char(t1), _type_char(t2)), _type_mask(t1) | _type_mask(t2))
                    prob[nout] = w / denom
                    nout += 1
    if in_deck:
        sort_outcomes(out, prob, nout)
    return nout


@njit(cache=True)
def sort_outcomes(out, prob, nout):
    """Sort the first ``nout`` outcomes by id, their probabilities along (insertion sort: a few dozen)."""
    for i in range(1, nout):
        a = out[i]
        p = prob[i]
        j = i - 1
        while j >= 0 and out[j] > a:
            out[j + 1] = out[j]
            prob[j + 1] = prob[j]
            j -= 1
        out[j + 1] = a
        prob[j + 1] = p


@njit(cache=True)
def draw_cards(P, s, outcome, dst, loc, ev, ne, seat, code, hidden_code):
    """Take the cards of a draw ``outcome`` from the Court deck into the counts at state index ``dst``.

    ``loc`` is where its marked cards go (``LOC_*``). ``seat`` sees ``code + multiset`` and the others
    ``hidden_code + cards - 1``; with the marked cards, a ``CODE_MARKS + mask`` event follows. Returns the
    new event count.
    """
    m = outcome
    mask = 0
    if outcome >= CH_MARKED:
        mask = (outcome - CH_MARKED) & 7
        m = (outcome - CH_MARKED) >> 3
    for k in range(3):
        if (mask >> k) & 1:
            s[S_MARK + k] = loc
    move_cards(s, S_DECK, dst, m)
    ne = emit_private(ev, ne, seat, code + m, hidden_code + MS_SIZE[m] - 1)
    return emit_marks(P, ev, ne, seat, mask)


@njit(cache=True, inline="always")
def emit_marks(P, ev, ne, seat, mask):
    """With the marked cards, tell ``seat`` which of the cards just dealt or drawn are marked (``mask``)."""
    if P[P_MARKED]:
        ne = emit_private(ev, ne, seat, CODE_MARKS + mask, CODE_HIDDEN_MARKS)
    return ne
