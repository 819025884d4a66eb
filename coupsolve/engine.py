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
The variants follow, 0 meaning off: ``P_SELECTIVE_COUP``, ``P_CONTESSA_TAX`` (Blocking Contessa),
``P_FACTIONS``, ``P_HALVES_STEAL``, ``P_BOUNTY`` and ``P_BUYOUT`` (coins), ``P_DECLINE_PROOF``,
``P_EVENT_MAT`` (the number of event-mat cards), ``P_MARKED``, and ``P_TURN_HOOK`` (derived: 1 when the
marked cards, the event mat or Selective Coup need work between turns).

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
S_NAMED            Selective Coup: the character named by a Coup that hit, until the loss is taken
S_FACTIONS         Factions: bit p set when seat p's marker is face down ('Faction Down')
S_EVENT + c        event mat: face-down cards (nobody knows them)
S_EVENT_UP + c     event mat: flipped cards (public, out of play)
S_EVENT_DONE       event mat: the triggers already met (``EV_*`` bits)
S_START_TURNS      event mat: the turns the starting player has begun
S_MARK + k         marked cards: where marked card k is (``LOC_*``; -1 when not in the game)
S_TREATY           1 while a Treaty claim is pending (its challenge round)
S_SAVED_ACTOR      the turn's actor while a Vengeance owner acts (-1 otherwise)
=================  =========================================================================

Marked cards (``P_MARKED``)
---------------------------
Marked card k (0 Inheritance Ambassador, 1 Vengeance Assassin, 2 Treaty Contessa) is one copy of its
character: it is counted in ``S_HAND``/``S_DECK``/``S_FACEUP``/... like any other copy, and its location
field ``S_MARK + k`` says which copy it is (``LOC_DECK``, ``LOC_HAND + p``, ``LOC_FACEUP + p``, ``LOC_POOL``,
``LOC_EVENT``, ``LOC_EVENT_UP``). The base game never reads these fields, so it costs nothing. Decisions
(RULES.md is silent): the mark is on the face, private like the character while face down (the holder,
an Exchange's drawer and a couper shown the hand see it) and public once turned up; a player holding
the marked and a plain copy proves a claim with the plain copy (the mark is kept); a Treaty claim is
proven only by the Treaty Contessa; in the card-selection setup the marked cards are the third set's
copies (dealt or in the Court deck), so the chosen cards are plain; the Vengeance owner must still have
influence to take the free Assassination, which may target any other living player (factions aside).

Player actions (ids ``0 .. NUM_ACTIONS-1``, the OpenSpiel action ids)
---------------------------------------------------------------------
0 Income, 1 Foreign Aid, 2 Tax, 3 Exchange, 4+t Coup pt, 10+t Assassinate pt, 16+t Steal pt (t < 6),
22 Pass, 23 Challenge, 24+c Block c, 29+c Lose c, 34+m Keep m (m a multiset code), 54+c Choose c.
Variants (appended): 59+5t+c Coup pt C (Selective Coup), 89 Defect, 90 Faction Up, 91 Faction Down,
92 Pay (challenge buyout), 93 Prove, 94 Decline (decline_proof), 95 Treaty, 96+t Vengeance pt,
102+k Lose the marked card k, 105+j Keep ``KM_M[j]`` holding the marked cards ``KM_MASK[j]``.

Chance outcomes (ids ``0 .. NUM_CHANCE_OUTCOMES-1``)
----------------------------------------------------
0-19 a multiset code (``Deal ...`` in setup, ``Draw ...`` after a proof or in an Exchange),
20+s the starting seat s (``Start ps``, when the starting seat is random).
Variants (appended): 26+c ``Flip C`` (event mat), 31+k ``Flip`` of marked card k, 34+8m+mask a dealt or
drawn multiset m holding the marked cards of ``mask`` (with the marked cards, mask 0 keeps the plain id m),
194+8i+mask the event mat's face-down cards (``Events ...``: multiset i of ``EV_MS``, 1 to 4 cards).

Events and observation tokens
-----------------------------
Each step appends rows ``(owner, private_token, public_token)`` to the event buffer: ``owner`` is -1
for a public event (everybody sees ``public_token``) or the one seat that sees ``private_token`` while
everyone else sees ``public_token``. A token is ``(seat + 1) * 256 + code`` where seat is the seat the
event is about (0 for the starting-seat draw) and code is: a player action id (0-127);
``CODE_DEAL + m`` / ``CODE_DRAW + m`` a dealt / drawn multiset; ``CODE_START + s``;
``CODE_HIDDEN_*`` what the others see of a private event; ``CODE_PROVED`` / ``CODE_FAILED`` the
outcome of a challenge (with decline_proof a declined proof is ``CODE_FAILED`` too, and the Prove/Decline
decision emits only that outcome); ``CODE_SHOW + m`` a missed Selective Coup's shown hand (to the couper;
others see ``CODE_MISSED``); ``CODE_FLIP + c`` / ``CODE_FLIP_MARKED + k`` a public event-mat flip;
``CODE_EVENTS`` the event-mat deal (public, the cards seen by nobody); ``CODE_MARKS + mask`` which of the
cards just dealt, drawn or shown are marked (emitted after every deal, draw and shown hand when the marked
cards are on, so its presence says nothing; others see ``CODE_HIDDEN_MARKS``). Public decisions of the
variants (Faction Up/Down, Defect, Pay, Treaty, Vengeance, a marked Lose) are action-id tokens.
A player's perfect-recall information state is the sequence of tokens they saw.
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
# variants (RULES.md "Variants"; appended after the base layout, 0 = off)
P_SELECTIVE_COUP = P_START_COINS + MAXP
P_CONTESSA_TAX = P_SELECTIVE_COUP + 1  # Blocking Contessa
P_FACTIONS = P_CONTESSA_TAX + 1
P_HALVES_STEAL = P_FACTIONS + 1  # an Ambassador block reduces a Steal to 1 coin
P_BOUNTY = P_HALVES_STEAL + 1  # coins a challenger takes (0 off)
P_BUYOUT = P_BOUNTY + 1  # coins that buy off a lost challenge (0 off)
P_DECLINE_PROOF = P_BUYOUT + 1
P_EVENT_MAT = P_DECLINE_PROOF + 1  # number of event-mat cards (0 off): 4 with <= 3 players, 3 with 4, else 1
P_MARKED = P_EVENT_MAT + 1  # the marked cards (Inheritance, Vengeance, Treaty)
P_TURN_HOOK = P_MARKED + 1  # 1 when the event mat or the marked cards need work between turns
P_SIZE = P_TURN_HOOK + 1

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
S_NAMED = S_POOL + NCH  # Selective Coup: the character named by the Coup (-1 none)
S_FACTIONS = S_NAMED + 1  # Factions: bit p set when seat p's marker is face down
S_EVENT = S_FACTIONS + 1  # + c: event-mat cards still face down (nobody knows them)
S_EVENT_UP = S_EVENT + NCH  # + c: event-mat cards flipped (public, out of play)
S_EVENT_DONE = S_EVENT_UP + NCH  # event mat: bits EV_* of the triggers already met
S_START_TURNS = S_EVENT_DONE + 1  # event mat: turns the starting player has begun
S_MARK = S_START_TURNS + 1  # + k: where marked card k is (LOC_* below; marked cards only)
S_TREATY = S_MARK + 3  # 1 while the Foreign Aid's actor claims Treaty (its challenge round)
S_SAVED_ACTOR = S_TREATY + 1  # the turn's actor while a Vengeance owner acts (-1 none)
S_SIZE = S_SAVED_ACTOR + 1

