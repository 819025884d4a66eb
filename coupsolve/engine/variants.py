"""The turn variants of the condensed rules sheet: Selective Coup and Factions.

:mod:`coupsolve.engine.turn` calls these hooks: :func:`faction_targets` and :func:`selective_coups` shape the
legal turn actions, :func:`variant_turn` plays a Defect or a Selective Coup. The Factions choice of
sides at setup (phase ``PH_FACTION``) is :func:`faction_actions`/:func:`faction_step`. (The event mat is
:mod:`coupsolve.engine.eventmat`; the marked cards live in each phase they change.)
Arrays: ``P`` ``int32[P_SIZE]``, ``s`` ``int32[S_SIZE]``, ``out`` ``int32[MAX_MOVES]``, ``ev``
``int32[k, 3]`` events with ``ne`` used.
"""

from coupsolve.engine.jit import njit
from coupsolve.engine.core import emit, enter_loss, in_game, influence, marks_at, next_living, pair_code, two_choices
from coupsolve.engine.flow import end_turn, next_turn
from coupsolve.engine.tables import *  # noqa: F403 (the layout constants and tables)


# ---- Factions --------------------------------------------------------------------------------------
@njit(cache=True)
def faction_targets(P, s, a, tmask):
    """Factions: of the seats in bit mask ``tmask``, keep those of the other faction than ``a``'s,
    unless all living players share one faction. Returns the new mask."""
    f = s[S_FACTIONS]
    up = 0
    down = 0
    for p in range(P[P_PLAYERS]):
        if influence(s, p) > 0:
            if (f >> p) & 1:
                down += 1
            else:
                up += 1
    if up == 0 or down == 0:
        return tmask
    mine = (f >> a) & 1
    out = 0
    for t in range(P[P_PLAYERS]):
        if (tmask >> t) & 1 and ((f >> t) & 1) != mine:
            out |= 1 << t
    return out


@njit(cache=True, inline="always")
def faction_actions(P, s, out):
    """PH_FACTION: Faction Up or Faction Down; returns 2."""
    return two_choices(out, ACT_FACTION, ACT_FACTION + 1)


@njit(cache=True, inline="always")
def faction_step(P, s, action, ev, ne):
    """PH_FACTION: S_CURSOR's side (public); after the last seat, the first turn."""
    p = s[S_CURSOR]
    if action != ACT_FACTION:
        s[S_FACTIONS] |= 1 << p
    q = next_living(P, s, p)
    if q == s[S_START]:
        s[S_ACTOR] = s[S_START]
        next_turn(P, s)
    else:
        s[S_CURSOR] = q
    return ne


# ---- Selective Coup ------------------------------------------------------------------------------
@njit(cache=True)
def selective_coups(P, s, tmask, out, k):
    """Selective Coup: append 'Coup pt C' for each target in bit mask ``tmask`` and each character of
    the deck to ``out`` from index ``k``; return the new count."""
    for t in range(P[P_PLAYERS]):
        if (tmask >> t) & 1:
            for c in range(NCH):
                if in_game(P, c):
                    out[k] = ACT_SCOUP + NCH * t + c
                    k += 1
    return k


@njit(cache=True)
def variant_turn(P, s, p, action, ev, ne):
    """Seat ``p`` plays a variant's turn action (Defect, or Selective Coup's 'Coup pt C'), already
    announced; return the new event count."""
    if action == ACT_DEFECT:  # pay 1 coin to the Treasury, flip your own marker
        s[S_COINS + p] -= 1
        s[S_FACTIONS] ^= 1 << p
        end_turn(P, s)
        return ne
    t = (action - ACT_SCOUP) // NCH
    c = (action - ACT_SCOUP) % NCH
    s[S_ACTION] = ACT_COUP
    s[S_TARGET] = t
    s[S_COINS + p] -= P[P_COUP_COST]
    base = S_HAND + NCH * t
    if s[base + c] > 0:
        s[S_NAMED] = c  # until the loss is taken
        # a hit: the target loses that card (a loss restricted to the named character: no decision
        # unless its marked and plain copies differ), seen by all as their 'Lose C'
        enter_loss(s, t, AFTER_KILLED)
        return ne
    # a miss: the target shows their face-down cards to the couper only and loses nothing
    first = -1
    second = -1
    for x in range(NCH):
        for _ in range(s[base + x]):
            if first < 0:
                first = x
            else:
                second = x
    m = first if second < 0 else pair_code(first, second)
    ne = emit(ev, ne, p, (t + 1) * TOKEN_SEAT + CODE_SHOW + m, (t + 1) * TOKEN_SEAT + CODE_MISSED)
    if P[P_MARKED]:  # the marks are on the faces: the couper sees them too
        ne = emit(ev, ne, p, (t + 1) * TOKEN_SEAT + CODE_MARKS + marks_at(s, LOC_HAND + t),
                  (t + 1) * TOKEN_SEAT + CODE_HIDDEN_MARKS)
    end_turn(P, s)
    return ne
