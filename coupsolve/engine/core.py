"""What every phase of the engine shares: queries of the state vector, event emission, card moves.

All functions are numba kernels (``njit(cache=True)``) over the engine's arrays, whose layout is in
:mod:`coupsolve.engine.tables`: ``P`` is the parameter vector ``int32[P_SIZE]``, ``s`` the state
``int32[S_SIZE]`` (mutated in place), ``ev`` the event buffer ``int32[k, 3]`` with ``ne`` rows used.
"""

import numpy as np

from coupsolve.engine.jit import njit
from coupsolve.engine.tables import *  # noqa: F403 (the layout constants and tables)


# ---- queries -------------------------------------------------------------------------------------
@njit(cache=True, inline="always")
def influence(s, p):
    """Face-down cards of seat ``p`` in state ``s`` (``int32[S_SIZE]``)."""
    base = S_HAND + NCH * p
    return s[base] + s[base + 1] + s[base + 2] + s[base + 3] + s[base + 4]


@njit(cache=True, inline="always")
def in_game(P, c):
    """Whether character ``c`` is in the deck of parameters ``P`` (``int32[P_SIZE]``)."""
    return P[P_COPIES + c] > 0


@njit(cache=True)
def next_living(P, s, seat):
    """The next seat after ``seat`` (wrapping) that still has influence; ``seat`` itself if none."""
    n = P[P_PLAYERS]
    q = seat
    for _ in range(n):
        q += 1
        if q == n:
            q = 0
        if influence(s, q) > 0:
            return q
    return seat


@njit(cache=True)
def num_living(P, s):
    """The number of seats that still have influence."""
    k = 0
    for p in range(P[P_PLAYERS]):
        if influence(s, p) > 0:
            k += 1
    return k


@njit(cache=True, inline="always")
def pair_code(a, b):
    """Multiset code of the pair {a, b} of characters (any order)."""
    if a > b:
        a, b = b, a
    # rows before a: sum_{i<a} (NCH - i); then offset b - a
    return NCH + a * NCH - (a * (a - 1)) // 2 + (b - a)


@njit(cache=True, inline="always")
def mark_of(c):
    """The marked card of character ``c`` (-1 for none)."""
    return CHAR_MARK[c]


@njit(cache=True, inline="always")
def plain_count(count, c, marks):
    """Plain (unmarked) copies among ``count`` copies of character ``c`` at a place holding the marked
    cards of bit mask ``marks``."""
    m = CHAR_MARK[c]
    if m >= 0 and (marks >> m) & 1:
        return count - 1
    return count


@njit(cache=True, inline="always")
def holds_claim(s, seat, claim):
    """Whether ``seat`` holds, face down, a card that proves ``claim`` (``CLAIM_*``)."""
    mark = CLAIM_MARK[claim]
    if mark >= 0:
        return s[S_MARK + mark] == LOC_HAND + seat
    return s[S_HAND + NCH * seat + CLAIM_CHAR[claim]] > 0


@njit(cache=True, inline="always")
def bluffs(s, seat, a):
    """Whether action ``a`` of ``seat`` at ``s`` is a claim it cannot back: a declared action, a block
    or a Treaty (a claim made on its turn, in a block round or in a block's challenge round) whose
    character, or marked card, it does not hold face down."""
    if a >= NUM_ACTIONS or ACTION_CLAIM[a] < 0:
        return False
    ph = s[S_PHASE]
    return (ph == PH_TURN or ph == PH_BLOCK or ph == PH_BLOCK_CHALLENGE) and not holds_claim(s, seat, ACTION_CLAIM[a])


@njit(cache=True)
def marks_at(s, loc):
    """Bit mask of the marked cards at location ``loc`` (``LOC_*``)."""
    mask = 0
    for k in range(3):
        if s[S_MARK + k] == loc:
            mask |= 1 << k
    return mask


@njit(cache=True)
def deck_size(s):
    """Cards in the Court deck."""
    t = 0
    for c in range(NCH):
        t += s[S_DECK + c]
    return t


@njit(cache=True)
def is_chance(s):
    """Whether ``s`` (``int32[S_SIZE]``) is a chance node."""
    return s[S_PHASE] <= PH_EXCHANGE_DRAW or s[S_PHASE] >= PH_EVENT_DEAL


@njit(cache=True)
def is_terminal(s):
    """Whether ``s`` (``int32[S_SIZE]``) is the end of the game."""
    return s[S_PHASE] == PH_TERMINAL