# Marked cards: each is one copy of its character, counted in S_HAND/S_DECK/... like any other, and
# S_MARK + k says where that copy is. Marks are on the face: private like the character while face
# down (its holder, a couper shown the hand, an Exchange's drawer see them), public once face up.
INHERITANCE, VENGEANCE, TREATY = 0, 1, 2
MARK_CHAR = np.array([AMBASSADOR, ASSASSIN, CONTESSA], dtype=np.int32)
MARK_NAMES = ("Inheritance", "Vengeance", "Treaty")
LOC_NONE = -1  # not in the game (a reduced deck without its character)
LOC_DECK = 0
LOC_HAND = 1  # + p: face down in seat p's hand
LOC_FACEUP = LOC_HAND + MAXP  # + p: face up, lost by seat p
LOC_POOL = LOC_FACEUP + MAXP  # drawn by an Exchange, before the keep decision
LOC_EVENT = LOC_POOL + 1  # face down on the event mat
LOC_EVENT_UP = LOC_EVENT + 1  # flipped on the event mat
INHERITANCE_COINS = 4

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
# phases of the variants (appended; decisions stay below 16 for the packed node context)
PH_PROVE = 13  # decline_proof: S_CURSOR, challenged and holding the character, proves or declines
PH_FACTION = 14  # Factions: S_CURSOR chooses the side of their marker
PH_VENGEANCE = 15  # marked cards: S_CURSOR (the Vengeance owner) chooses the free Assassination's target
PH_EVENT_DEAL = 16  # chance: the event mat's face-down cards (one multiset, seen by nobody)
PH_FLIP = 17  # chance: an event-mat card is turned face up
NUM_PHASES = 18
PHASE_NAMES = ("start seat", "deal", "deal", "replacement draw", "exchange draw", "choose",
               "turn", "challenge action", "block", "challenge block", "lose influence",
               "exchange keep", "game over", "prove", "faction", "vengeance", "event deal", "event flip")

# event-mat triggers (bits of S_EVENT_DONE)
EV_SLOT1, EV_COIN, EV_SLOT3, EV_SLOT4, EV_SLOT5, EV_DEALT = 1, 2, 4, 8, 16, 32

# what follows a pending loss / replacement
AFTER_END_TURN = 0
AFTER_ACTION_PROVEN = 1  # challenger lost to a proven action: actor replaces, then block step
AFTER_ACTION_FAILED = 2  # actor bluffed: refund, end turn
AFTER_BLOCK_PROVEN = 3  # challenger lost to a proven block: blocker replaces, then end turn
AFTER_BLOCK_FAILED = 4  # blocker bluffed: the action resolves
AFTER_BLOCK_STEP = 5  # (replacement) go on to the block step
AFTER_BLOCK_STANDS = 6  # (replacement) the block stood: a halved Steal takes 1 coin, then end turn
AFTER_KILLED = AFTER_END_TURN  # a loss to a Coup or an Assassination (no challenge buyout)
AFTER_TREATY_PROVEN = 7  # the challenger of a Treaty claim lost: the actor replaces, the Foreign Aid resolves
AFTER_TREATY_FAILED = 8  # the Treaty claim was a bluff: the Duke's block stands
AFTER_TREATY_RESOLVE = 9  # (replacement) the Foreign Aid resolves

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
# actions of the variants (appended, so the base game's ids never change)
ACT_SCOUP = ACT_CHOOSE + NCH  # 59 + NCH * t + c: Selective Coup 'Coup pt C'
ACT_DEFECT = ACT_SCOUP + MAXP * NCH  # 89: Factions
ACT_FACTION = ACT_DEFECT + 1  # 90 Faction Up, 91 Faction Down
ACT_PAY = ACT_FACTION + 2  # 92: challenge buyout ('Pay 5')
ACT_PROVE = ACT_PAY + 1  # 93: decline_proof: reveal the character
ACT_DECLINE = ACT_PROVE + 1  # 94: decline_proof: lose the challenge instead
ACT_TREATY = ACT_DECLINE + 1  # 95: marked cards, override a Duke's block of your Foreign Aid
ACT_VENGEANCE = ACT_TREATY + 1  # 96 + t: 'Vengeance pt' (also the declared-action kind of it)
ACT_LOSE_MARKED = ACT_VENGEANCE + MAXP  # 102 + k: 'Lose Ambassador (Inheritance)', ...
ACT_KEEP_MARKED = ACT_LOSE_MARKED + 3  # 105 + j: an Exchange keep holding marked cards (KM_* tables)
NUM_KEEP_MARKED = 21
NUM_ACTIONS = ACT_KEEP_MARKED + NUM_KEEP_MARKED  # 126 (observation codes below 128 are action ids)

