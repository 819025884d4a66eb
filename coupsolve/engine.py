"""The Coup engine: the only copy of the rules, as pure functions over small integer arrays.

Every function here compiles with numba (``njit(cache=True)``) and is called both by the OpenSpiel
adapter (:mod:`coupsolve.game`) and by the compiled tree builder. Functions mutate the state array they
are given and append *events* (what each player observes) to an event buffer; nothing else is shared.

Characters
----------
``0 Duke, 1 Assassin, 2 Captain, 3 Ambassador, 4 Contessa`` (the canonical order of RULES.md).
A hand or a deck is a vector of 5 counts. A *multiset code* names a hand of one or two cards:
codes 0-4 are the single cards, codes 5-19 the pairs (a, b), a <= b, in lexicographic order
(Duke+Duke, Duke+Assassin, ..., Contessa+Contessa).

Parameters (``int32[P_SIZE]``, built by :meth:`coupsolve.Rules.params`)
-----------------------------------------------------------------------
``P_PLAYERS`` seats; ``P_SETUP`` 0 standard / 1 selection; ``P_TURN_LIMIT``; ``P_LIMIT_PAYOFF``
0 draw / 1 influence; ``P_START_SEAT`` a seat or -1 for random; ``P_COUP_COST``;
``P_ASSASSINATE_COST``; ``P_FORCED_COUP``; ``P_COPIES + c`` copies of character c (0: not in the game);
``P_START_COINS + i`` coins of the i-th seat in turn order from the starting seat.

State (``int32[S_SIZE]``)
-------------------------
=================  =========================================================================
index              meaning
=================  =========================================================================
S_PHASE            the kind of node (``PH_*`` below)
S_ACTOR            seat whose turn it is (-1 during setup)
S_ACTION           the declared turn action (``ACT_*`` kind, -1 none)
S_TARGET           its target seat (-1 none)
S_CURSOR           seat to decide in a round; seat being dealt to during setup
S_CHALLENGER       seat that challenged (-1 none)
S_BLOCKER          seat that blocked (-1 none)
S_BLOCK_CHAR       character claimed by the block (-1 none)
S_TURN             current turn number, 1-based (0 during setup)
S_WINNER           winning seat once the game is over by elimination (-1 otherwise)
S_LOSER            seat choosing which card to turn face up (phase PH_LOSE)
S_AFTER            what follows the pending loss or replacement draw (``AFTER_*``)
S_DRAWER           seat drawing a replacement card (phase PH_REPLACE)
S_START            starting seat (-1 until known)
S_COINS + p        coins of seat p
S_HAND + 5p + c    face-down copies of character c held by seat p
S_FACEUP + 5p + c  face-up copies of character c of seat p
S_DECK + c         copies of c in the Court deck
S_OUT + c          copies of c out of the game face down (card-selection setup: the players' sets,
                   from which each chosen card moves to its chooser's hand)
S_POOL + c         the two cards drawn by an Exchange, until the keep decision
=================  =========================================================================

Player actions (ids ``0 .. NUM_ACTIONS-1``, the OpenSpiel action ids)
---------------------------------------------------------------------
0 Income, 1 Foreign Aid, 2 Tax, 3 Exchange, 4+t Coup pt, 10+t Assassinate pt, 16+t Steal pt (t < 6),
22 Pass, 23 Challenge, 24+c Block c, 29+c Lose c, 34+m Keep m (m a multiset code), 54+c Choose c.

Chance outcomes (ids ``0 .. NUM_CHANCE_OUTCOMES-1``)
----------------------------------------------------
0-19 a multiset code (``Deal ...`` in setup, ``Draw ...`` after a proof or in an Exchange),
20+s the starting seat s (``Start ps``, when the starting seat is random).

Events and observation tokens
-----------------------------
Each step appends rows ``(owner, private_token, public_token)`` to the event buffer: ``owner`` is -1
for a public event (everybody sees ``public_token``) or the one seat that sees ``private_token`` while
everyone else sees ``public_token``. A token is ``(seat + 1) * 256 + code`` where seat is the seat the
event is about (0 for the starting-seat draw) and code is: a player action id (0-127);
``CODE_DEAL + m`` / ``CODE_DRAW + m`` a dealt / drawn multiset; ``CODE_START + s``;
``CODE_HIDDEN_*`` what the others see of a private event; ``CODE_PROVED`` / ``CODE_FAILED`` the
outcome of a challenge. A player's perfect-recall information state is the sequence of tokens they saw.
Forced steps (a one-choice decision, a one-outcome chance event) emit exactly the events the step
would have emitted had it been asked, so information states do not depend on whether a step was forced.
"""

