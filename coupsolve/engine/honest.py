"""The honest bot's rule, compiled: one copy, read by :class:`coupsolve.openspiel.bots.HonestBot` (an OpenSpiel
policy) and by the training field of :mod:`coupsolve.sampling.keys` (a seat played by the bot).

:func:`honest_choice` picks one of the legal actions of the seat to act from what that seat sees: its
own face-down cards, every seat's face-up cards, coins and influence, and the public facts of the turn
(the declared action, a block's character). It never reads another seat's hand. The rule is stated in
:class:`coupsolve.openspiel.bots.HonestBot`'s docstring.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from coupsolve import engine as E

__all__ = ["honest_choice", "KEEP_ORDER", "claimed_character", "face_up_copies", "proves_false", "seen_copies"]

#: The bot's preference among its cards, most wanted first: it loses the last and keeps the first.
KEEP_ORDER = (E.DUKE, E.CAPTAIN, E.ASSASSIN, E.CONTESSA, E.AMBASSADOR)
RANK = np.zeros(E.NCH, np.int32)  # RANK[c]: the position of character c in KEEP_ORDER
for _i, _c in enumerate(KEEP_ORDER):
    RANK[_c] = _i


@njit(cache=True)
def _backed(s, me, a):
    """Whether action ``a`` makes no claim, or claims a character ``me`` holds face down."""
    claim = E.ACTION_CLAIM[a] if a < E.NUM_ACTIONS else -1
    return claim < 0 or s[E.S_HAND + E.NCH * me + E.CLAIM_CHAR[claim]] > 0


@njit(cache=True)
def _index(acts, k, a):
    """The position of action ``a`` among ``acts[:k]``, or -1."""
    for j in range(k):
        if acts[j] == a:
            return j
    return -1


@njit(cache=True)
def face_up_copies(P, s, c):
    """The face-up copies of character ``c`` on the whole table."""
    up = 0
    for q in range(P[E.P_PLAYERS]):
        up += s[E.S_FACEUP + E.NCH * q + c]
    return up


@njit(cache=True)
def claimed_character(s, ph):
    """The character claimed by the claim a challenge round is about (-1 if none)."""
    if ph == E.PH_BLOCK_CHALLENGE:
        return s[E.S_BLOCK_CHAR]
    kind = s[E.S_ACTION]
    claim = E.ACTION_CLAIM[kind] if kind >= 0 else -1
    return E.CLAIM_CHAR[claim] if claim >= 0 else -1


@njit(cache=True)
def seen_copies(P, s, p, c):
    """The copies of character ``c`` seat ``p`` sees: its own face-down ones and every face-up one."""
    return s[E.S_HAND + E.NCH * p + c] + face_up_copies(P, s, c)


@njit(cache=True)
def proves_false(P, s, p):
    """Whether seat ``p`` sees that the claim a challenge round at ``s`` is about is false: every copy
    of its character is in ``p``'s hand or face up (False outside a challenge round)."""
    ph = s[E.S_PHASE]
    if ph != E.PH_CHALLENGE and ph != E.PH_BLOCK_CHALLENGE:
        return False
    c = claimed_character(s, ph)
    return c >= 0 and P[E.P_COPIES + c] - seen_copies(P, s, p, c) <= 0


@njit(cache=True)
def _target_better(s, me, q, r, n):
    """Whether opponent ``q`` is a better target than ``r``: more influence, then more coins, then
    earlier in seat order after ``me``."""
    iq, ir = E.influence(s, q), E.influence(s, r)
    if iq != ir:
        return iq > ir
    cq, cr = s[E.S_COINS + q], s[E.S_COINS + r]
    if cq != cr:
        return cq > cr
    return (q - me) % n < (r - me) % n