CH_CARDS = 0
CH_START = NUM_MULTISETS
# chance outcomes of the variants (appended)
CH_FLIP = CH_START + MAXP  # 26 + c: 'Flip C', an event-mat card turned face up
CH_FLIP_MARKED = CH_FLIP + NCH  # 31 + k: 'Flip Ambassador (Inheritance)', ...
CH_MARKED = CH_FLIP_MARKED + 3  # 34 + 8 m + mask: a dealt/drawn multiset m holding the marked cards of mask
CH_EVENTS = CH_MARKED + 8 * NUM_MULTISETS  # 194 + 8 i + mask: the event-mat cards, multiset i of EV_MS
NUM_EVENT_MULTISETS = 5 + 15 + 35 + 70
NUM_CHANCE_OUTCOMES = CH_EVENTS + 8 * NUM_EVENT_MULTISETS  # 1194
MAX_MOVES = 512  # size of a buffer for the legal actions or chance outcomes of one node

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
CODE_SHOW = CODE_FAILED + 1  # + multiset: Selective Coup missed; the target's hand, shown to the couper
CODE_MISSED = CODE_SHOW + NUM_MULTISETS  # what everyone else sees of a missed Selective Coup
CODE_FLIP = CODE_MISSED + 1  # + c: an event-mat card turned face up (public)
CODE_EVENTS = CODE_FLIP + NCH  # the event-mat cards were dealt face down (public; nobody sees them)
CODE_FLIP_MARKED = CODE_EVENTS + 1  # + k: a marked event-mat card turned face up
CODE_MARKS = CODE_FLIP_MARKED + 3  # + mask: which of the cards just dealt/drawn/shown are marked (private)
CODE_HIDDEN_MARKS = CODE_MARKS + 8  # what the others see of it
TOKEN_SEAT = 256
assert CODE_HIDDEN_MARKS < TOKEN_SEAT and NUM_ACTIONS <= CODE_DEAL
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

# event-mat multisets: counts per character of every multiset of 1 to 4 cards, by size then in
# lexicographic order of the sorted cards
EV_MS = np.zeros((NUM_EVENT_MULTISETS, NCH), dtype=np.int32)
_k = 0
for _size in range(1, 5):
    def _gen(start, left, acc):
        global _k
        if left == 0:
            for _c in acc:
                EV_MS[_k, _c] += 1
            _k += 1
            return
        for _c in range(start, NCH):
            _gen(_c, left - 1, acc + [_c])
    _gen(0, _size, [])
assert _k == NUM_EVENT_MULTISETS
EV_MS_SIZE = EV_MS.sum(axis=1).astype(np.int32)


# Exchange keeps holding marked cards: KM_M[j] the multiset, KM_MASK[j] the marked cards among it
_km = []
for _m in range(NUM_MULTISETS):
    for _mask in range(1, 8):
        _chars = [int(MS_FIRST[_m])] + ([int(MS_SECOND[_m])] if MS_SECOND[_m] >= 0 else [])
        _need = [int(MARK_CHAR[_b]) for _b in range(3) if _mask >> _b & 1]
        if len(_need) <= len(_chars) and all(_need.count(_c) <= _chars.count(_c) for _c in _need):
            _km.append((_m, _mask))
assert len(_km) == NUM_KEEP_MARKED
KM_M = np.array([m for m, _ in _km], dtype=np.int32)
KM_MASK = np.array([mask for _, mask in _km], dtype=np.int32)
KM_INDEX = np.full((NUM_MULTISETS, 8), -1, dtype=np.int32)
for _j, (_m, _mask) in enumerate(_km):
    KM_INDEX[_m, _mask] = _j


def event_cards(players: int) -> int:
    """Event-mat cards dealt face down: slots 1, 3, 4 and 5 hold a card (slot 2 holds the coin);
    slots 3 and 4 are in use with four or fewer players, slot 5 with three or fewer."""
    return 1 if players >= 5 else (3 if players == 4 else 4)


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
    return s[S_PHASE] <= PH_EXCHANGE_DRAW or s[S_PHASE] >= PH_EVENT_DEAL


@njit(cache=True)
def is_terminal(s):
    return s[S_PHASE] == PH_TERMINAL


@njit(cache=True)
def current_player(s):
    """The seat to decide, -1 at a chance node, -4 at a terminal (OpenSpiel's PlayerId values)."""
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


@njit(cache=True, inline="always")
def mark_of(c):
    """The marked card of character c (-1 for none)."""
    if c == AMBASSADOR:
        return INHERITANCE
    if c == ASSASSIN:
        return VENGEANCE
    if c == CONTESSA:
        return TREATY
    return -1


@njit(cache=True)
def marks_at(s, loc):
    """Bit mask of the marked cards at location ``loc``."""
    mask = 0
    for k in range(3):
        if s[S_MARK + k] == loc:
            mask |= 1 << k
    return mask


@njit(cache=True)
def _marked_outcomes(s, k, out, prob):
    """Marked cards: drawing k (1 or 2) cards from the Court deck, telling the marked copies apart.

    Card types 0-4 are the plain copies, 5 + m the marked card m; an outcome is a multiset code (no
    marked card) or ``CH_MARKED + 8 * multiset + mask``. Sorted by id.
    """
    n = np.zeros(NCH + 3, dtype=np.int64)
    total = 0
    for c in range(NCH):
        n[c] = s[S_DECK + c]
        total += n[c]
    for m in range(3):
        if s[S_MARK + m] == LOC_DECK:
            n[MARK_CHAR[m]] -= 1
            n[NCH + m] = 1
    nout = 0
    if k == 1:
        for t in range(NCH + 3):
            if n[t] > 0:
                out[nout] = t if t < NCH else CH_MARKED + 8 * MARK_CHAR[t - NCH] + (1 << (t - NCH))
                prob[nout] = n[t] / total
                nout += 1
    else:
        denom = total * (total - 1)
        for t1 in range(NCH + 3):
            if n[t1] == 0:
                continue
            for t2 in range(t1, NCH + 3):
                w = n[t1] * (n[t1] - 1) if t1 == t2 else 2 * n[t1] * n[t2]
                if w == 0:
                    continue
                c1 = t1 if t1 < NCH else MARK_CHAR[t1 - NCH]
                c2 = t2 if t2 < NCH else MARK_CHAR[t2 - NCH]
                mask = (1 << (t1 - NCH) if t1 >= NCH else 0) | (1 << (t2 - NCH) if t2 >= NCH else 0)
                m = pair_code(c1, c2)
                out[nout] = m if mask == 0 else CH_MARKED + 8 * m + mask
                prob[nout] = w / denom
                nout += 1
    # insertion sort by id (a few dozen outcomes at most)
    for i in range(1, nout):
        a = out[i]
        p = prob[i]
        j = i - 1
        while j >= 0 and out[j] > a:
            out[j + 1] = out[j]
            prob[j + 1] = prob[j]
            j -= 1
        out[j + 1] = a
        prob[j + 1] = p
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
    if P[P_MARKED] and ph <= PH_EXCHANGE_DRAW:
        k = 2 if ph == PH_DEAL else (min(2, _deck_size(s)) if ph == PH_EXCHANGE_DRAW else 1)
        return _marked_outcomes(s, k, out, prob)
    if ph == PH_DEAL:
        return _multiset_outcomes(s, 2, out, prob, 0)
    if ph == PH_DEAL_ONE or ph == PH_REPLACE:
        return _multiset_outcomes(s, 1, out, prob, 0)
    if ph == PH_EXCHANGE_DRAW:
        k = min(2, _deck_size(s))
        return _multiset_outcomes(s, k, out, prob, 0)
    if ph == PH_FLIP:  # a uniform draw from the face-down event cards
        total = 0
        for c in range(NCH):
            total += s[S_EVENT + c]
        marked = marks_at(s, LOC_EVENT)
        nout = 0
        for c in range(NCH):
            x = s[S_EVENT + c]
            m = mark_of(c)
            if m >= 0 and (marked >> m) & 1:
                x -= 1
            if x > 0:
                out[nout] = CH_FLIP + c
                prob[nout] = x / total
                nout += 1
        for m in range(3):
            if (marked >> m) & 1:
                out[nout] = CH_FLIP_MARKED + m
                prob[nout] = 1.0 / total
                nout += 1
        return nout
    if ph == PH_EVENT_DEAL:  # P[P_EVENT_MAT] cards from the Court deck, multivariate hypergeometric
        k = P[P_EVENT_MAT]
        total = _deck_size(s)
        denom = _choose(total, k)
        in_deck = marks_at(s, LOC_DECK)
        nout = 0
        for i in range(NUM_EVENT_MULTISETS):
            if EV_MS_SIZE[i] != k:
                continue
            for mask in range(8):
                if mask & ~in_deck:
                    continue
                w = 1.0
                for c in range(NCH):
                    plain = s[S_DECK + c]
                    x = EV_MS[i, c]
                    m = mark_of(c)
                    if m >= 0 and (in_deck >> m) & 1:
                        plain -= 1
                        if (mask >> m) & 1:
                            x -= 1
                    w *= _choose(plain, x)
                if w > 0:
                    out[nout] = CH_EVENTS + 8 * i + mask
                    prob[nout] = w / denom
                    nout += 1
        return nout
    return 0


