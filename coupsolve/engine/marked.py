"""The marked cards (a house rule): Inheritance, Vengeance and Treaty, where they change a phase's rules.

Each marked card is one copy of its character whose place is ``S_MARK + k`` (:mod:`coupsolve.engine.tables`).
The phases call these hooks when ``P[P_MARKED]`` is on: a loss to a Coup or an Assassination
(:func:`killed_marked`: the Inheritance's coins, the Vengeance's free Assassination, which
:mod:`coupsolve.engine.turn` then plays), a proof (:func:`proof_mark`), an Exchange's keep (:func:`keeps_marked`,
:func:`keep_marks`). Telling the marked copies apart in draws, losses and flips is part of those phases'
own lists (:mod:`coupsolve.engine.chance`, :mod:`coupsolve.engine.loss`, :mod:`coupsolve.engine.eventmat`); the Treaty is
a claim (:mod:`coupsolve.engine.claims`).
Arrays: ``P`` ``int32[P_SIZE]``, ``s`` ``int32[S_SIZE]`` (mutated in place), ``out`` ``int32[MAX_MOVES]``.
"""

from coupsolve.engine.jit import njit
from coupsolve.engine.core import influence, plain_count
from coupsolve.engine.tables import *  # noqa: F403 (the layout constants and tables)


@njit(cache=True)
def killed_marked(P, s, p, m):
    """Seat ``p`` lost marked card ``m`` to a Coup or an Assassination: the Inheritance pays its coins;
    the Vengeance after a Coup gives its owner, still in the game, a free Assassination (phase
    PH_VENGEANCE; returns True). Returns False when the turn goes on as after any loss."""
    if m == INHERITANCE:
        s[S_COINS + p] += INHERITANCE_COINS
    elif m == VENGEANCE and s[S_ACTION] == ACT_COUP and influence(s, p) > 0:
        s[S_SAVED_ACTOR] = s[S_ACTOR]
        s[S_ACTOR] = p
        s[S_CURSOR] = p
        s[S_ACTION] = ACT_VENGEANCE
        s[S_TARGET] = -1
        s[S_NAMED] = -1
        s[S_PHASE] = PH_VENGEANCE
        return True
    return False


@njit(cache=True, inline="always")
def proof_mark(s, seat, claim):
    """``seat`` proves ``claim`` and the shown card goes back to the deck: a claim only the marked card
    proves (the Treaty) shows it; otherwise the proof shows a plain copy when the seat holds one besides
    the marked copy (the mark is kept), and the marked copy when it is the only one."""
    c = CLAIM_CHAR[claim]
    m = CHAR_MARK[c]
    if m >= 0 and s[S_MARK + m] == LOC_HAND + seat and (CLAIM_MARK[claim] >= 0 or s[S_HAND + NCH * seat + c] == 1):
        s[S_MARK + m] = LOC_DECK


@njit(cache=True)
def keeps_marked(s, base, keep, marked, out, k):
    """Append to ``out`` from index ``k`` the Exchange keeps of ``keep`` cards that hold marked cards
    (``ACT_KEEP_MARKED + j``); ``base`` is the keeper's hand index, ``marked`` the marked cards in hand
    and pool. The plain cards such a keep needs besides its marked ones must be there too."""
    for j in range(NUM_KEEP_MARKED):
        m = KM_M[j]
        mask = KM_MASK[j]
        if MS_SIZE[m] != keep or (mask & ~marked) != 0:
            continue
        ok = True
        for c in range(NCH):
            in_m = (MS_FIRST[m] == c) + (MS_SECOND[m] == c)
            if plain_count(in_m, c, mask) > plain_count(s[base + c] + s[S_POOL + c], c, marked):
                ok = False
        if ok:
            out[k] = ACT_KEEP_MARKED + j
            k += 1
    return k


@njit(cache=True)
def keep_marks(s, p, action):
    """Seat ``p`` keeps ``action``: every marked card of the hand and the pool goes back to the deck,
    then the kept ones (``ACT_KEEP_MARKED + j``) come to the hand."""
    for mm in range(3):
        if s[S_MARK + mm] == LOC_POOL or s[S_MARK + mm] == LOC_HAND + p:
            s[S_MARK + mm] = LOC_DECK
    if action >= ACT_KEEP_MARKED:
        mask = KM_MASK[action - ACT_KEEP_MARKED]
        for mm in range(3):
            if (mask >> mm) & 1:
                s[S_MARK + mm] = LOC_HAND + p
