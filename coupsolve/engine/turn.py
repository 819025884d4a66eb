"""A turn's actions: which may be declared, who may block each, and what each does when it resolves.

Every rule of an action is here: Income, Foreign Aid, Tax, Exchange, Coup, Assassinate, Steal and the
marked cards' Vengeance (a free Assassination). The character an action claims is
``CLAIM_CHAR[ACTION_CLAIM[kind]]`` (:mod:`coupsolve.engine.tables`); the challenge and block rounds in between
are :mod:`coupsolve.engine.claims`, the loss of influence :mod:`coupsolve.engine.loss`, the Exchange's draw and
keep :mod:`coupsolve.engine.exchange`. A turn goes: :func:`turn_step` (declare) -> challenge round ->
:func:`open_block_round` -> block round -> :func:`resolve` or :func:`block_stands` -> ``flow.end_turn``.
Arrays: ``P`` ``int32[P_SIZE]``, ``s`` ``int32[S_SIZE]``, ``out`` ``int32[MAX_MOVES]``, ``ev``
``int32[k, 3]`` events with ``ne`` used.
"""

from coupsolve.engine.jit import njit
from coupsolve.engine.core import enter_loss, in_game, influence, next_living
from coupsolve.engine.flow import end_turn
from coupsolve.engine.tables import *  # noqa: F403 (the layout constants and tables)
from coupsolve.engine.variants import faction_targets, selective_coups, variant_turn


@njit(cache=True, inline="always")
def _add_targets(out, k, first, tmask, n):
    """Append ``first + t`` for every seat t < n in bit mask ``tmask``; return the new count."""
    for t in range(n):
        if (tmask >> t) & 1:
            out[k] = first + t
            k += 1
    return k


@njit(cache=True, inline="always")
def _living_others(P, s, a):
    """Bit mask of the seats other than ``a`` that still have influence."""
    mask = 0
    for t in range(P[P_PLAYERS]):
        if t != a and influence(s, t) > 0:
            mask |= 1 << t
    return mask


@njit(cache=True, inline="always")
def turn_actions(P, s, out):
    """PH_TURN: fill ``out`` with S_ACTOR's legal actions, sorted; return how many.

    Targets are the living opponents (Factions: of the other faction unless all living share one);
    at ``P_FORCED_COUP`` coins only a Coup is legal.
    """
    n = P[P_PLAYERS]
    a = s[S_ACTOR]
    coins = s[S_COINS + a]
    tmask = _living_others(P, s, a)
    if P[P_FACTIONS]:
        tmask = faction_targets(P, s, a, tmask)
    selective = P[P_SELECTIVE_COUP]
    if coins >= P[P_FORCED_COUP]:
        if selective:
            return selective_coups(P, s, tmask, out, 0)
        return _add_targets(out, 0, ACT_COUP, tmask, n)
    out[0] = ACT_INCOME
    out[1] = ACT_FOREIGN_AID
    k = 2
    if in_game(P, DUKE):
        out[k] = ACT_TAX
        k += 1
    if in_game(P, AMBASSADOR):
        out[k] = ACT_EXCHANGE
        k += 1
    coup = coins >= P[P_COUP_COST]
    if coup and not selective:
        k = _add_targets(out, k, ACT_COUP, tmask, n)
    if coins >= P[P_ASSASSINATE_COST] and in_game(P, ASSASSIN):
        k = _add_targets(out, k, ACT_ASSASSINATE, tmask, n)
    if in_game(P, CAPTAIN):
        k = _add_targets(out, k, ACT_STEAL, tmask, n)
    if coup and selective:
        k = selective_coups(P, s, tmask, out, k)
    if P[P_FACTIONS] and coins >= 1:
        out[k] = ACT_DEFECT
        k += 1
    return k


@njit(cache=True, inline="always")
def turn_step(P, s, action, ev, ne):
    """PH_TURN: S_ACTOR declares ``action`` (public); it is paid for, then challenged, blocked or resolved."""
    p = s[S_ACTOR]
    if action >= ACT_SCOUP:
        return variant_turn(P, s, p, action, ev, ne)
    kind = ACTION_KIND[action]
    s[S_ACTION] = kind
    if KIND_TARGETED[kind]:
        s[S_TARGET] = action - kind
    if kind == ACT_INCOME:
        s[S_COINS + p] += 1
        end_turn(P, s)
    elif kind == ACT_FOREIGN_AID:
        open_block_round(P, s)
    elif kind == ACT_COUP:
        s[S_COINS + p] -= P[P_COUP_COST]
        resolve(P, s)
    else:  # a claim (Tax, Exchange, Assassinate, Steal): every other player may challenge it in turn
        if kind == ACT_ASSASSINATE:
            s[S_COINS + p] -= P[P_ASSASSINATE_COST]
        s[S_CURSOR] = next_living(P, s, p)
        s[S_PHASE] = PH_CHALLENGE
    return ne