@njit(cache=True)
def _choose(a, b):
    if b < 0 or b > a:
        return 0.0
    r = 1.0
    for i in range(b):
        r = r * (a - i) / (i + 1)
    return r


@njit(cache=True)
def legal_actions(P, s, out):
    """Fill ``out`` with the legal actions of a decision node, sorted ascending; return how many."""
    ph = s[S_PHASE]
    n = P[P_PLAYERS]
    k = 0
    if ph == PH_TURN:
        a = s[S_ACTOR]
        coins = s[S_COINS + a]
        # targets: living opponents (Factions: of the other faction unless all living share one)
        tmask = 0
        for t in range(n):
            if t != a and influence(s, t) > 0:
                tmask |= 1 << t
        if P[P_FACTIONS]:
            tmask = _faction_targets(P, s, a, tmask)
        selective = P[P_SELECTIVE_COUP]
        if coins >= P[P_FORCED_COUP]:
            if selective:
                return _selective_coups(P, s, tmask, out, 0)
            for t in range(n):
                if (tmask >> t) & 1:
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
        coup = coins >= P[P_COUP_COST]
        if coup and not selective:
            for t in range(n):
                if (tmask >> t) & 1:
                    out[k] = ACT_COUP + t
                    k += 1
        if coins >= P[P_ASSASSINATE_COST] and in_game(P, ASSASSIN):
            for t in range(n):
                if (tmask >> t) & 1:
                    out[k] = ACT_ASSASSINATE + t
                    k += 1
        if in_game(P, CAPTAIN):
            for t in range(n):
                if (tmask >> t) & 1:
                    out[k] = ACT_STEAL + t
                    k += 1
        if coup and selective:
            k = _selective_coups(P, s, tmask, out, k)
        if P[P_FACTIONS] and coins >= 1:
            out[k] = ACT_DEFECT
            k += 1
        return k
    if ph == PH_CHALLENGE or ph == PH_BLOCK_CHALLENGE:
        out[0] = ACT_PASS
        out[1] = ACT_CHALLENGE
        if (ph == PH_BLOCK_CHALLENGE and P[P_MARKED] and s[S_CURSOR] == s[S_ACTOR]
                and s[S_ACTION] == ACT_FOREIGN_AID and s[S_MARK + TREATY] != LOC_NONE):
            out[2] = ACT_TREATY  # the actor may override the Duke's block with the Treaty
            return 3
        return 2
    if ph == PH_VENGEANCE:  # any other living player (RULES.md: 'against anyone')
        a = s[S_CURSOR]
        for t in range(n):
            if t != a and influence(s, t) > 0:
                out[k] = ACT_VENGEANCE + t
                k += 1
        return k
    if ph == PH_BLOCK:
        out[0] = ACT_PASS
        k = 1
        for c in range(NCH):
            if _can_block(P, s, c):
                out[k] = ACT_BLOCK + c
                k += 1
        return k
    if ph == PH_LOSE:
        loser = s[S_LOSER]
        base = S_HAND + NCH * loser
        if not P[P_MARKED] and s[S_NAMED] < 0:  # the base game
            for c in range(NCH):
                if s[base + c] > 0:
                    out[k] = ACT_LOSE + c
                    k += 1
            x = P[P_BUYOUT]
            if x > 0 and s[S_AFTER] != AFTER_KILLED and s[S_COINS + loser] >= x:
                out[k] = ACT_PAY
                k += 1
            return k
        # Selective Coup's hit: the named character is lost (a choice only between its marked and
        # plain copies)
        named = s[S_NAMED] if s[S_AFTER] == AFTER_KILLED and s[S_ACTION] == ACT_COUP else -1
        marked = marks_at(s, LOC_HAND + loser) if P[P_MARKED] else 0
        for c in range(NCH):
            x = s[base + c]
            m = mark_of(c)
            if m >= 0 and (marked >> m) & 1:
                x -= 1
            if x > 0 and (named < 0 or c == named):
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
    if ph == PH_PROVE:
        out[0] = ACT_PROVE
        out[1] = ACT_DECLINE
        return 2
    if ph == PH_FACTION:
        out[0] = ACT_FACTION
        out[1] = ACT_FACTION + 1
        return 2
    if ph == PH_KEEP:
        a = s[S_ACTOR]
        keep = influence(s, a)
        base = S_HAND + NCH * a
        if P[P_MARKED]:
            return _keep_marked(s, a, keep, out)
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
def _keep_marked(s, a, keep, out):
    """Marked cards: the Exchange keeps, telling the marked copies apart (plain keeps first, by id)."""
    base = S_HAND + NCH * a
    marked = marks_at(s, LOC_HAND + a) | marks_at(s, LOC_POOL)
    plain = np.zeros(NCH, dtype=np.int64)
    for c in range(NCH):
        plain[c] = s[base + c] + s[S_POOL + c]
        m = mark_of(c)
        if m >= 0 and (marked >> m) & 1:
            plain[c] -= 1
    k = 0
    if keep == 1:
        for c in range(NCH):
            if plain[c] > 0:
                out[k] = ACT_KEEP + c
                k += 1
    else:
        for x in range(NCH):
            for y in range(x, NCH):
                if (x == y and plain[x] >= 2) or (x != y and plain[x] > 0 and plain[y] > 0):
                    out[k] = ACT_KEEP + pair_code(x, y)
                    k += 1
    for j in range(NUM_KEEP_MARKED):
        m = KM_M[j]
        mask = KM_MASK[j]
        if MS_SIZE[m] != keep or (mask & ~marked) != 0:
            continue
        # the plain cards the keep needs besides its marked ones
        need = np.zeros(NCH, dtype=np.int64)
        need[MS_FIRST[m]] += 1
        if MS_SECOND[m] >= 0:
            need[MS_SECOND[m]] += 1
        ok = True
        for mm in range(3):
            if (mask >> mm) & 1:
                need[MARK_CHAR[mm]] -= 1
        for c in range(NCH):
            if need[c] > plain[c]:
                ok = False
        if ok:
            out[k] = ACT_KEEP_MARKED + j
            k += 1
    return k


