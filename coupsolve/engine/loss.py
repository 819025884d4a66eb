"""Influence: losing a card, the proven claimant's replacement draw, what follows a loss, the payoffs.

A loss (phase ``PH_LOSE``) comes from a lost challenge, a Coup or an Assassination; ``S_AFTER``
(``AFTER_*``) says what follows it. The loser picks the card to turn face up: with Selective Coup's hit
only the named character; with the challenge buyout a lost challenge may be paid off (``Pay``); with the
marked cards the marked copy is a choice of its own, and losing it to a Coup or an Assassination gives
the Inheritance's coins or the Vengeance's free Assassination (:mod:`coupsolve.engine.marked`). A player proven
right returns the card to the Court deck and draws a replacement (phase ``PH_REPLACE``).
Arrays: ``P`` ``int32[P_SIZE]``, ``s`` ``int32[S_SIZE]``, ``out`` ``int32[MAX_MOVES]``, ``prob``
``float64[MAX_MOVES]``, ``ev`` ``int32[k, 3]`` events with ``ne`` used, ``ret`` ``float64[>= players]``.
"""

from coupsolve.engine.jit import njit
from coupsolve.engine.chance import draw_cards, draw_outcomes
from coupsolve.engine.core import game_over, influence, marks_at, plain_count
from coupsolve.engine.flow import end_turn
from coupsolve.engine.marked import killed_marked, proof_mark
from coupsolve.engine.tables import *  # noqa: F403 (the layout constants and tables)
from coupsolve.engine.turn import block_stands, open_block_round, resolve


@njit(cache=True, inline="always")
def lose_actions(P, s, out):
    """PH_LOSE: the cards S_LOSER may turn face up (plain copies by character, then marked cards) and
    the challenge buyout's Pay; sorted. Returns how many."""
    loser = s[S_LOSER]
    base = S_HAND + NCH * loser
    # Selective Coup's hit: the named character is lost (a choice only between its marked and plain copies)
    named = s[S_NAMED] if s[S_AFTER] == AFTER_KILLED and s[S_ACTION] == ACT_COUP else -1
    marked = marks_at(s, LOC_HAND + loser) if P[P_MARKED] else 0
    k = 0
    for c in range(NCH):
        if plain_count(s[base + c], c, marked) > 0 and (named < 0 or c == named):
            out[k] = ACT_LOSE + c
            k += 1
    # challenge buyout: a lost challenge (not a Coup or an Assassination) may be paid off instead
    x = P[P_BUYOUT]
    if x > 0 and s[S_AFTER] != AFTER_KILLED and s[S_COINS + loser] >= x:
        out[k] = ACT_PAY
        k += 1
    for m in range(3):
        if (marked >> m) & 1 and (named < 0 or MARK_CHAR[m] == named):
            out[k] = ACT_LOSE_MARKED + m
            k += 1
    return k


@njit(cache=True, inline="always")
def lose_step(P, s, action, ev, ne):
    """PH_LOSE: S_LOSER turns the chosen card face up or pays (public); the game may end here."""
    p = s[S_LOSER]
    s[S_LOSER] = -1
    if action == ACT_PAY:  # challenge buyout: coins instead of an influence
        s[S_COINS + p] -= P[P_BUYOUT]
        after_loss(P, s)
        return ne
    m = -1
    if action >= ACT_LOSE_MARKED:
        m = action - ACT_LOSE_MARKED
        c = MARK_CHAR[m]
        s[S_MARK + m] = LOC_FACEUP + p
    else:
        c = action - ACT_LOSE
    s[S_HAND + NCH * p + c] -= 1
    s[S_FACEUP + NCH * p + c] += 1
    if game_over(P, s):
        return ne
    if m >= 0 and s[S_AFTER] == AFTER_KILLED and killed_marked(P, s, p, m):
        return ne
    after_loss(P, s)
    return ne


