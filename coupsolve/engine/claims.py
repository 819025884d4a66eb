"""Claims and their rounds: the challenge of an action, the block round, the challenge of a block, proofs.

A claim (``CLAIM_*`` in :mod:`coupsolve.engine.tables`) names the character that proves it; which actions
claim what, and who may block what, are the actions' rules in :mod:`coupsolve.engine.turn`. Here: each round's
legal moves beside its transition, and :func:`challenge`, which settles a challenge (the challenge
bounty, the decline_proof decision, the proof or the failure, and who loses an influence).
With the marked cards, the actor of a blocked Foreign Aid may claim the Treaty in the block's challenge
round; every other player may then challenge that claim, which only the Treaty Contessa proves.
Arrays: ``P`` ``int32[P_SIZE]``, ``s`` ``int32[S_SIZE]``, ``out`` ``int32[MAX_MOVES]``, ``ev``
``int32[k, 3]`` events with ``ne`` used.
"""

from coupsolve.engine.jit import njit
from coupsolve.engine.core import emit_public, enter_loss, holds_claim, next_living, two_choices
from coupsolve.engine.tables import *  # noqa: F403 (the layout constants and tables)
from coupsolve.engine.turn import block_stands, can_block, open_block_round, resolve


@njit(cache=True)
def challenge(P, s, challenged, claim, ev, ne, after_proven):
    """S_CHALLENGER challenges ``challenged``'s ``claim``; return the new event count.

    The loser of the challenge must lose an influence, then ``after_proven`` (``AFTER_*_PROVEN``) or the
    ``AFTER_*_FAILED`` after it follows. With decline_proof a holder of the card decides first (PH_PROVE).
    """
    if P[P_BOUNTY]:  # the challenger takes the bounty before the challenge is resolved
        s[S_COINS + s[S_CHALLENGER]] += P[P_BOUNTY]
    holds = holds_claim(s, challenged, claim)
    if holds and P[P_DECLINE_PROOF]:
        # the holder decides (PH_PROVE); a player without the card fails at once, and both emit the
        # same public outcome, so others cannot tell a declined proof from a bluff
        s[S_PHASE] = PH_PROVE
        s[S_CURSOR] = challenged
        s[S_AFTER] = after_proven
        return ne
    return _outcome(s, challenged, holds, after_proven, ev, ne)


@njit(cache=True, inline="always")
def _outcome(s, challenged, proved, after_proven, ev, ne):
    """The challenge's public outcome: the challenger loses an influence to a proof, ``challenged`` to a
    failure; then AFTER_*_PROVEN or AFTER_*_FAILED (which follows it). Returns the new event count."""
    if proved:
        ne = emit_public(ev, ne, challenged, CODE_PROVED)
        enter_loss(s, s[S_CHALLENGER], after_proven)
    else:
        ne = emit_public(ev, ne, challenged, CODE_FAILED)
        enter_loss(s, challenged, after_proven + 1)
    return ne


@njit(cache=True, inline="always")
def challenge_actions(P, s, out):
    """PH_CHALLENGE: Pass or Challenge; returns 2."""
    return two_choices(out, ACT_PASS, ACT_CHALLENGE)


@njit(cache=True, inline="always")
def challenge_step(P, s, action, ev, ne):
    """PH_CHALLENGE: S_CURSOR passes on or challenges the actor's claim (or Treaty claim), in seat order."""
    p = s[S_CURSOR]
    actor = s[S_ACTOR]
    if action == ACT_CHALLENGE:
        s[S_CHALLENGER] = p
        if s[S_TREATY]:
            return challenge(P, s, actor, CLAIM_TREATY, ev, ne, AFTER_TREATY_PROVEN)
        return challenge(P, s, actor, ACTION_CLAIM[s[S_ACTION]], ev, ne, AFTER_ACTION_PROVEN)
    q = next_living(P, s, p)
    if q != actor:
        s[S_CURSOR] = q
    elif s[S_TREATY]:
        resolve(P, s)  # nobody challenged the Treaty: the Foreign Aid goes through
    else:
        open_block_round(P, s)
    return ne


@njit(cache=True, inline="always")
def block_actions(P, s, out):
    """PH_BLOCK: Pass, or Block with each character that may block the declared action."""
    out[0] = ACT_PASS
    k = 1
    for c in range(NCH):
        if can_block(P, s, c):
            out[k] = ACT_BLOCK + c
            k += 1
    return k


@njit(cache=True, inline="always")
def block_step(P, s, action, ev, ne):
    """PH_BLOCK: S_CURSOR passes (the next player may block a Foreign Aid or Tax) or blocks."""
    p = s[S_CURSOR]
    if action == ACT_PASS:
        q = next_living(P, s, p)
        if (s[S_ACTION] == ACT_FOREIGN_AID or s[S_ACTION] == ACT_TAX) and q != s[S_ACTOR]:
            s[S_CURSOR] = q
        else:
            resolve(P, s)
        return ne
    s[S_BLOCKER] = p
    s[S_BLOCK_CHAR] = action - ACT_BLOCK
    s[S_CURSOR] = s[S_ACTOR]
    s[S_PHASE] = PH_BLOCK_CHALLENGE
    return ne


@njit(cache=True, inline="always")
def block_challenge_actions(P, s, out):
    """PH_BLOCK_CHALLENGE: Pass or Challenge, and for the actor of a blocked Foreign Aid the Treaty."""
    two_choices(out, ACT_PASS, ACT_CHALLENGE)
    if (P[P_MARKED] and s[S_CURSOR] == s[S_ACTOR] and s[S_ACTION] == ACT_FOREIGN_AID
            and s[S_MARK + TREATY] != LOC_NONE):
        out[2] = ACT_TREATY  # the actor may override the Duke's block with the Treaty
        return 3
    return 2


@njit(cache=True, inline="always")
def block_challenge_step(P, s, action, ev, ne):
    """PH_BLOCK_CHALLENGE: S_CURSOR (from the actor on, the blocker left out) passes, challenges the
    block, or claims the Treaty; once everyone passed, the block stands."""
    p = s[S_CURSOR]
    if action == ACT_TREATY:
        # the Treaty overrides the Duke's block; every other player may challenge the claim
        s[S_TREATY] = 1
        s[S_CURSOR] = next_living(P, s, p)
        s[S_PHASE] = PH_CHALLENGE
        return ne
    if action == ACT_CHALLENGE:
        s[S_CHALLENGER] = p
        return challenge(P, s, s[S_BLOCKER], ACTION_CLAIM[ACT_BLOCK + s[S_BLOCK_CHAR]], ev, ne,
                         AFTER_BLOCK_PROVEN)
    q = next_living(P, s, p)
    if q == s[S_BLOCKER]:
        q = next_living(P, s, q)
    if q == s[S_ACTOR]:
        block_stands(P, s)  # the action fails and its cost stays spent
    else:
        s[S_CURSOR] = q
    return ne


@njit(cache=True, inline="always")
def prove_actions(P, s, out):
    """PH_PROVE (decline_proof): the challenged player, who holds the card, may Prove it or Decline
    (and lose the challenge as if bluffing); returns 2."""
    return two_choices(out, ACT_PROVE, ACT_DECLINE)


@njit(cache=True, inline="always")
def prove_step(P, s, action, ev, ne):
    """PH_PROVE: the challenged holder proves (the challenger loses) or declines (they lose, as if
    bluffing). Only the outcome is public: a player without the card fails the same way."""
    return _outcome(s, s[S_CURSOR], action == ACT_PROVE, s[S_AFTER], ev, ne)