@njit(cache=True)
def _faction_targets(P, s, a, tmask):
    """Factions: keep the targets of the other faction than ``a``'s, unless all living share one."""
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


@njit(cache=True)
def _selective_coups(P, s, tmask, out, k):
    """Selective Coup: 'Coup pt C' for each target and each character of the deck."""
    for t in range(P[P_PLAYERS]):
        if (tmask >> t) & 1:
            for c in range(NCH):
                if in_game(P, c):
                    out[k] = ACT_SCOUP + NCH * t + c
                    k += 1
    return k


@njit(cache=True, inline="always")
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
    if kind == ACT_TAX:  # Blocking Contessa
        return c == CONTESSA and P[P_CONTESSA_TAX] != 0
    if kind == ACT_VENGEANCE:  # the free Assassination: the target may block with Contessa
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


@njit(cache=True, inline="always")
def _end_turn(P, s):
    n = P[P_PLAYERS]
    if P[P_TURN_HOOK]:
        _turn_over(s)
    for p in range(n):
        if influence(s, p) == 0:
            s[S_COINS + p] = 0
    if s[S_TURN] >= P[P_TURN_LIMIT]:
        s[S_PHASE] = PH_TERMINAL
        return
    s[S_ACTOR] = next_living(P, s, s[S_ACTOR])
    _begin_turn(s)
    if P[P_EVENT_MAT]:
        _event_turn(P, s)


@njit(cache=True)
def _turn_over(s):
    """Between turns: a Vengeance is over (back to the turn's actor); no Treaty claim is pending; no
    Selective Coup's named character."""
    if s[S_SAVED_ACTOR] >= 0:
        s[S_ACTOR] = s[S_SAVED_ACTOR]
        s[S_SAVED_ACTOR] = -1
    s[S_TREATY] = 0
    s[S_NAMED] = -1


@njit(cache=True, inline="always")
def _begin_turn(s):
    s[S_TURN] += 1
    s[S_PHASE] = PH_TURN
    s[S_ACTION] = -1
    s[S_TARGET] = -1
    s[S_CURSOR] = -1
    s[S_CHALLENGER] = -1
    s[S_BLOCKER] = -1
    s[S_BLOCK_CHAR] = -1


@njit(cache=True, inline="always")
def _lose(s, seat, after):
    s[S_PHASE] = PH_LOSE
    s[S_LOSER] = seat
    s[S_AFTER] = after


@njit(cache=True, inline="always")
def _replace(P, s, seat, c, after, marked):
    """The proven card goes back to the Court deck; the seat then draws a replacement (chance).

    Marked cards: ``marked`` proves with the marked copy (a Treaty claim). Otherwise the proof shows a
    plain copy when the seat holds one besides the marked copy (decision: the mark is kept), and the
    marked copy when it is the only one.
    """
    if P[P_MARKED]:
        m = mark_of(c)
        if m >= 0 and s[S_MARK + m] == LOC_HAND + seat and (marked or s[S_HAND + NCH * seat + c] == 1):
            s[S_MARK + m] = LOC_DECK
    s[S_HAND + NCH * seat + c] -= 1
    s[S_DECK + c] += 1
    s[S_PHASE] = PH_REPLACE
    s[S_DRAWER] = seat
    s[S_AFTER] = after


@njit(cache=True, inline="always")
def _block_step(P, s):
    kind = s[S_ACTION]
    actor = s[S_ACTOR]
    if kind == ACT_FOREIGN_AID:
        if in_game(P, DUKE):
            s[S_CURSOR] = next_living(P, s, actor)
            s[S_PHASE] = PH_BLOCK
            return
    elif kind == ACT_TAX:
        # Blocking Contessa: after Tax's challenge round, any other player may block in seat order
        if P[P_CONTESSA_TAX] and in_game(P, CONTESSA):
            s[S_CURSOR] = next_living(P, s, actor)
            s[S_PHASE] = PH_BLOCK
            return
    elif kind == ACT_STEAL or kind == ACT_ASSASSINATE or kind == ACT_VENGEANCE:
        t = s[S_TARGET]
        if influence(s, t) > 0:
            s[S_CURSOR] = t
            for c in range(NCH):
                if _can_block(P, s, c):
                    s[S_PHASE] = PH_BLOCK
                    return
    _resolve(P, s)


@njit(cache=True, inline="always")
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
    elif kind == ACT_ASSASSINATE or kind == ACT_COUP or kind == ACT_VENGEANCE:
        if influence(s, t) > 0:
            _lose(s, t, AFTER_KILLED)
            return
    elif kind == ACT_EXCHANGE:
        s[S_PHASE] = PH_EXCHANGE_DRAW
        return
    _end_turn(P, s)


@njit(cache=True, inline="always")
def _block_stands(P, s):
    """The block stood (nobody challenged it, or the blocker proved it): the action fails.

    With the halved steal, an Ambassador's block reduces a Steal to 1 coin instead of stopping it.
    Decision (RULES.md is silent): an actor who went out challenging the block takes nothing.
    """
    if (P[P_HALVES_STEAL] and s[S_ACTION] == ACT_STEAL and s[S_BLOCK_CHAR] == AMBASSADOR
            and influence(s, s[S_ACTOR]) > 0):
        t = s[S_TARGET]
        x = min(1, s[S_COINS + t])
        s[S_COINS + t] -= x
        s[S_COINS + s[S_ACTOR]] += x
    _end_turn(P, s)


