"""The packed context of a decision node, for the analysis of a strategy, and the one way to read it.

:func:`node_context` packs what :mod:`coupsolve.analysis.history` needs of a decision (the phase, the open claim,
whether its claimant can prove it, the decider's cards, the turn) into one 32-bit word laid out as
``CTX_*`` in :mod:`coupsolve.engine.tables`; :func:`context_field` reads one field back, from a number or a
whole array of contexts.
"""

from numba import njit

from coupsolve.engine.core import current_player, holds_claim, influence, is_chance
from coupsolve.engine.tables import *  # noqa: F403 (the layout constants and tables)


@njit(cache=True, inline="always")
def context_field(ctx, shift):
    """The field of the packed context ``ctx`` that starts at bit ``shift`` (a ``CTX_*`` constant).

    ``ctx`` is one context or an integer array of them (``int32``, ``uint32`` or ``int64``: the top bit
    of an ``int32`` reads right); returns the same shape.
    """
    return (ctx >> shift) & ((1 << CTX_BITS[shift]) - 1)


@njit(cache=True, inline="always")
def open_claim(s):
    """(claimant seat, claim) of the claim open in ``s`` (``int32[S_SIZE]``): a pending Treaty, else the
    block's once there is a block, else the declared action's; the claim is -1 when there is none."""
    if s[S_TREATY]:
        return s[S_ACTOR], CLAIM_TREATY
    if s[S_BLOCKER] >= 0:
        return s[S_BLOCKER], ACTION_CLAIM[ACT_BLOCK + s[S_BLOCK_CHAR]]
    a = s[S_ACTION]
    return s[S_ACTOR], (ACTION_CLAIM[a] if a >= 0 else -1)


@njit(cache=True)
def node_context(s):
    """The packed context (``CTX_*`` layout) of the decision node ``s`` (``int32[S_SIZE]``), as an int64
    below 2**32; 0 at chance and terminal nodes."""
    ph = s[S_PHASE]
    if is_chance(s) or ph == PH_TERMINAL:
        return 0
    claimant, claim = open_claim(s)
    ctx = ph | ((claim + 1) << CTX_CLAIM) | (min(s[S_TURN], (1 << CTX_BITS[CTX_TURN]) - 1) << CTX_TURN)
    if claimant >= 0:
        if claim >= 0 and holds_claim(s, claimant, claim):
            ctx |= 1 << CTX_HOLDS
        if influence(s, claimant) == 1:
            ctx |= 1 << CTX_ONE
    p = current_player(s)
    if s[S_MARK + TREATY] == LOC_HAND + p:
        ctx |= 1 << CTX_HOLDS_TREATY
    for c in range(NCH):
        if s[S_HAND + NCH * p + c] > 0:
            ctx |= 1 << (CTX_HAND + c)
    ctx |= influence(s, p) << CTX_INFL
    return ctx