@njit(cache=True, inline="always")
def vengeance_actions(P, s, out):
    """PH_VENGEANCE: the free Assassination may target any other living player ('against anyone')."""
    return _add_targets(out, 0, ACT_VENGEANCE, _living_others(P, s, s[S_CURSOR]), P[P_PLAYERS])


@njit(cache=True, inline="always")
def vengeance_step(P, s, action, ev, ne):
    """PH_VENGEANCE: the Vengeance owner names the target (public); the target may block with Contessa."""
    s[S_TARGET] = action - ACT_VENGEANCE
    open_block_round(P, s)
    return ne


@njit(cache=True, inline="always")
def can_block(P, s, c):
    """Whether character ``c`` may be claimed to block the declared action (blocker: S_CURSOR)."""
    if not in_game(P, c):
        return False
    kind = s[S_ACTION]
    if kind == ACT_FOREIGN_AID:
        return c == DUKE
    if kind == ACT_STEAL:
        return c == CAPTAIN or c == AMBASSADOR
    if kind == ACT_ASSASSINATE:
        return c == CONTESSA
    if kind == ACT_TAX:  # Blocking Contessa
        return c == CONTESSA and P[P_CONTESSA_TAX] != 0
    if kind == ACT_VENGEANCE:  # the free Assassination: the target may block with Contessa
        return c == CONTESSA
    return False


@njit(cache=True, inline="always")
def open_block_round(P, s):
    """After the challenge round (or none): open the block round, or resolve an unblockable action.

    Foreign Aid (and with Blocking Contessa, Tax) may be blocked by every other player in seat order;
    Steal, Assassinate and Vengeance by their living target only.
    """
    kind = s[S_ACTION]
    actor = s[S_ACTOR]
    if kind == ACT_FOREIGN_AID:
        if in_game(P, DUKE):
            s[S_CURSOR] = next_living(P, s, actor)
            s[S_PHASE] = PH_BLOCK
            return
    elif kind == ACT_TAX:
        if P[P_CONTESSA_TAX] and in_game(P, CONTESSA):
            s[S_CURSOR] = next_living(P, s, actor)
            s[S_PHASE] = PH_BLOCK
            return
    elif kind == ACT_STEAL or kind == ACT_ASSASSINATE or kind == ACT_VENGEANCE:
        t = s[S_TARGET]
        if influence(s, t) > 0:
            s[S_CURSOR] = t
            for c in range(NCH):
                if can_block(P, s, c):
                    s[S_PHASE] = PH_BLOCK
                    return
    resolve(P, s)


@njit(cache=True, inline="always")
def resolve(P, s):
    """The declared action takes effect: coins move, the target loses an influence, or the Exchange draws."""
    kind = s[S_ACTION]
    a = s[S_ACTOR]
    t = s[S_TARGET]
    if kind == ACT_FOREIGN_AID:
        s[S_COINS + a] += 2
    elif kind == ACT_TAX:
        s[S_COINS + a] += 3
    elif kind == ACT_STEAL:
        x = min(2, s[S_COINS + t])
        s[S_COINS + t] -= x
        s[S_COINS + a] += x
    elif kind == ACT_ASSASSINATE or kind == ACT_COUP or kind == ACT_VENGEANCE:
        if influence(s, t) > 0:
            enter_loss(s, t, AFTER_KILLED)
            return
    elif kind == ACT_EXCHANGE:
        s[S_PHASE] = PH_EXCHANGE_DRAW
        return
    end_turn(P, s)


@njit(cache=True, inline="always")
def block_stands(P, s):
    """The block stood (nobody challenged it, or the blocker proved it): the action fails.

    With the halved steal, an Ambassador's block reduces a Steal to 1 coin instead of stopping it.
    Decision (the printed rules are silent): an actor who went out challenging the block takes nothing.
    """
    if (P[P_HALVES_STEAL] and s[S_ACTION] == ACT_STEAL and s[S_BLOCK_CHAR] == AMBASSADOR
            and influence(s, s[S_ACTOR]) > 0):
        t = s[S_TARGET]
        x = min(1, s[S_COINS + t])
        s[S_COINS + t] -= x
        s[S_COINS + s[S_ACTOR]] += x
    end_turn(P, s)
