"""A two-player Coup state split into its public part and each player's private *class*.

The class walk (:mod:`coupsolve.trees.classwalk.walk`) never holds a history: it holds public nodes, each
player's entries at them, and each player's *classes*, the distinct private parts of the engine state
that the player's entries stand for. A class is ``int32[NCL]``: the player's face-down cards
(``hand``, one count per character), the cards of the player's own selection set that are out of the
game (``out``; the card-selection setup's leftovers, all zero in the standard setup) and the cards the
player holds in an Exchange's pool (``pool``). Everything else in the state is public, and the Court
deck is what no class and no public field holds: ``copies - hands - face-up - out - pool``. So
:func:`compose` rebuilds the one engine state of a public state and two classes, and
:func:`decompose` splits a state after a step back into classes, checking that the deck still is what
the classes leave (else the rules hold hidden cards this split does not know, and the walk refuses).

The split holds for the rules :func:`supported` accepts: two players, no marked cards and no event
mat (their cards' places and the face-down event cards are hidden state of nobody's class).
"""

from __future__ import annotations

from numba import njit

from coupsolve import engine as E

NCL = 3 * E.NCH  # hand, out, pool
C_HAND, C_OUT, C_POOL = 0, E.NCH, 2 * E.NCH
TOKW = E.MAX_EVENTS_PER_STEP  # events one unsettled engine step may emit
PRIVATE_FIELDS = ((E.S_HAND, 2 * E.NCH), (E.S_OUT, E.NCH), (E.S_POOL, E.NCH), (E.S_DECK, E.NCH))


def supported(rules) -> str:
    """Why the class walk cannot build ``rules`` ('' when it can)."""
    if rules.players != 2:
        return f"{rules.players} players (the public tree is for two-player games)"
    if rules.marked_cards:
        return "marked cards (where a marked card lies is hidden from both players)"
    if rules.event_mat:
        return "the event mat (its face-down cards are hidden from both players)"
    return ""


@njit(cache=True)
def compose(P, pub, cls, s):
    """Write into ``s`` the state of public part ``pub`` (``int32[S_SIZE]``, private fields ignored)
    and classes ``cls`` (``int32[2, NCL]``)."""
    s[:] = pub
    for c in range(E.NCH):
        held = 0
        for q in range(2):
            h = cls[q, C_HAND + c]
            s[E.S_HAND + E.NCH * q + c] = h
            held += h + cls[q, C_OUT + c] + cls[q, C_POOL + c] + s[E.S_FACEUP + E.NCH * q + c]
        s[E.S_OUT + c] = cls[0, C_OUT + c] + cls[1, C_OUT + c]
        s[E.S_POOL + c] = cls[0, C_POOL + c] + cls[1, C_POOL + c]
        s[E.S_DECK + c] = P[E.P_COPIES + c] - held


@njit(cache=True)
def decompose(P, s, before, mover, out):
    """Split state ``s`` (after a step from classes ``before``, ``int32[2, NCL]``, made by seat
    ``mover``, -1 for chance) into classes ``out`` (``int32[2, NCL]``). The change in the out-of-game
    cards belongs to the mover, the pool to the turn's actor.

    Returns
    -------
    bool
        False when the state does not split (hidden cards outside the classes, or out-of-game cards
        moved by chance): the rules are outside what the walk supports.
    """
    owner = s[E.S_ACTOR]
    for c in range(E.NCH):
        pool = s[E.S_POOL + c]
        moved = s[E.S_OUT + c] - before[0, C_OUT + c] - before[1, C_OUT + c]
        if (pool != 0 and (owner < 0 or owner > 1)) or (moved != 0 and mover < 0):
            return False
        held = 0
        for q in range(2):
            out[q, C_HAND + c] = s[E.S_HAND + E.NCH * q + c]
            out[q, C_OUT + c] = before[q, C_OUT + c] + (moved if q == mover else 0)
            out[q, C_POOL + c] = pool if q == owner else 0
            held += (out[q, C_HAND + c] + out[q, C_OUT + c] + out[q, C_POOL + c]
                     + s[E.S_FACEUP + E.NCH * q + c])
        if s[E.S_DECK + c] != P[E.P_COPIES + c] - held:
            return False
    return True


@njit(cache=True)
def initial_classes(s, cls):
    """The classes of the initial state ``s``: each player's hand, half the out-of-game cards (each
    player's own selection set), no pool."""
    for c in range(E.NCH):
        for q in range(2):
            cls[q, C_HAND + c] = s[E.S_HAND + E.NCH * q + c]
            cls[q, C_OUT + c] = s[E.S_OUT + c] // 2
            cls[q, C_POOL + c] = 0
    for c in range(E.NCH):
        if s[E.S_OUT + c] % 2 != 0 or s[E.S_POOL + c] != 0:
            return False
    return True


@njit(cache=True)
def public_part(s, pub):
    """``pub``: ``s`` with the private fields zeroed (two states of one public node are equal here)."""
    pub[:] = s
    for k in range(len(PRIVATE_FIELDS)):
        lo, n = PRIVATE_FIELDS[k]
        pub[lo:lo + n] = 0


@njit(cache=True)
def moves(P, s, out, prob):
    """The moves of ``s`` as the history tree's step takes them: chance outcomes with their
    probabilities (an Exchange from an empty deck is one outcome), else the legal actions (prob 1).
    Returns their number (0 at a terminal)."""
    if E.is_chance(s):
        if s[E.S_PHASE] == E.PH_EXCHANGE_DRAW and E.deck_size(s) == 0:
            out[0], prob[0] = 0, 1.0
            return 1
        return E.chance_outcomes(P, s, out, prob)
    k = E.legal_actions(P, s, out)
    for i in range(k):
        prob[i] = 1.0
    return k


@njit(cache=True, inline="always")
def view_token(ev, i, q):
    """What player ``q`` (-1: nobody in particular, the public view) sees of event row ``i``."""
    if ev[i, 0] < 0 or ev[i, 0] == q:
        return ev[i, 1]
    return ev[i, 2]