import numpy as np
from numba import njit

MAXP = 6
NCH = 5
DUKE, ASSASSIN, CAPTAIN, AMBASSADOR, CONTESSA = 0, 1, 2, 3, 4

# ---- parameters ---------------------------------------------------------------------------------
P_PLAYERS = 0
P_SETUP = 1
P_TURN_LIMIT = 2
P_LIMIT_PAYOFF = 3
P_START_SEAT = 4
P_COUP_COST = 5
P_ASSASSINATE_COST = 6
P_FORCED_COUP = 7
P_COPIES = 8
P_START_COINS = P_COPIES + NCH
P_SIZE = P_START_COINS + MAXP

SETUP_STANDARD, SETUP_SELECTION = 0, 1
PAYOFF_DRAW, PAYOFF_INFLUENCE = 0, 1

# ---- state ---------------------------------------------------------------------------------------
S_PHASE = 0
S_ACTOR = 1
S_ACTION = 2
S_TARGET = 3
S_CURSOR = 4
S_CHALLENGER = 5
S_BLOCKER = 6
S_BLOCK_CHAR = 7
S_TURN = 8
S_WINNER = 9
S_LOSER = 10
S_AFTER = 11
S_DRAWER = 12
S_START = 13
S_COINS = 16
S_HAND = S_COINS + MAXP
S_FACEUP = S_HAND + MAXP * NCH
S_DECK = S_FACEUP + MAXP * NCH
S_OUT = S_DECK + NCH
S_POOL = S_OUT + NCH
S_SIZE = S_POOL + NCH

# phases: chance nodes
PH_START_SEAT = 0
PH_DEAL = 1  # standard setup: two cards to S_CURSOR
PH_DEAL_ONE = 2  # selection setup: one card from the third set to S_CURSOR
PH_REPLACE = 3  # a proven claimant draws a replacement
PH_EXCHANGE_DRAW = 4
# phases: decisions
PH_CHOOSE = 5  # selection setup: S_CURSOR chooses a card from their set
PH_TURN = 6  # S_ACTOR declares an action
PH_CHALLENGE = 7  # S_CURSOR: Pass or Challenge the action
PH_BLOCK = 8  # S_CURSOR: Pass or Block
PH_BLOCK_CHALLENGE = 9  # S_CURSOR: Pass or Challenge the block
PH_LOSE = 10  # S_LOSER: which card to turn face up
PH_KEEP = 11  # S_ACTOR: which cards to keep after an Exchange
PH_TERMINAL = 12
NUM_PHASES = 13
PHASE_NAMES = ("start seat", "deal", "deal", "replacement draw", "exchange draw", "choose",
               "turn", "challenge action", "block", "challenge block", "lose influence",
               "exchange keep", "game over")

# what follows a pending loss / replacement
AFTER_END_TURN = 0
AFTER_ACTION_PROVEN = 1  # challenger lost to a proven action: actor replaces, then block step
AFTER_ACTION_FAILED = 2  # actor bluffed: refund, end turn
AFTER_BLOCK_PROVEN = 3  # challenger lost to a proven block: blocker replaces, then end turn
AFTER_BLOCK_FAILED = 4  # blocker bluffed: the action resolves
AFTER_BLOCK_STEP = 5  # (replacement) go on to the block step

# ---- actions -------------------------------------------------------------------------------------
ACT_INCOME, ACT_FOREIGN_AID, ACT_TAX, ACT_EXCHANGE = 0, 1, 2, 3
ACT_COUP = 4
ACT_ASSASSINATE = ACT_COUP + MAXP
ACT_STEAL = ACT_ASSASSINATE + MAXP
ACT_PASS = ACT_STEAL + MAXP
ACT_CHALLENGE = ACT_PASS + 1
ACT_BLOCK = ACT_CHALLENGE + 1
ACT_LOSE = ACT_BLOCK + NCH
ACT_KEEP = ACT_LOSE + NCH
NUM_MULTISETS = NCH + NCH * (NCH + 1) // 2  # 20
ACT_CHOOSE = ACT_KEEP + NUM_MULTISETS
NUM_ACTIONS = ACT_CHOOSE + NCH  # 59

CH_CARDS = 0
CH_START = NUM_MULTISETS
NUM_CHANCE_OUTCOMES = CH_START + MAXP  # 26