@njit(cache=True)
def _after(P, s):
    """Continue after a loss or a replacement draw, as recorded in S_AFTER."""
    after = s[S_AFTER]
    s[S_AFTER] = -1
    if after == AFTER_END_TURN:
        _end_turn(P, s)
    elif after == AFTER_BLOCK_PROVEN or after == AFTER_BLOCK_STANDS:
        _block_stands(P, s)
    elif after == AFTER_BLOCK_STEP:
        _block_step(P, s)
    elif after == AFTER_ACTION_FAILED:
        if s[S_ACTION] == ACT_ASSASSINATE:
            s[S_COINS + s[S_ACTOR]] += P[P_ASSASSINATE_COST]
        _end_turn(P, s)
    elif after == AFTER_BLOCK_FAILED or after == AFTER_TREATY_RESOLVE:
        _resolve(P, s)
    elif after == AFTER_TREATY_FAILED:
        _block_stands(P, s)


@njit(cache=True)
def _challenge(P, s, challenged, c, ev, ne, after_proven, after_failed):
    """Resolve a challenge of ``challenged``'s claim of character ``c``; return the new event count.

    ``c = -1`` is a Treaty claim: only the Treaty Contessa proves it.
    """
    if P[P_BOUNTY]:  # the challenger takes the bounty before the challenge is resolved
        s[S_COINS + s[S_CHALLENGER]] += P[P_BOUNTY]
    if c < 0:
        holds = s[S_MARK + TREATY] == LOC_HAND + challenged
    else:
        holds = s[S_HAND + NCH * challenged + c] > 0
    if holds:
        if P[P_DECLINE_PROOF]:
            # the holder decides (PH_PROVE); a player without the card fails at once, and both emit
            # the same public outcome, so others cannot tell a declined proof from a bluff
            s[S_PHASE] = PH_PROVE
            s[S_CURSOR] = challenged
            s[S_AFTER] = after_proven
            return ne
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
    mask = -1
    if P[P_MARKED] and ph <= PH_EXCHANGE_DRAW and ph != PH_START_SEAT:
        # marked cards: the outcome says which marked copies are among the cards; place them now
        mask = 0
        if action >= CH_MARKED:
            mask = (action - CH_MARKED) & 7
            action = (action - CH_MARKED) >> 3
        if ph == PH_EXCHANGE_DRAW:
            dest = LOC_POOL
        else:
            dest = LOC_HAND + (s[S_DRAWER] if ph == PH_REPLACE else s[S_CURSOR])
        for m in range(3):
            if (mask >> m) & 1:
                s[S_MARK + m] = dest
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
        if mask >= 0:
            ne = _private(ev, ne, p, CODE_MARKS + mask, CODE_HIDDEN_MARKS)
        if p + 1 == n:
            _deal_done(P, s)
        else:
            s[S_CURSOR] = p + 1
        return ne
    if ph == PH_DEAL_ONE:
        p = s[S_CURSOR]
        s[S_HAND + NCH * p + action] += 1
        s[S_DECK + action] -= 1
        ne = _private(ev, ne, p, CODE_DEAL + action, CODE_HIDDEN_DEAL)
        if mask >= 0:
            ne = _private(ev, ne, p, CODE_MARKS + mask, CODE_HIDDEN_MARKS)
        if p + 1 == n:
            _deal_done(P, s)
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
        if mask >= 0:
            ne = _private(ev, ne, p, CODE_MARKS + mask, CODE_HIDDEN_MARKS)
        _after(P, s)
        return ne
    if ph == PH_FLIP:
        if action >= CH_FLIP_MARKED:
            m = action - CH_FLIP_MARKED
            c = MARK_CHAR[m]
            s[S_MARK + m] = LOC_EVENT_UP
            ne = _public(ev, ne, 0, CODE_FLIP_MARKED + m)
        else:
            c = action - CH_FLIP
            ne = _public(ev, ne, 0, CODE_FLIP + c)
        s[S_EVENT + c] -= 1
        s[S_EVENT_UP + c] += 1
        s[S_PHASE] = PH_TURN
        _event_check(P, s)
        return ne
    if ph == PH_EVENT_DEAL:
        i = (action - CH_EVENTS) >> 3
        emask = (action - CH_EVENTS) & 7
        for m in range(3):
            if (emask >> m) & 1:
                s[S_MARK + m] = LOC_EVENT
        for c in range(NCH):
            s[S_EVENT + c] += EV_MS[i, c]
            s[S_DECK + c] -= EV_MS[i, c]
        s[S_EVENT_DONE] |= EV_DEALT
        ne = _public(ev, ne, 0, CODE_EVENTS)
        _deal_done(P, s)
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
        if mask >= 0:
            ne = _private(ev, ne, a, CODE_MARKS + mask, CODE_HIDDEN_MARKS)
        s[S_PHASE] = PH_KEEP
        return ne

    # decisions: every decision below is public except the Exchange keep and the proof
    p = current_player(s)
    if ph == PH_PROVE:
        # only the outcome is public (a player without the card fails the same way)
        after_proven = s[S_AFTER]
        if action == ACT_PROVE:
            ne = _public(ev, ne, p, CODE_PROVED)
            _lose(s, s[S_CHALLENGER], after_proven)
        else:
            ne = _public(ev, ne, p, CODE_FAILED)
            _lose(s, p, after_proven + 1)  # AFTER_*_FAILED follows AFTER_*_PROVEN
        return ne
    if ph == PH_KEEP:
        base = S_HAND + NCH * p
        for c in range(NCH):
            s[S_DECK + c] += s[base + c] + s[S_POOL + c]
            s[base + c] = 0
            s[S_POOL + c] = 0
        if P[P_MARKED]:  # every marked card of the hand and the draw goes back, then the kept ones
            for mm in range(3):
                if s[S_MARK + mm] == LOC_POOL or s[S_MARK + mm] == LOC_HAND + p:
                    s[S_MARK + mm] = LOC_DECK
        if action >= ACT_KEEP_MARKED:
            j = action - ACT_KEEP_MARKED
            m = KM_M[j]
            for mm in range(3):
                if (KM_MASK[j] >> mm) & 1:
                    s[S_MARK + mm] = LOC_HAND + p
        else:
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
        if action >= ACT_SCOUP:
            return _variant_turn(P, s, p, action, ev, ne)
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
            if s[S_TREATY]:
                return _challenge(P, s, actor, -1, ev, ne, AFTER_TREATY_PROVEN, AFTER_TREATY_FAILED)
            return _challenge(P, s, actor, claim_of(s[S_ACTION]), ev, ne,
                              AFTER_ACTION_PROVEN, AFTER_ACTION_FAILED)
        q = next_living(P, s, p)
        if q == actor:
            if s[S_TREATY]:
                _resolve(P, s)  # nobody challenged the Treaty: the Foreign Aid goes through
            else:
                _block_step(P, s)
        else:
            s[S_CURSOR] = q
        return ne
    if ph == PH_BLOCK:
        if action == ACT_PASS:
            q = next_living(P, s, p)
            if (s[S_ACTION] == ACT_FOREIGN_AID or s[S_ACTION] == ACT_TAX) and q != s[S_ACTOR]:
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
        if action == ACT_TREATY:
            # the Treaty overrides the Duke's block; every other player may challenge the claim
            s[S_TREATY] = 1
            s[S_CURSOR] = next_living(P, s, p)
            s[S_PHASE] = PH_CHALLENGE
            return ne
        if action == ACT_CHALLENGE:
            s[S_CHALLENGER] = p
            return _challenge(P, s, s[S_BLOCKER], s[S_BLOCK_CHAR], ev, ne,
                              AFTER_BLOCK_PROVEN, AFTER_BLOCK_FAILED)
        q = next_living(P, s, p)
        if q == s[S_BLOCKER]:
            q = next_living(P, s, q)
        if q == s[S_ACTOR]:
            _block_stands(P, s)  # the action fails and its cost stays spent
        else:
            s[S_CURSOR] = q
        return ne
    if ph == PH_LOSE:
        s[S_LOSER] = -1
        if action >= ACT_PAY:  # the variants: a buyout, a marked card
            _lose_variant(P, s, p, action)
            return ne
        c = action - ACT_LOSE
        s[S_HAND + NCH * p + c] -= 1
        s[S_FACEUP + NCH * p + c] += 1
        if _game_over(P, s):
            return ne
        after = s[S_AFTER]
        if after == AFTER_ACTION_PROVEN:
            _replace(P, s, s[S_ACTOR], claim_of(s[S_ACTION]), AFTER_BLOCK_STEP, False)
        elif after == AFTER_BLOCK_PROVEN:
            _replace(P, s, s[S_BLOCKER], s[S_BLOCK_CHAR], AFTER_BLOCK_STANDS, False)
        else:
            _after_loss(P, s)
        return ne
    if ph == PH_VENGEANCE:
        s[S_TARGET] = action - ACT_VENGEANCE
        _block_step(P, s)
        return ne
    if ph == PH_FACTION:
        if action != ACT_FACTION:
            s[S_FACTIONS] |= 1 << p
        q = next_living(P, s, p)
        if q == s[S_START]:
            s[S_ACTOR] = s[S_START]
            _next_turn(P, s)
        else:
            s[S_CURSOR] = q
        return ne
    return ne