@njit(cache=True)
def _turn(P, s, me, acts, k):
    """A turn: Coup, else Tax with the Duke, else Assassinate, else Steal from an opponent with coins,
    else Income; targets in :func:`_target_better`'s order."""
    n = P[E.P_PLAYERS]
    order = np.empty(n, np.int32)
    m = 0
    for j in range(1, n):  # the living opponents, best target first (insertion sort)
        q = (me + j) % n
        if E.influence(s, q) > 0:
            i = m
            while i > 0 and _target_better(s, me, q, order[i - 1], n):
                order[i] = order[i - 1]
                i -= 1
            order[i] = q
            m += 1
    tax = _index(acts, k, E.ACT_TAX)
    for j in (_first_target(s, me, acts, k, order, m, E.ACT_COUP),
              tax if tax >= 0 and _backed(s, me, E.ACT_TAX) else -1,
              _first_target(s, me, acts, k, order, m, E.ACT_ASSASSINATE),
              _first_target(s, me, acts, k, order, m, E.ACT_STEAL),
              _index(acts, k, E.ACT_INCOME)):
        if j >= 0:
            return j
    return _first_honest(s, me, acts, k)


@njit(cache=True)
def _first_target(s, me, acts, k, order, m, base):
    """The position of ``base`` aimed at the first of the targets ``order[:m]`` for which it is legal
    and honest (Steal: at an opponent with coins), or -1."""
    for t in range(m):
        q = order[t]
        j = _index(acts, k, base + q)
        if j >= 0 and _backed(s, me, base + q) and (base != E.ACT_STEAL or s[E.S_COINS + q] > 0):
            return j
    return -1


@njit(cache=True)
def _first_honest(s, me, acts, k):
    for j in range(k):
        if _backed(s, me, acts[j]):
            return j
    return 0


@njit(cache=True)
def _keep_key(a):
    """Sort key of an Exchange keep: its cards' ranks, best first, compared as a list (lower is
    better; a shorter list that is a prefix comes first)."""
    m = a - E.ACT_KEEP
    r1 = RANK[E.MS_FIRST[m]]
    if E.MS_SECOND[m] < 0:
        return 10 * r1
    r2 = RANK[E.MS_SECOND[m]]
    lo, hi = min(r1, r2), max(r1, r2)
    return 10 * lo + hi + 1


@njit(cache=True)
def honest_choice(P, s, acts, k):
    """The position among the legal actions ``acts[:k]`` of the action the honest bot plays at the
    decision ``s`` (the rule of :class:`coupsolve.openspiel.bots.HonestBot`)."""
    me = E.current_player(s)
    ph = s[E.S_PHASE]
    if ph == E.PH_TURN:
        return _turn(P, s, me, acts, k)
    if ph == E.PH_CHALLENGE or ph == E.PH_BLOCK_CHALLENGE:
        j = _index(acts, k, E.ACT_CHALLENGE)
        if j >= 0 and proves_false(P, s, me):
            return j
        j = _index(acts, k, E.ACT_PASS)
        return j if j >= 0 else 0
    if ph == E.PH_BLOCK:
        for j in range(k):
            if E.ACT_BLOCK <= acts[j] < E.ACT_BLOCK + E.NCH and _backed(s, me, acts[j]):
                return j
        j = _index(acts, k, E.ACT_PASS)
        return j if j >= 0 else 0
    best, key = -1, -1
    for j in range(k):  # losing: the least wanted card; keeping and choosing: the most wanted
        a = acts[j]
        if ph == E.PH_LOSE and E.ACT_LOSE <= a < E.ACT_LOSE + E.NCH:
            v = RANK[a - E.ACT_LOSE]
        elif ph == E.PH_KEEP and E.ACT_KEEP <= a < E.ACT_KEEP + E.NUM_MULTISETS:
            v = 1000 - _keep_key(a)
        elif ph == E.PH_CHOOSE:
            v = -RANK[a - E.ACT_CHOOSE] if E.ACT_CHOOSE <= a < E.ACT_CHOOSE + E.NCH else -E.NCH
        else:
            continue
        if v > key:
            best, key = j, v
    if ph == E.PH_LOSE or ph == E.PH_KEEP or ph == E.PH_CHOOSE:
        return best if best >= 0 else 0
    return _first_honest(s, me, acts, k)