# ---- observation codes ---------------------------------------------------------------------------
CODE_DEAL = 128
CODE_DRAW = CODE_DEAL + NUM_MULTISETS
CODE_START = CODE_DRAW + NUM_MULTISETS
CODE_HIDDEN_DEAL = CODE_START + MAXP  # + number of cards - 1
CODE_HIDDEN_DRAW = CODE_HIDDEN_DEAL + 2  # + number of cards - 1 (0 cards: CODE_HIDDEN_DRAW0)
CODE_HIDDEN_DRAW0 = CODE_HIDDEN_DRAW + 2
CODE_HIDDEN_CHOOSE = CODE_HIDDEN_DRAW0 + 1
CODE_HIDDEN_KEEP = CODE_HIDDEN_CHOOSE + 1
CODE_PROVED = CODE_HIDDEN_KEEP + 1
CODE_FAILED = CODE_PROVED + 1
TOKEN_SEAT = 256
MAX_TOKEN = (MAXP + 1) * TOKEN_SEAT

MAX_EVENTS_PER_STEP = 16  # size an event buffer at least this large for one call of apply()

# multiset tables: code -> (first, second) card (-1 for a single); counts per code
MS_FIRST = np.empty(NUM_MULTISETS, dtype=np.int32)
MS_SECOND = np.empty(NUM_MULTISETS, dtype=np.int32)
for _c in range(NCH):
    MS_FIRST[_c] = _c
    MS_SECOND[_c] = -1
_k = NCH
for _a in range(NCH):
    for _b in range(_a, NCH):
        MS_FIRST[_k] = _a
        MS_SECOND[_k] = _b
        _k += 1
MS_SIZE = np.where(MS_SECOND < 0, 1, 2).astype(np.int32)


@njit(cache=True, inline="always")
def pair_code(a, b):
    """Multiset code of the pair {a, b} (any order)."""
    if a > b:
        a, b = b, a
    # rows before a: sum_{i<a} (NCH - i); then offset b - a
    return NCH + a * NCH - (a * (a - 1)) // 2 + (b - a)


@njit(cache=True, inline="always")
def claim_of(kind):
    """The character an action claims (-1 for none)."""
    if kind == ACT_TAX:
        return DUKE
    if kind == ACT_EXCHANGE:
        return AMBASSADOR
    if kind == ACT_ASSASSINATE:
        return ASSASSIN
    if kind == ACT_STEAL:
        return CAPTAIN
    return -1


@njit(cache=True, inline="always")
def action_kind(a):
    """Turn action id -> kind (ACT_INCOME, ..., ACT_COUP, ACT_ASSASSINATE, ACT_STEAL)."""
    if a < ACT_COUP:
        return a
    if a < ACT_ASSASSINATE:
        return ACT_COUP
    if a < ACT_STEAL:
        return ACT_ASSASSINATE
    return ACT_STEAL


@njit(cache=True, inline="always")
def influence(s, p):
    base = S_HAND + NCH * p
    return s[base] + s[base + 1] + s[base + 2] + s[base + 3] + s[base + 4]


@njit(cache=True, inline="always")
def in_game(P, c):
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
    k = 0
    for p in range(P[P_PLAYERS]):
        if influence(s, p) > 0:
            k += 1
    return k


@njit(cache=True, inline="always")
def _event(ev, ne, owner, private_token, public_token):
    ev[ne, 0] = owner
    ev[ne, 1] = private_token
    ev[ne, 2] = public_token
    return ne + 1


@njit(cache=True, inline="always")
def _public(ev, ne, seat, code):
    t = (seat + 1) * TOKEN_SEAT + code
    return _event(ev, ne, -1, t, t)


@njit(cache=True, inline="always")
def _private(ev, ne, seat, code, hidden_code):
    return _event(ev, ne, seat, (seat + 1) * TOKEN_SEAT + code, (seat + 1) * TOKEN_SEAT + hidden_code)


# ---- queries ---------------------------------------------------------------------------------------
@njit(cache=True)
def is_chance(s):
    return s[S_PHASE] <= PH_EXCHANGE_DRAW


@njit(cache=True)
def is_terminal(s):
    return s[S_PHASE] == PH_TERMINAL