@njit(cache=True)
def _lose_variant(P, s, p, action):
    """The loss decisions of the variants: the challenge buyout, a marked card."""
    if action == ACT_PAY:  # challenge buyout: coins instead of an influence
        s[S_COINS + p] -= P[P_BUYOUT]
        _after_loss(P, s)
        return
    m = action - ACT_LOSE_MARKED
    c = MARK_CHAR[m]
    s[S_HAND + NCH * p + c] -= 1
    s[S_FACEUP + NCH * p + c] += 1
    s[S_MARK + m] = LOC_FACEUP + p
    if _game_over(P, s):
        return
    if s[S_AFTER] == AFTER_KILLED:  # killed: by a Coup or an Assassination
        if m == INHERITANCE:
            s[S_COINS + p] += INHERITANCE_COINS
        elif m == VENGEANCE and s[S_ACTION] == ACT_COUP and influence(s, p) > 0:
            # the owner's free Assassination (decision: only while still in the game)
            s[S_SAVED_ACTOR] = s[S_ACTOR]
            s[S_ACTOR] = p
            s[S_CURSOR] = p
            s[S_ACTION] = ACT_VENGEANCE
            s[S_TARGET] = -1
            s[S_NAMED] = -1
            s[S_PHASE] = PH_VENGEANCE
            return
    _after_loss(P, s)


@njit(cache=True)
def _after_loss(P, s):
    """Go on after an influence was lost (or bought off) and the game is not over."""
    after = s[S_AFTER]
    if after == AFTER_ACTION_PROVEN:
        _replace(P, s, s[S_ACTOR], claim_of(s[S_ACTION]), AFTER_BLOCK_STEP, False)
    elif after == AFTER_BLOCK_PROVEN:
        _replace(P, s, s[S_BLOCKER], s[S_BLOCK_CHAR], AFTER_BLOCK_STANDS, False)
    elif after == AFTER_TREATY_PROVEN:
        _replace(P, s, s[S_ACTOR], CONTESSA, AFTER_TREATY_RESOLVE, True)
    else:
        _after(P, s)


@njit(cache=True)
def _variant_turn(P, s, p, action, ev, ne):
    """The turn actions of the variants: Selective Coup and Defect."""
    if action == ACT_DEFECT:  # pay 1 coin to the Treasury, flip your own marker
        s[S_COINS + p] -= 1
        s[S_FACTIONS] ^= 1 << p
        _end_turn(P, s)
        return ne
    # Selective Coup: 'Coup pt C'
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
        _lose(s, t, AFTER_KILLED)
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
    ne = _event(ev, ne, p, (t + 1) * TOKEN_SEAT + CODE_SHOW + m, (t + 1) * TOKEN_SEAT + CODE_MISSED)
    if P[P_MARKED]:  # the marks are on the faces: the couper sees them too
        ne = _event(ev, ne, p, (t + 1) * TOKEN_SEAT + CODE_MARKS + marks_at(s, LOC_HAND + t),
                    (t + 1) * TOKEN_SEAT + CODE_HIDDEN_MARKS)
    _end_turn(P, s)
    return ne


@njit(cache=True)
def _deal_done(P, s):
    """Every seat has its cards: the event mat's cards, Factions' choice of sides, or the first turn."""
    s[S_ACTOR] = s[S_START]
    if P[P_EVENT_MAT] and not s[S_EVENT_DONE] & EV_DEALT:
        s[S_PHASE] = PH_EVENT_DEAL
    elif P[P_FACTIONS]:
        s[S_PHASE] = PH_FACTION
        s[S_CURSOR] = s[S_START]
    else:
        _next_turn(P, s)