@njit(cache=True)
def after_loss(P, s):
    """Go on after an influence was lost (or bought off) and the game is not over: a claimant proven
    right replaces the card, else :func:`proceed`."""
    after = s[S_AFTER]
    if after == AFTER_ACTION_PROVEN:
        replace(P, s, s[S_ACTOR], ACTION_CLAIM[s[S_ACTION]], AFTER_BLOCK_STEP)
    elif after == AFTER_BLOCK_PROVEN:
        replace(P, s, s[S_BLOCKER], ACTION_CLAIM[ACT_BLOCK + s[S_BLOCK_CHAR]], AFTER_BLOCK_STANDS)
    elif after == AFTER_TREATY_PROVEN:
        replace(P, s, s[S_ACTOR], CLAIM_TREATY, AFTER_TREATY_RESOLVE)
    else:
        proceed(P, s)


@njit(cache=True)
def proceed(P, s):
    """Continue after a loss or a replacement draw, as recorded in S_AFTER."""
    after = s[S_AFTER]
    s[S_AFTER] = -1
    if after == AFTER_END_TURN:
        end_turn(P, s)
    elif after == AFTER_BLOCK_PROVEN or after == AFTER_BLOCK_STANDS or after == AFTER_TREATY_FAILED:
        block_stands(P, s)
    elif after == AFTER_BLOCK_STEP:
        open_block_round(P, s)
    elif after == AFTER_ACTION_FAILED:  # the bluffed action fails; an Assassination's coins come back
        if s[S_ACTION] == ACT_ASSASSINATE:
            s[S_COINS + s[S_ACTOR]] += P[P_ASSASSINATE_COST]
        end_turn(P, s)
    elif after == AFTER_BLOCK_FAILED or after == AFTER_TREATY_RESOLVE:
        resolve(P, s)


@njit(cache=True, inline="always")
def replace(P, s, seat, claim, after):
    """``seat`` proved ``claim``: the card goes back to the Court deck (which copy, with the marked
    cards: :func:`coupsolve.engine.marked.proof_mark`) and a replacement is drawn (phase PH_REPLACE), then
    ``after``."""
    c = CLAIM_CHAR[claim]
    if P[P_MARKED]:
        proof_mark(s, seat, claim)
    s[S_HAND + NCH * seat + c] -= 1
    s[S_DECK + c] += 1
    s[S_PHASE] = PH_REPLACE
    s[S_DRAWER] = seat
    s[S_AFTER] = after


@njit(cache=True, inline="always")
def replace_outcomes(P, s, out, prob):
    """PH_REPLACE: one card from the Court deck."""
    return draw_outcomes(P, s, 1, out, prob)


@njit(cache=True, inline="always")
def replace_step(P, s, outcome, ev, ne):
    """PH_REPLACE: S_DRAWER takes the drawn card (private), then what S_AFTER says."""
    p = s[S_DRAWER]
    s[S_DRAWER] = -1
    ne = draw_cards(P, s, outcome, S_HAND + NCH * p, LOC_HAND + p, ev, ne, p, CODE_DRAW, CODE_HIDDEN_DRAW)
    proceed(P, s)
    return ne


@njit(cache=True)
def returns(P, s, out):
    """Payoffs of a terminal state into ``out[:players]`` (``float64``, zero-sum); zeros elsewhere.

    Elimination: the last player in wins 1, the others lose 1 / (players - 1). At the turn limit,
    'draw' pays 0 and 'influence' shares the win among the most face-down cards, then most coins.
    """
    n = P[P_PLAYERS]
    lose = -1.0 / (n - 1)
    for p in range(n):
        out[p] = 0.0
    if s[S_PHASE] != PH_TERMINAL:
        return
    w = s[S_WINNER]
    if w >= 0:
        for p in range(n):
            out[p] = 1.0 if p == w else lose
        return
    if P[P_LIMIT_PAYOFF] == PAYOFF_DRAW:
        return
    best_i = -1
    best_c = -1
    for p in range(n):
        i = influence(s, p)
        if i > best_i or (i == best_i and s[S_COINS + p] > best_c):
            best_i = i
            best_c = s[S_COINS + p]
    k = 0
    for p in range(n):
        if influence(s, p) == best_i and s[S_COINS + p] == best_c:
            k += 1
    if k == n:
        return
    win = (n - k) / (k * (n - 1.0))
    for p in range(n):
        if influence(s, p) == best_i and s[S_COINS + p] == best_c:
            out[p] = win
        else:
            out[p] = lose