@njit(cache=True)
def current_player(s):
    """The seat to decide, -1 at a chance node, -4 at a terminal (OpenSpiel's PlayerId values)."""
    ph = s[S_PHASE]
    if ph == PH_TERMINAL:
        return -4
    if ph <= PH_EXCHANGE_DRAW:
        return -1
    if ph == PH_TURN or ph == PH_KEEP:
        return s[S_ACTOR]
    if ph == PH_LOSE:
        return s[S_LOSER]
    return s[S_CURSOR]


@njit(cache=True)
def _multiset_outcomes(s, k, out, prob, nout):
    """Outcomes of drawing k (1 or 2) cards from the Court deck, as multiset codes with probabilities."""
    total = 0
    for c in range(NCH):
        total += s[S_DECK + c]
    if k == 1:
        for c in range(NCH):
            d = s[S_DECK + c]
            if d > 0:
                out[nout] = c
                prob[nout] = d / total
                nout += 1
        return nout
    denom = total * (total - 1)
    for a in range(NCH):
        da = s[S_DECK + a]
        if da == 0:
            continue
        for b in range(a, NCH):
            db = s[S_DECK + b]
            if a == b:
                w = da * (da - 1)
            else:
                w = 2 * da * db
            if w > 0:
                out[nout] = pair_code(a, b)
                prob[nout] = w / denom
                nout += 1
    return nout


@njit(cache=True)
def _deck_size(s):
    t = 0
    for c in range(NCH):
        t += s[S_DECK + c]
    return t


@njit(cache=True)
def chance_outcomes(P, s, out, prob):
    """Fill ``out``/``prob`` with the chance outcomes of a chance node, sorted by id; return how many."""
    ph = s[S_PHASE]
    if ph == PH_START_SEAT:
        n = P[P_PLAYERS]
        for i in range(n):
            out[i] = CH_START + i
            prob[i] = 1.0 / n
        return n
    if ph == PH_DEAL:
        return _multiset_outcomes(s, 2, out, prob, 0)
    if ph == PH_DEAL_ONE or ph == PH_REPLACE:
        return _multiset_outcomes(s, 1, out, prob, 0)
    if ph == PH_EXCHANGE_DRAW:
        k = min(2, _deck_size(s))
        return _multiset_outcomes(s, k, out, prob, 0)
    return 0


@njit(cache=True)
def legal_actions(P, s, out):
    """Fill ``out`` with the legal actions of a decision node, sorted ascending; return how many."""
    ph = s[S_PHASE]
    n = P[P_PLAYERS]
    k = 0
    if ph == PH_TURN:
        a = s[S_ACTOR]
        coins = s[S_COINS + a]
        if coins >= P[P_FORCED_COUP]:
            for t in range(n):
                if t != a and influence(s, t) > 0:
                    out[k] = ACT_COUP + t
                    k += 1
            return k
        out[0] = ACT_INCOME
        out[1] = ACT_FOREIGN_AID
        k = 2
        if in_game(P, DUKE):
            out[k] = ACT_TAX
            k += 1
        if in_game(P, AMBASSADOR):
            out[k] = ACT_EXCHANGE
            k += 1
        if coins >= P[P_COUP_COST]:
            for t in range(n):
                if t != a and influence(s, t) > 0:
                    out[k] = ACT_COUP + t
                    k += 1
        if coins >= P[P_ASSASSINATE_COST] and in_game(P, ASSASSIN):
            for t in range(n):
                if t != a and influence(s, t) > 0:
                    out[k] = ACT_ASSASSINATE + t
                    k += 1
        if in_game(P, CAPTAIN):
            for t in range(n):
                if t != a and influence(s, t) > 0:
                    out[k] = ACT_STEAL + t
                    k += 1
        return k
    if ph == PH_CHALLENGE or ph == PH_BLOCK_CHALLENGE:
        out[0] = ACT_PASS
        out[1] = ACT_CHALLENGE
        return 2
    if ph == PH_BLOCK:
        out[0] = ACT_PASS
        k = 1
        for c in range(NCH):
            if _can_block(P, s, c):
                out[k] = ACT_BLOCK + c
                k += 1
        return k
    if ph == PH_LOSE:
        base = S_HAND + NCH * s[S_LOSER]
        for c in range(NCH):
            if s[base + c] > 0:
                out[k] = ACT_LOSE + c
                k += 1
        return k
    if ph == PH_KEEP:
        a = s[S_ACTOR]
        keep = influence(s, a)
        base = S_HAND + NCH * a
        if keep == 1:
            for c in range(NCH):
                if s[base + c] + s[S_POOL + c] > 0:
                    out[k] = ACT_KEEP + c
                    k += 1
        else:
            for x in range(NCH):
                hx = s[base + x] + s[S_POOL + x]
                if hx == 0:
                    continue
                for y in range(x, NCH):
                    hy = s[base + y] + s[S_POOL + y]
                    if (x == y and hx >= 2) or (x != y and hy > 0):
                        out[k] = ACT_KEEP + pair_code(x, y)
                        k += 1
        return k
    if ph == PH_CHOOSE:
        for c in range(NCH):
            if in_game(P, c):
                out[k] = ACT_CHOOSE + c
                k += 1
        return k
    return 0