@njit(cache=True)
def current_player(s):
    """The seat to decide in ``s``, -1 at a chance node, -4 at a terminal (OpenSpiel's PlayerId values)."""
    ph = s[S_PHASE]
    if ph == PH_TERMINAL:
        return -4
    if ph <= PH_EXCHANGE_DRAW or ph >= PH_EVENT_DEAL:
        return -1
    if ph == PH_TURN or ph == PH_KEEP:
        return s[S_ACTOR]
    if ph == PH_LOSE:
        return s[S_LOSER]
    return s[S_CURSOR]


# ---- events --------------------------------------------------------------------------------------
@njit(cache=True, inline="always")
def emit(ev, ne, owner, private_token, public_token):
    """Append the event row ``(owner, private_token, public_token)`` to ``ev``; return the new count."""
    ev[ne, 0] = owner
    ev[ne, 1] = private_token
    ev[ne, 2] = public_token
    return ne + 1


@njit(cache=True, inline="always")
def emit_public(ev, ne, seat, code):
    """Append a public event about ``seat`` with observation ``code``; return the new count."""
    t = (seat + 1) * TOKEN_SEAT + code
    return emit(ev, ne, -1, t, t)


@njit(cache=True, inline="always")
def emit_private(ev, ne, seat, code, hidden_code):
    """Append an event ``seat`` sees as ``code`` and the others as ``hidden_code``; return the count."""
    return emit(ev, ne, seat, (seat + 1) * TOKEN_SEAT + code, (seat + 1) * TOKEN_SEAT + hidden_code)


@njit(cache=True, inline="always")
def emit_action(ev, ne, s, action):
    """Announce to everyone the decision ``action`` of the player to decide in ``s``; return the count."""
    return emit_public(ev, ne, current_player(s), action)


@njit(cache=True, inline="always")
def two_choices(out, a, b):
    """Write the two legal actions ``a < b`` of a fixed choice into ``out``; return 2."""
    out[0] = a
    out[1] = b
    return 2


# ---- small transitions ---------------------------------------------------------------------------
@njit(cache=True, inline="always")
def move_cards(s, src, dst, m):
    """Move the cards of multiset code ``m`` from the count vector at ``src`` to the one at ``dst``
    (state indices such as ``S_DECK`` or ``S_HAND + NCH * p``)."""
    s[dst + MS_FIRST[m]] += 1
    s[src + MS_FIRST[m]] -= 1
    if MS_SECOND[m] >= 0:
        s[dst + MS_SECOND[m]] += 1
        s[src + MS_SECOND[m]] -= 1


@njit(cache=True, inline="always")
def enter_loss(s, seat, after):
    """``seat`` must turn a card face up (phase PH_LOSE); ``after`` (``AFTER_*``) says what follows."""
    s[S_PHASE] = PH_LOSE
    s[S_LOSER] = seat
    s[S_AFTER] = after


@njit(cache=True)
def game_over(P, s):
    """Enter the terminal state if at most one player has influence; return True if so."""
    n = P[P_PLAYERS]
    living = -1
    k = 0
    for p in range(n):
        if influence(s, p) > 0:
            k += 1
            living = p
    if k > 1:
        return False
    s[S_PHASE] = PH_TERMINAL
    s[S_WINNER] = living
    for p in range(n):
        if p != living:
            s[S_COINS + p] = 0
    return True


@njit(cache=True, inline="always")
def begin_turn(s):
    """Start the next turn of S_ACTOR: count it and clear the previous turn's declaration."""
    s[S_TURN] += 1
    s[S_PHASE] = PH_TURN
    s[S_ACTION] = -1
    s[S_TARGET] = -1
    s[S_CURSOR] = -1
    s[S_CHALLENGER] = -1
    s[S_BLOCKER] = -1
    s[S_BLOCK_CHAR] = -1


@njit(cache=True, inline="always")
def pack_hand(cards, start):
    """Face-down cards as one code: ``cards[start + c]`` copies of character ``c`` in 3 bits at bit
    ``3 c`` (at most 4 copies of one character: two held and two drawn in an Exchange). The entry
    hands of every public-tree builder, from a state (``S_HAND + NCH * seat``) or a class."""
    code = 0
    for c in range(NCH):  # noqa: F405
        code |= np.int64(cards[start + c]) << (3 * c)
    return code