@njit(cache=True)
def _next_turn(P, s):
    """Begin the turn of S_ACTOR (the event mat's flips and coin come first)."""
    _begin_turn(s)
    if P[P_EVENT_MAT]:
        _event_turn(P, s)


@njit(cache=True)
def _event_turn(P, s):
    if s[S_ACTOR] == s[S_START]:
        s[S_START_TURNS] += 1
    _event_check(P, s)


@njit(cache=True)
def _event_check(P, s):
    """At the start of a turn: flip the next event-mat card that is due (phase PH_FLIP), if any.

    Decisions (RULES.md is silent): slot 2 holds the coin, not a card; a flip 'after a lost card' is
    made once the turn in which the card was lost is over, before the next turn (and never after the
    last turn); the cards lost to the flips' triggers are the players' face-up cards.
    """
    n = P[P_PLAYERS]
    done = s[S_EVENT_DONE]
    lost = 0
    for i in range(NCH * n):
        lost += s[S_FACEUP + i]
    if n <= 4 and lost >= 1 and not done & EV_SLOT4:
        s[S_EVENT_DONE] |= EV_SLOT4
        s[S_PHASE] = PH_FLIP
        return
    if n <= 3 and lost >= 2 and not done & EV_SLOT5:
        s[S_EVENT_DONE] |= EV_SLOT5
        s[S_PHASE] = PH_FLIP
        return
    if s[S_ACTOR] != s[S_START]:
        return
    k = s[S_START_TURNS]
    if k == 1 and not done & EV_SLOT1:
        s[S_EVENT_DONE] |= EV_SLOT1
        s[S_PHASE] = PH_FLIP
    elif k == 2 and not done & EV_COIN:
        s[S_EVENT_DONE] |= EV_COIN
        s[S_COINS + s[S_ACTOR]] += 1
    elif k == 3 and n <= 4 and not done & EV_SLOT3:
        s[S_EVENT_DONE] |= EV_SLOT3
        s[S_PHASE] = PH_FLIP


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
        if ph <= PH_EXCHANGE_DRAW or ph >= PH_EVENT_DEAL:
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
    s[S_NAMED] = -1
    s[S_SAVED_ACTOR] = -1
    for m in range(3):
        s[S_MARK + m] = LOC_DECK if P[P_MARKED] and in_game(P, MARK_CHAR[m]) else LOC_NONE
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
# 20-24 the deciding player's face-down characters (bit c set if they hold c); 25-27 their influence;
# marked cards: 28 a Treaty claim is pending (the claimant is the actor; 18 then says they hold the Treaty
# Contessa); 29 the deciding player holds the Treaty Contessa face down.
CTX_PHASE, CTX_ACTION, CTX_BLOCK, CTX_TURN, CTX_HOLDS, CTX_ONE, CTX_HAND, CTX_INFL = 0, 4, 7, 10, 18, 19, 20, 25
CTX_TREATY, CTX_HOLDS_TREATY = 28, 29


@njit(cache=True, inline="always")
def _kind_index(kind):
    if kind < 0 or kind >= ACT_PASS:
        return 0
    if kind < ACT_COUP:
        return kind + 1
    return 5 + (kind - ACT_COUP) // MAXP


@njit(cache=True)
def node_context(s):
    """The packed context of a decision node (layout above); 0 at chance and terminal nodes."""
    ph = s[S_PHASE]
    if is_chance(s) or ph == PH_TERMINAL:
        return 0
    ctx = ph | (_kind_index(s[S_ACTION]) << CTX_ACTION) | ((s[S_BLOCK_CHAR] + 1) << CTX_BLOCK)
    ctx |= min(s[S_TURN], 255) << CTX_TURN
    claimant = s[S_BLOCKER] if s[S_BLOCKER] >= 0 else s[S_ACTOR]
    claim = s[S_BLOCK_CHAR] if s[S_BLOCKER] >= 0 else (claim_of(s[S_ACTION]) if s[S_ACTION] >= 0 else -1)
    p = current_player(s)
    if s[S_TREATY]:
        claimant = s[S_ACTOR]
        claim = -1
        ctx |= 1 << CTX_TREATY
        if s[S_MARK + TREATY] == LOC_HAND + claimant:
            ctx |= 1 << CTX_HOLDS
    if s[S_MARK + TREATY] == LOC_HAND + p:
        ctx |= 1 << CTX_HOLDS_TREATY
    if claimant >= 0:
        if claim >= 0 and s[S_HAND + NCH * claimant + claim] > 0:
            ctx |= 1 << CTX_HOLDS
        if influence(s, claimant) == 1:
            ctx |= 1 << CTX_ONE
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


def max_game_length(players: int, setup: int, turn_limit: int, random_start: bool,
                    extra_setup: int = 0, extra_per_turn: int = 0) -> int:
    setup_steps = (4 if setup == SETUP_SELECTION else players) + (1 if random_start else 0) + extra_setup
    return setup_steps + turn_limit * (max_steps_per_turn(players) + extra_per_turn)


def max_events(players: int, setup: int, turn_limit: int, random_start: bool,
               extra_setup: int = 0, extra_per_turn: int = 0) -> int:
    """Upper bound on the events of a whole game: one per step, plus a challenge outcome per round."""
    return (max_game_length(players, setup, turn_limit, random_start, extra_setup, extra_per_turn)
            + (2 + extra_per_turn) * turn_limit)


def variant_extra_steps(P) -> tuple[int, int]:
    """(extra setup steps, extra steps per turn) that the variants switched on in ``P`` may add.

    Generous bounds: Blocking Contessa gives Tax a block round of every other player; declining a
    proof adds a decision to each of the two challenges of a turn; Factions adds one choice per seat.
    """
    n = int(P[P_PLAYERS])
    per_turn = 0
    if P[P_CONTESSA_TAX]:
        per_turn += n
    if P[P_DECLINE_PROOF]:
        per_turn += 2
    setup = n if P[P_FACTIONS] else 0
    if P[P_EVENT_MAT]:
        setup += 5  # the deal and at most four flips
    if P[P_MARKED]:
        per_turn += 2 * n + 8  # a Treaty and its challenge round, or a Vengeance and its block
    return setup, per_turn


def game_bounds(P) -> tuple[int, int]:
    """(max game length, max events) for the parameter vector ``P``."""
    extra_setup, extra_turn = variant_extra_steps(P)
    args = (int(P[P_PLAYERS]), int(P[P_SETUP]), int(P[P_TURN_LIMIT]), int(P[P_START_SEAT]) < 0,
            extra_setup, extra_turn)
    return max_game_length(*args), max_events(*args)