@njit(cache=True)
def _can_block(P, s, c):
    """Whether character c may be claimed to block the declared action (blocker: S_CURSOR)."""
    if not in_game(P, c):
        return False
    kind = s[S_ACTION]
    if kind == ACT_FOREIGN_AID:
        return c == DUKE
    if kind == ACT_STEAL:
        return c == CAPTAIN or c == AMBASSADOR
    if kind == ACT_ASSASSINATE:
        return c == CONTESSA
    return False


# ---- transitions -----------------------------------------------------------------------------------
@njit(cache=True)
def _game_over(P, s):
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


@njit(cache=True)
def _end_turn(P, s):
    n = P[P_PLAYERS]
    for p in range(n):
        if influence(s, p) == 0:
            s[S_COINS + p] = 0
    if s[S_TURN] >= P[P_TURN_LIMIT]:
        s[S_PHASE] = PH_TERMINAL
        return
    s[S_ACTOR] = next_living(P, s, s[S_ACTOR])
    _begin_turn(s)


@njit(cache=True)
def _begin_turn(s):
    s[S_TURN] += 1
    s[S_PHASE] = PH_TURN
    s[S_ACTION] = -1
    s[S_TARGET] = -1
    s[S_CURSOR] = -1
    s[S_CHALLENGER] = -1
    s[S_BLOCKER] = -1
    s[S_BLOCK_CHAR] = -1


@njit(cache=True)
def _lose(s, seat, after):
    s[S_PHASE] = PH_LOSE
    s[S_LOSER] = seat
    s[S_AFTER] = after


@njit(cache=True)
def _replace(s, seat, c, after):
    """The proven card goes back to the Court deck; the seat then draws a replacement (chance)."""
    s[S_HAND + NCH * seat + c] -= 1
    s[S_DECK + c] += 1
    s[S_PHASE] = PH_REPLACE
    s[S_DRAWER] = seat
    s[S_AFTER] = after


@njit(cache=True)
def _block_step(P, s):
    kind = s[S_ACTION]
    actor = s[S_ACTOR]
    if kind == ACT_FOREIGN_AID:
        if in_game(P, DUKE):
            s[S_CURSOR] = next_living(P, s, actor)
            s[S_PHASE] = PH_BLOCK
            return
    elif kind == ACT_STEAL or kind == ACT_ASSASSINATE:
        t = s[S_TARGET]
        if influence(s, t) > 0:
            s[S_CURSOR] = t
            for c in range(NCH):
                if _can_block(P, s, c):
                    s[S_PHASE] = PH_BLOCK
                    return
    _resolve(P, s)


@njit(cache=True)
def _resolve(P, s):
    """The declared action takes effect."""
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
    elif kind == ACT_ASSASSINATE or kind == ACT_COUP:
        if influence(s, t) > 0:
            _lose(s, t, AFTER_END_TURN)
            return
    elif kind == ACT_EXCHANGE:
        s[S_PHASE] = PH_EXCHANGE_DRAW
        return
    _end_turn(P, s)


@njit(cache=True)
def _after(P, s):
    """Continue after a loss or a replacement draw, as recorded in S_AFTER."""
    after = s[S_AFTER]
    s[S_AFTER] = -1
    if after == AFTER_END_TURN or after == AFTER_BLOCK_PROVEN:
        _end_turn(P, s)
    elif after == AFTER_BLOCK_STEP:
        _block_step(P, s)
    elif after == AFTER_ACTION_FAILED:
        if s[S_ACTION] == ACT_ASSASSINATE:
            s[S_COINS + s[S_ACTOR]] += P[P_ASSASSINATE_COST]
        _end_turn(P, s)
    elif after == AFTER_BLOCK_FAILED:
        _resolve(P, s)


@njit(cache=True)
def _challenge(P, s, challenged, c, ev, ne, after_proven, after_failed):
    """Resolve a challenge of ``challenged``'s claim of character ``c``; return the new event count."""
    if s[S_HAND + NCH * challenged + c] > 0:
        ne = _public(ev, ne, challenged, CODE_PROVED)
        _lose(s, s[S_CHALLENGER], after_proven)
    else:
        ne = _public(ev, ne, challenged, CODE_FAILED)
        _lose(s, challenged, after_failed)
    return ne


@njit(cache=True)
def _step(P, s, action, ev, ne):
    """Apply one action or chance outcome at the current node (no forced-step handling)."""
    ph = s[S_PHASE]
    n = P[P_PLAYERS]
    if ph == PH_START_SEAT:
        seat = action - CH_START
        ne = _public(ev, ne, 0, CODE_START + seat)
        _seat_coins(P, s, seat)
        return ne
    if ph == PH_DEAL:
        p = s[S_CURSOR]
        s[S_HAND + NCH * p + MS_FIRST[action]] += 1
        s[S_HAND + NCH * p + MS_SECOND[action]] += 1
        s[S_DECK + MS_FIRST[action]] -= 1
        s[S_DECK + MS_SECOND[action]] -= 1
        ne = _private(ev, ne, p, CODE_DEAL + action, CODE_HIDDEN_DEAL + 1)
        if p + 1 == n:
            s[S_ACTOR] = s[S_START]
            _begin_turn(s)
        else:
            s[S_CURSOR] = p + 1
        return ne
    if ph == PH_DEAL_ONE:
        p = s[S_CURSOR]
        s[S_HAND + NCH * p + action] += 1
        s[S_DECK + action] -= 1
        ne = _private(ev, ne, p, CODE_DEAL + action, CODE_HIDDEN_DEAL)
        if p + 1 == n:
            s[S_ACTOR] = s[S_START]
            _begin_turn(s)
        else:
            s[S_CURSOR] = p + 1
        return ne
    if ph == PH_CHOOSE:
        p = s[S_CURSOR]
        c = action - ACT_CHOOSE
        s[S_HAND + NCH * p + c] += 1
        s[S_OUT + c] -= 1
        ne = _private(ev, ne, p, action, CODE_HIDDEN_CHOOSE)
        if p + 1 == n:
            s[S_PHASE] = PH_DEAL_ONE
            s[S_CURSOR] = 0
        else:
            s[S_CURSOR] = p + 1
        return ne
    if ph == PH_REPLACE:
        p = s[S_DRAWER]
        s[S_HAND + NCH * p + action] += 1
        s[S_DECK + action] -= 1
        s[S_DRAWER] = -1
        ne = _private(ev, ne, p, CODE_DRAW + action, CODE_HIDDEN_DRAW)
        _after(P, s)
        return ne
    if ph == PH_EXCHANGE_DRAW:
        a = s[S_ACTOR]
        if _deck_size(s) == 0:  # nothing to draw (a tiny reduced deck)
            ne = _public(ev, ne, a, CODE_HIDDEN_DRAW0)
        else:
            s[S_POOL + MS_FIRST[action]] += 1
            s[S_DECK + MS_FIRST[action]] -= 1
            if MS_SECOND[action] >= 0:
                s[S_POOL + MS_SECOND[action]] += 1
                s[S_DECK + MS_SECOND[action]] -= 1
            ne = _private(ev, ne, a, CODE_DRAW + action, CODE_HIDDEN_DRAW + MS_SIZE[action] - 1)
        s[S_PHASE] = PH_KEEP
        return ne

    # decisions: every decision below is public except the Exchange keep
    p = current_player(s)
    if ph == PH_KEEP:
        base = S_HAND + NCH * p
        for c in range(NCH):
            s[S_DECK + c] += s[base + c] + s[S_POOL + c]
            s[base + c] = 0
            s[S_POOL + c] = 0
        m = action - ACT_KEEP
        s[base + MS_FIRST[m]] += 1
        s[S_DECK + MS_FIRST[m]] -= 1
        if MS_SECOND[m] >= 0:
            s[base + MS_SECOND[m]] += 1
            s[S_DECK + MS_SECOND[m]] -= 1
        ne = _private(ev, ne, p, action, CODE_HIDDEN_KEEP)
        _end_turn(P, s)
        return ne

    ne = _public(ev, ne, p, action)
    if ph == PH_TURN:
        kind = action_kind(action)
        s[S_ACTION] = kind
        if kind == ACT_COUP or kind == ACT_ASSASSINATE or kind == ACT_STEAL:
            s[S_TARGET] = action - kind
        if kind == ACT_INCOME:
            s[S_COINS + p] += 1
            _end_turn(P, s)
        elif kind == ACT_FOREIGN_AID:
            _block_step(P, s)
        elif kind == ACT_COUP:
            s[S_COINS + p] -= P[P_COUP_COST]
            _resolve(P, s)
        else:
            if kind == ACT_ASSASSINATE:
                s[S_COINS + p] -= P[P_ASSASSINATE_COST]
            s[S_CURSOR] = next_living(P, s, p)
            s[S_PHASE] = PH_CHALLENGE
        return ne
    if ph == PH_CHALLENGE:
        actor = s[S_ACTOR]
        if action == ACT_CHALLENGE:
            s[S_CHALLENGER] = p
            return _challenge(P, s, actor, claim_of(s[S_ACTION]), ev, ne,
                              AFTER_ACTION_PROVEN, AFTER_ACTION_FAILED)
        q = next_living(P, s, p)
        if q == actor:
            _block_step(P, s)
        else:
            s[S_CURSOR] = q
        return ne
    if ph == PH_BLOCK:
        if action == ACT_PASS:
            q = next_living(P, s, p)
            if s[S_ACTION] == ACT_FOREIGN_AID and q != s[S_ACTOR]:
                s[S_CURSOR] = q
            else:
                _resolve(P, s)
            return ne
        s[S_BLOCKER] = p
        s[S_BLOCK_CHAR] = action - ACT_BLOCK
        s[S_CURSOR] = s[S_ACTOR]
        s[S_PHASE] = PH_BLOCK_CHALLENGE
        return ne
    if ph == PH_BLOCK_CHALLENGE:
        if action == ACT_CHALLENGE:
            s[S_CHALLENGER] = p
            return _challenge(P, s, s[S_BLOCKER], s[S_BLOCK_CHAR], ev, ne,
                              AFTER_BLOCK_PROVEN, AFTER_BLOCK_FAILED)
        q = next_living(P, s, p)
        if q == s[S_BLOCKER]:
            q = next_living(P, s, q)
        if q == s[S_ACTOR]:
            _end_turn(P, s)  # the block stands: the action fails and its cost stays spent
        else:
            s[S_CURSOR] = q
        return ne
    if ph == PH_LOSE:
        c = action - ACT_LOSE
        s[S_HAND + NCH * p + c] -= 1
        s[S_FACEUP + NCH * p + c] += 1
        s[S_LOSER] = -1
        if _game_over(P, s):
            return ne
        after = s[S_AFTER]
        if after == AFTER_ACTION_PROVEN:
            _replace(s, s[S_ACTOR], claim_of(s[S_ACTION]), AFTER_BLOCK_STEP)
        elif after == AFTER_BLOCK_PROVEN:
            _replace(s, s[S_BLOCKER], s[S_BLOCK_CHAR], AFTER_END_TURN)
        else:
            _after(P, s)
        return ne
    return ne


@njit(cache=True)
def _seat_coins(P, s, start):
    n = P[P_PLAYERS]
    s[S_START] = start
    for i in range(n):
        s[S_COINS + (start + i) % n] = P[P_START_COINS + i]
    if P[P_SETUP] == SETUP_STANDARD:
        s[S_PHASE] = PH_DEAL
    else:
        s[S_PHASE] = PH_CHOOSE
    s[S_CURSOR] = 0


@njit(cache=True)
def _settle(P, s, ev, ne, buf, prob):
    """Apply every forced step: one-outcome chance events and one-choice decisions (but a forced Coup)."""
    while True:
        ph = s[S_PHASE]
        if ph == PH_TERMINAL:
            return ne
        if ph <= PH_EXCHANGE_DRAW:
            if ph == PH_EXCHANGE_DRAW and _deck_size(s) == 0:
                k = 1
                buf[0] = 0
            else:
                k = chance_outcomes(P, s, buf, prob)
        else:
            if ph == PH_TURN:
                return ne
            k = legal_actions(P, s, buf)
        if k != 1:
            return ne
        ne = _step(P, s, buf[0], ev, ne)


@njit(cache=True)
def initial_state(P, s, ev, buf, prob):
    """Fill ``s`` with the state before the first chance event; return the number of events."""
    s[:] = 0
    for i in range(16):
        s[i] = -1
    s[S_TURN] = 0
    n = P[P_PLAYERS]
    for c in range(NCH):
        if P[P_SETUP] == SETUP_STANDARD:
            s[S_DECK + c] = P[P_COPIES + c]
        else:  # selection: the third set is the deck; the two players' sets wait out of the game
            s[S_DECK + c] = 1 if P[P_COPIES + c] > 0 else 0
            s[S_OUT + c] = n if P[P_COPIES + c] > 0 else 0
    if P[P_START_SEAT] < 0:
        s[S_PHASE] = PH_START_SEAT
    else:
        _seat_coins(P, s, P[P_START_SEAT])
    return _settle(P, s, ev, 0, buf, prob)


@njit(cache=True)
def apply(P, s, action, ev, ne, buf, prob):
    """Apply a legal action or chance outcome, then every forced step; return the new event count.

    The caller checks legality (see :func:`legal_actions` / :func:`chance_outcomes`).
    """
    ne = _step(P, s, action, ev, ne)
    return _settle(P, s, ev, ne, buf, prob)


@njit(cache=True)
def returns(P, s, out):
    """Payoffs of a terminal state into ``out[:players]`` (zero-sum)."""
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
    # influence payoff: most face-down cards, ties broken by most coins, share the win
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


# ---- node context, for analysis ----------------------------------------------------------------------
# A decision node's context packed into one int32 (bits): 0-3 phase; 4-6 declared action
# (0 none, 1 Income, 2 Foreign Aid, 3 Tax, 4 Exchange, 5 Coup, 6 Assassinate, 7 Steal); 7-9 the block's
# character + 1 (0 none); 10-17 the turn (at most 255); 18 the claimant holds the claimed character
# (claimant: the blocker once there is a block, else the actor); 19 the claimant has one influence;
# 20-24 the deciding player's face-down characters (bit c set if they hold c); 25-27 their influence.
CTX_PHASE, CTX_ACTION, CTX_BLOCK, CTX_TURN, CTX_HOLDS, CTX_ONE, CTX_HAND, CTX_INFL = 0, 4, 7, 10, 18, 19, 20, 25


@njit(cache=True, inline="always")
def _kind_index(kind):
    if kind < 0:
        return 0
    if kind < ACT_COUP:
        return kind + 1
    return 5 + (kind - ACT_COUP) // MAXP


@njit(cache=True)
def node_context(s):
    """The packed context of a decision node (layout above); 0 at chance and terminal nodes."""
    ph = s[S_PHASE]
    if ph <= PH_EXCHANGE_DRAW or ph == PH_TERMINAL:
        return 0
    ctx = ph | (_kind_index(s[S_ACTION]) << CTX_ACTION) | ((s[S_BLOCK_CHAR] + 1) << CTX_BLOCK)
    ctx |= min(s[S_TURN], 255) << CTX_TURN
    claimant = s[S_BLOCKER] if s[S_BLOCKER] >= 0 else s[S_ACTOR]
    claim = s[S_BLOCK_CHAR] if s[S_BLOCKER] >= 0 else (claim_of(s[S_ACTION]) if s[S_ACTION] >= 0 else -1)
    if claimant >= 0:
        if claim >= 0 and s[S_HAND + NCH * claimant + claim] > 0:
            ctx |= 1 << CTX_HOLDS
        if influence(s, claimant) == 1:
            ctx |= 1 << CTX_ONE
    p = current_player(s)
    for c in range(NCH):
        if s[S_HAND + NCH * p + c] > 0:
            ctx |= 1 << (CTX_HAND + c)
    ctx |= influence(s, p) << CTX_INFL
    return ctx


def max_steps_per_turn(players: int) -> int:
    """An upper bound on the actions and chance events of one turn.

    The longest turn is a challenged Assassination: declare (1), a challenge round (players - 1),
    the challenger's loss and the actor's replacement (2), the target's block (1), a challenge round on
    the block (players - 1), the loss of a challenge and a replacement, or the blocker's loss and then
    the assassination's loss (2).
    """
    return 2 * players + 4


def max_game_length(players: int, setup: int, turn_limit: int, random_start: bool) -> int:
    setup_steps = (4 if setup == SETUP_SELECTION else players) + (1 if random_start else 0)
    return setup_steps + turn_limit * max_steps_per_turn(players)


def max_events(players: int, setup: int, turn_limit: int, random_start: bool) -> int:
    """Upper bound on the events of a whole game: one per step, plus a challenge outcome per round."""
    return max_game_length(players, setup, turn_limit, random_start) + 2 * turn_limit
