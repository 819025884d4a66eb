"""The Coup engine's layout: every constant and table, in plain Python and NumPy (no numba).

:class:`coupsolve.Rules` packs a configuration with these constants without compiling anything; the
numba engine modules (:mod:`coupsolve.engine` and its siblings) read the same names. The vectors below
are ``int32`` arrays; the full state layout, action ids and observation tokens are documented here once.

Characters and hands
--------------------
``0 Duke, 1 Assassin, 2 Captain, 3 Ambassador, 4 Contessa``. A hand or a deck is a vector of 5 counts.
A *multiset code* names one or two cards: codes 0-4 are the single cards, 5-19 the pairs (a, b), a <= b,
in lexicographic order (Duke+Duke, Duke+Assassin, ..., Contessa+Contessa); ``MS_FIRST``/``MS_SECOND``.

Parameters (``int32[P_SIZE]``) and state (``int32[S_SIZE]``)
-----------------------------------------------------------
Each ``P_*`` and ``S_*`` index below carries its meaning as a comment. Seat fields hold -1 for none.
Marked card k (``INHERITANCE`` Ambassador, ``VENGEANCE`` Assassin, ``TREATY`` Contessa) is one copy of its
character, counted in ``S_HAND``/``S_DECK``/``S_FACEUP``/... like any other, and ``S_MARK + k`` says where
that copy is (``LOC_*``). The base game never reads those fields. Decisions where the printed rules are
silent: the mark is on the face (private while face down: its holder, an Exchange's drawer and a couper
shown the hand see it; public once face up); a holder of the marked and a plain copy proves a claim with
the plain copy; a Treaty claim is proven only by the Treaty Contessa; in the card-selection setup the
marked cards are the third set's copies; the Vengeance owner must still have influence to act.

Player actions (ids ``0 .. NUM_ACTIONS-1``, the OpenSpiel action ids)
---------------------------------------------------------------------
0 Income, 1 Foreign Aid, 2 Tax, 3 Exchange, 4+t Coup pt, 10+t Assassinate pt, 16+t Steal pt (t < 6),
22 Pass, 23 Challenge, 24+c Block c, 29+c Lose c, 34+m Keep m (m a multiset code), 54+c Choose c.
Variants (appended): 59+5t+c Coup pt C (Selective Coup), 89 Defect, 90 Faction Up, 91 Faction Down,
92 Pay (challenge buyout), 93 Prove, 94 Decline (decline_proof), 95 Treaty, 96+t Vengeance pt,
102+k Lose the marked card k, 105+j Keep ``KM_M[j]`` holding the marked cards ``KM_MASK[j]``.
The *kind* of a declared turn action is the id of its first form (``ACTION_KIND``: Steal p3 -> ACT_STEAL).

Chance outcomes (ids ``0 .. NUM_CHANCE_OUTCOMES-1``)
----------------------------------------------------
0-19 a multiset code (``Deal ...`` in setup, ``Draw ...`` after a proof or in an Exchange), 20+s the
starting seat s. Variants: 26+c ``Flip C`` (event mat), 31+k ``Flip`` of marked card k, 34+8m+mask a
dealt or drawn multiset m holding the marked cards of ``mask`` (mask 0 keeps the plain id m), 194+8i+mask
the event mat's face-down cards (multiset i of ``EV_MS``, 1 to 4 cards).

Events and observation tokens
-----------------------------
Each step appends rows ``(owner, private_token, public_token)`` to an ``int32[MAX_EVENTS_PER_STEP, 3]``
buffer: ``owner`` is -1 for a public event or the one seat that sees ``private_token`` while everyone else
sees ``public_token``. A token is ``(seat + 1) * TOKEN_SEAT + code``, seat the seat the event is about (0
for the starting-seat draw); a code below ``CODE_DEAL`` is a player action id, the ``CODE_*`` constants
below name the others (``CODE_HIDDEN_*``: what the others see of a private event). A declined proof emits
``CODE_FAILED`` like a bluff. With the marked cards every deal, draw and shown hand is followed by a
private ``CODE_MARKS + mask``. A player's perfect-recall information state is the sequence of tokens they
saw. Forced steps (one choice, one outcome) emit exactly the events they would have emitted if asked.

Claims and the node context
---------------------------
``CLAIM_*`` numbers the claims a player can make (the analysis's rows); ``CLAIM_CHAR``/``CLAIM_MARK``
say which card proves each, ``ACTION_CLAIM`` which claim an action makes. ``CTX_*`` is the bit layout of
the packed decision context (:func:`coupsolve.engine.context.node_context`), read with ``context_field``.
"""

import numpy as np

MAXP = 6
NCH = 5
DUKE, ASSASSIN, CAPTAIN, AMBASSADOR, CONTESSA = 0, 1, 2, 3, 4

# ---- parameters ---------------------------------------------------------------------------------
P_PLAYERS = 0  # seats
P_SETUP = 1  # SETUP_STANDARD / SETUP_SELECTION
P_TURN_LIMIT = 2
P_LIMIT_PAYOFF = 3  # PAYOFF_DRAW / PAYOFF_INFLUENCE
P_START_SEAT = 4  # a seat, or -1 for a random one
P_COUP_COST = 5
P_ASSASSINATE_COST = 6
P_FORCED_COUP = 7  # coins at the start of a turn that force a Coup
P_COPIES = 8  # + c: copies of character c (0: not in the game)
P_START_COINS = P_COPIES + NCH  # + i: coins of the i-th seat in turn order from the starting seat
# variants (appended after the base layout, 0 = off)
P_SELECTIVE_COUP = P_START_COINS + MAXP
P_CONTESSA_TAX = P_SELECTIVE_COUP + 1  # Blocking Contessa
P_FACTIONS = P_CONTESSA_TAX + 1
P_HALVES_STEAL = P_FACTIONS + 1  # an Ambassador block reduces a Steal to 1 coin
P_BOUNTY = P_HALVES_STEAL + 1  # coins a challenger takes (0 off)
P_BUYOUT = P_BOUNTY + 1  # coins that buy off a lost challenge (0 off)
P_DECLINE_PROOF = P_BUYOUT + 1
P_EVENT_MAT = P_DECLINE_PROOF + 1  # number of event-mat cards (0 off): see event_cards()
P_MARKED = P_EVENT_MAT + 1  # the marked cards (Inheritance, Vengeance, Treaty)
P_TURN_HOOK = P_MARKED + 1  # derived: 1 when the event mat, marked cards or Selective Coup need work between turns
P_SIZE = P_TURN_HOOK + 1

SETUP_STANDARD, SETUP_SELECTION, PAYOFF_DRAW, PAYOFF_INFLUENCE = 0, 1, 0, 1

# ---- state ---------------------------------------------------------------------------------------
S_PHASE = 0  # the kind of node (PH_*)
S_ACTOR = 1  # seat whose turn it is (-1 during setup)
S_ACTION = 2  # the declared action's kind (ACTION_KIND; -1 none)
S_TARGET = 3  # its target seat
S_CURSOR = 4  # seat to decide in a round; seat being dealt to during setup
S_CHALLENGER = 5  # seat that challenged
S_BLOCKER = 6  # seat that blocked
S_BLOCK_CHAR = 7  # character claimed by the block
S_TURN = 8  # current turn, 1-based (0 during setup)
S_WINNER = 9  # winning seat once the game is over by elimination
S_LOSER = 10  # seat choosing which card to turn face up (PH_LOSE)
S_AFTER = 11  # what follows the pending loss or replacement draw (AFTER_*)
S_DRAWER = 12  # seat drawing a replacement card (PH_REPLACE)
S_START = 13  # starting seat (-1 until known)
S_COINS = 16  # + p: coins of seat p
S_HAND = S_COINS + MAXP  # + 5p + c: face-down copies of character c held by seat p
S_FACEUP = S_HAND + MAXP * NCH  # + 5p + c: face-up copies of c of seat p
S_DECK = S_FACEUP + MAXP * NCH  # + c: copies of c in the Court deck
S_OUT = S_DECK + NCH  # + c: card-selection setup: the players' sets, out of the game face down
S_POOL = S_OUT + NCH  # + c: the cards drawn by an Exchange, until the keep decision
S_NAMED = S_POOL + NCH  # Selective Coup: the character named by a Coup that hit (-1 none)
S_FACTIONS = S_NAMED + 1  # Factions: bit p set when seat p's marker is face down
S_EVENT = S_FACTIONS + 1  # + c: event-mat cards still face down (nobody knows them)
S_EVENT_UP = S_EVENT + NCH  # + c: event-mat cards flipped (public, out of play)
S_EVENT_DONE = S_EVENT_UP + NCH  # event mat: bits EV_* of the triggers already met
S_START_TURNS = S_EVENT_DONE + 1  # event mat: turns the starting player has begun
S_MARK = S_START_TURNS + 1  # + k: where marked card k is (LOC_*)
S_TREATY = S_MARK + 3  # 1 while the Foreign Aid's actor claims Treaty (its challenge round)
S_SAVED_ACTOR = S_TREATY + 1  # the turn's actor while a Vengeance owner acts (-1 none)
S_SIZE = S_SAVED_ACTOR + 1

# ---- marked cards ----------------------------------------------------------------------------------
INHERITANCE, VENGEANCE, TREATY = 0, 1, 2
MARK_CHAR = np.array([AMBASSADOR, ASSASSIN, CONTESSA], dtype=np.int32)
CHAR_MARK = np.array([-1, VENGEANCE, -1, INHERITANCE, TREATY], dtype=np.int32)  # character -> its marked card
MARK_NAMES = ("Inheritance", "Vengeance", "Treaty")
LOC_NONE = -1  # not in the game (a reduced deck without its character)
LOC_DECK = 0
LOC_HAND = 1  # + p: face down in seat p's hand
LOC_FACEUP = LOC_HAND + MAXP  # + p: face up, lost by seat p
LOC_POOL = LOC_FACEUP + MAXP  # drawn by an Exchange, before the keep decision
LOC_EVENT = LOC_POOL + 1  # face down on the event mat
LOC_EVENT_UP = LOC_EVENT + 1  # flipped on the event mat
INHERITANCE_COINS = 4

# ---- phases --------------------------------------------------------------------------------------
PH_START_SEAT = 0  # chance: the starting seat
PH_DEAL = 1  # chance, standard setup: two cards to S_CURSOR
PH_DEAL_ONE = 2  # chance, selection setup: one card from the third set to S_CURSOR
PH_REPLACE = 3  # chance: a proven claimant (S_DRAWER) draws a replacement
PH_EXCHANGE_DRAW = 4  # chance: the Exchange's two cards
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
# decisions announced to everyone as the decider's action token (the card choice, the Exchange keep and
# the proof are private or show only their outcome)
PUBLIC_DECISION = np.isin(np.arange(NUM_PHASES), (PH_TURN, PH_CHALLENGE, PH_BLOCK, PH_BLOCK_CHALLENGE, PH_LOSE,
                                                  PH_FACTION, PH_VENGEANCE))
PHASE_NAMES = ("start seat", "deal", "deal", "replacement draw", "exchange draw", "choose",
               "turn", "challenge action", "block", "challenge block", "lose influence",
               "exchange keep", "game over", "prove", "faction", "vengeance", "event deal", "event flip")

EV_SLOT1, EV_COIN, EV_SLOT3, EV_SLOT4, EV_SLOT5, EV_DEALT = 1, 2, 4, 8, 16, 32  # event-mat triggers met

# what follows a pending loss / replacement (S_AFTER); each *_FAILED follows its *_PROVEN
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

# ---- chance outcomes -----------------------------------------------------------------------------
CH_CARDS, CH_START = 0, NUM_MULTISETS
CH_FLIP = CH_START + MAXP  # 26 + c: 'Flip C', an event-mat card turned face up
CH_FLIP_MARKED = CH_FLIP + NCH  # 31 + k: 'Flip Ambassador (Inheritance)', ...
CH_MARKED = CH_FLIP_MARKED + 3  # 34 + 8 m + mask: a dealt/drawn multiset m holding the marked cards of mask
CH_EVENTS = CH_MARKED + 8 * NUM_MULTISETS  # 194 + 8 i + mask: the event-mat cards, multiset i of EV_MS
NUM_EVENT_MULTISETS = 5 + 15 + 35 + 70
NUM_CHANCE_OUTCOMES = CH_EVENTS + 8 * NUM_EVENT_MULTISETS  # 1194
MAX_MOVES = 512  # size of a buffer for the legal actions or chance outcomes of one node

# ---- observation codes ---------------------------------------------------------------------------
CODE_DEAL = 128  # + m: a dealt multiset
CODE_DRAW = CODE_DEAL + NUM_MULTISETS  # + m: a drawn multiset
CODE_START = CODE_DRAW + NUM_MULTISETS  # + s: the starting seat
CODE_HIDDEN_DEAL = CODE_START + MAXP  # + number of cards - 1
CODE_HIDDEN_DRAW = CODE_HIDDEN_DEAL + 2  # + number of cards - 1 (0 cards: CODE_HIDDEN_DRAW0)
CODE_HIDDEN_DRAW0 = CODE_HIDDEN_DRAW + 2
CODE_HIDDEN_CHOOSE = CODE_HIDDEN_DRAW0 + 1
CODE_HIDDEN_KEEP = CODE_HIDDEN_CHOOSE + 1
CODE_PROVED = CODE_HIDDEN_KEEP + 1  # a challenge's outcome
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

# ---- multiset tables -----------------------------------------------------------------------------
# code -> (first, second) card (-1 for a single); cards per code
MS_FIRST = np.array([c for c in range(NCH)] + [a for a in range(NCH) for b in range(a, NCH)], dtype=np.int32)
MS_SECOND = np.array([-1] * NCH + [b for a in range(NCH) for b in range(a, NCH)], dtype=np.int32)
MS_SIZE = np.where(MS_SECOND < 0, 1, 2).astype(np.int32)


def _multisets(size, start=0):
    """Every sorted tuple of ``size`` characters from ``start`` on, in lexicographic order."""
    if size == 0:
        return [()]
    return [(c,) + rest for c in range(start, NCH) for rest in _multisets(size - 1, c)]


# event-mat multisets: counts per character of every multiset of 1 to 4 cards, by size then lexicographic
EV_MS = np.array([np.bincount(m, minlength=NCH) for k in range(1, 5) for m in _multisets(k)], dtype=np.int32)
assert EV_MS.shape == (NUM_EVENT_MULTISETS, NCH)
EV_MS_SIZE = EV_MS.sum(axis=1).astype(np.int32)


def _keeps_marked():
    """(multiset, mask) of every Exchange keep that holds the marked cards of mask (mask > 0)."""
    out = []
    for m in range(NUM_MULTISETS):
        chars = [int(MS_FIRST[m])] + ([int(MS_SECOND[m])] if MS_SECOND[m] >= 0 else [])
        for mask in range(1, 8):
            need = [int(MARK_CHAR[b]) for b in range(3) if mask >> b & 1]
            if all(need.count(c) <= chars.count(c) for c in need):
                out.append((m, mask))
    return out


# Exchange keeps holding marked cards: KM_M[j] the multiset, KM_MASK[j] the marked cards among it
KM_M = np.array([m for m, _ in _keeps_marked()], dtype=np.int32)
KM_MASK = np.array([mask for _, mask in _keeps_marked()], dtype=np.int32)
assert len(KM_M) == NUM_KEEP_MARKED
KM_INDEX = np.full((NUM_MULTISETS, 8), -1, dtype=np.int32)
KM_INDEX[KM_M, KM_MASK] = np.arange(NUM_KEEP_MARKED)

# ---- declared-action kinds and claims (the one encoding: engine, OpenSpiel adapter, analysis) -------
KIND_NAMES = ("Income", "Foreign Aid", "Tax", "Exchange", "Coup", "Assassinate", "Steal")
TURN_KINDS = (ACT_INCOME, ACT_FOREIGN_AID, ACT_TAX, ACT_EXCHANGE, ACT_COUP, ACT_ASSASSINATE, ACT_STEAL)
# action id -> the kind it declares (-1: not a turn action); a Selective Coup declares a Coup, and the
# Vengeance pt are their own kind (ACT_VENGEANCE), a free Assassination
ACTION_KIND = np.full(NUM_ACTIONS, -1, dtype=np.int32)
ACTION_KIND[:ACT_COUP] = np.arange(ACT_COUP)
ACTION_KIND[ACT_COUP:ACT_ASSASSINATE] = ACT_COUP
ACTION_KIND[ACT_ASSASSINATE:ACT_STEAL] = ACT_ASSASSINATE
ACTION_KIND[ACT_STEAL:ACT_PASS] = ACT_STEAL
ACTION_KIND[ACT_SCOUP:ACT_DEFECT] = ACT_COUP
ACTION_KIND[ACT_VENGEANCE:ACT_LOSE_MARKED] = ACT_VENGEANCE
KIND_TARGETED = np.isin(np.arange(NUM_ACTIONS), (ACT_COUP, ACT_ASSASSINATE, ACT_STEAL, ACT_VENGEANCE))
# kind -> its place in KIND_NAMES (the observation tensor's one-hot; a Vengeance shows as Assassinate)
KIND_SLOT = np.full(NUM_ACTIONS, -1, dtype=np.int32)
KIND_SLOT[list(TURN_KINDS)] = np.arange(len(TURN_KINDS))
KIND_SLOT[ACT_VENGEANCE] = KIND_NAMES.index("Assassinate")

CLAIM_TAX, CLAIM_STEAL, CLAIM_ASSASSINATE, CLAIM_EXCHANGE = 0, 1, 2, 3
CLAIM_BLOCK_DUKE, CLAIM_BLOCK_CONTESSA, CLAIM_BLOCK_CAPTAIN, CLAIM_BLOCK_AMBASSADOR = 4, 5, 6, 7
CLAIM_TREATY = 8  # marked cards: the Treaty Contessa overrides a Duke's block of Foreign Aid
NUM_CLAIMS = 9
CLAIM_NAMES = ("Tax", "Steal", "Assassinate", "Exchange", "Block Duke", "Block Contessa", "Block Captain",
               "Block Ambassador", "Treaty")
# the character that proves each claim, and the marked card that alone proves it (-1: any copy)
CLAIM_CHAR = np.array([DUKE, CAPTAIN, ASSASSIN, AMBASSADOR, DUKE, CONTESSA, CAPTAIN, AMBASSADOR, CONTESSA],
                      dtype=np.int32)
CLAIM_MARK = np.array([-1] * 8 + [TREATY], dtype=np.int32)
# action id (or declared kind) -> the claim it makes (-1 none)
ACTION_CLAIM = np.full(NUM_ACTIONS, -1, dtype=np.int32)
ACTION_CLAIM[ACT_TAX] = CLAIM_TAX
ACTION_CLAIM[ACT_STEAL:ACT_PASS] = CLAIM_STEAL
ACTION_CLAIM[ACT_ASSASSINATE:ACT_STEAL] = CLAIM_ASSASSINATE
ACTION_CLAIM[ACT_EXCHANGE] = CLAIM_EXCHANGE
for _c, _claim in ((DUKE, CLAIM_BLOCK_DUKE), (CONTESSA, CLAIM_BLOCK_CONTESSA), (CAPTAIN, CLAIM_BLOCK_CAPTAIN),
                   (AMBASSADOR, CLAIM_BLOCK_AMBASSADOR)):
    ACTION_CLAIM[ACT_BLOCK + _c] = _claim
ACTION_CLAIM[ACT_TREATY] = CLAIM_TREATY
assert all(CLAIM_CHAR[ACTION_CLAIM[ACT_BLOCK + c]] == c for c in range(NCH) if ACTION_CLAIM[ACT_BLOCK + c] >= 0)

# ---- the packed node context (one 32-bit word per decision node, for the analysis) ------------------
# bits      field             meaning
# 0-3       CTX_PHASE         the phase (decisions are below 16)
# 4-7       CTX_CLAIM         the open claim + 1 (0 none): the Treaty while one is pending, else the
#                             block's once there is a block, else the declared action's
# 8         CTX_HOLDS         the claimant (the actor, or the blocker of a block claim) can prove it
# 9         CTX_ONE           the claimant has one influence
# 10-14     CTX_HAND          the deciding player's face-down characters (bit c set if they hold c)
# 15-16     CTX_INFL          the deciding player's influence
# 17        CTX_HOLDS_TREATY  the deciding player holds the Treaty Contessa face down
# 18-31     CTX_TURN          the turn (up to 16383; Rules allows 10000)
# The word fills 32 bits: store it as CTX_DTYPE (an int32 array holds the same bits, negative from
# turn 8192 on, and context_field in coupsolve.engine.context still reads every field right).
CTX_DTYPE = np.uint32
CTX_PHASE, CTX_CLAIM, CTX_HOLDS, CTX_ONE, CTX_HAND = 0, 4, 8, 9, 10
CTX_INFL, CTX_HOLDS_TREATY, CTX_TURN = 15, 17, 18
CTX_BITS = np.zeros(32, dtype=np.int64)  # field width by its first bit
for _shift, _bits in ((CTX_PHASE, 4), (CTX_CLAIM, 4), (CTX_HOLDS, 1), (CTX_ONE, 1), (CTX_HAND, NCH),
                      (CTX_INFL, 2), (CTX_HOLDS_TREATY, 1), (CTX_TURN, 14)):
    CTX_BITS[_shift] = _bits
assert CTX_TURN + CTX_BITS[CTX_TURN] == 32 and 10_000 < 1 << CTX_BITS[CTX_TURN]


def event_cards(players: int) -> int:
    """Event-mat cards dealt face down for ``players`` seats: slots 1, 3, 4 and 5 hold a card (slot 2
    holds the coin); slots 3 and 4 are in use with four or fewer players, slot 5 with three or fewer."""
    return 1 if players >= 5 else (3 if players == 4 else 4)


# ---- bounds: buffer sizes for whole games ------------------------------------------------------------
def max_steps_per_turn(players: int) -> int:
    """An upper bound on the actions and chance events of one turn of the base game.

    The longest turn is a challenged Assassination: declare (1), a challenge round (players - 1),
    the challenger's loss and the actor's replacement (2), the target's block (1), a challenge round on
    the block (players - 1), the loss of a challenge and a replacement, or the blocker's loss and then
    the assassination's loss (2).
    """
    return 2 * players + 4


def max_game_length(players: int, setup: int, turn_limit: int, random_start: bool,
                    extra_setup: int = 0, extra_per_turn: int = 0) -> int:
    """An upper bound on the steps of a whole game: setup steps, then ``turn_limit`` turns."""
    setup_steps = (4 if setup == SETUP_SELECTION else players) + (1 if random_start else 0) + extra_setup
    return setup_steps + turn_limit * (max_steps_per_turn(players) + extra_per_turn)


def max_events(players: int, setup: int, turn_limit: int, random_start: bool,
               extra_setup: int = 0, extra_per_turn: int = 0) -> int:
    """Upper bound on the events of a whole game: one per step, plus a challenge outcome per round."""
    return (max_game_length(players, setup, turn_limit, random_start, extra_setup, extra_per_turn)
            + (2 + extra_per_turn) * turn_limit)


def variant_extra_steps(P) -> tuple[int, int]:
    """(extra setup steps, extra steps per turn) that the variants switched on in ``P`` may add.

    ``P`` is the parameter vector (``int32[P_SIZE]`` or a tuple). Generous bounds: Blocking Contessa
    gives Tax a block round of every other player; declining a proof adds a decision to each of the two
    challenges of a turn; Factions adds one choice per seat.
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
    """(max game length, max events) for the parameter vector ``P`` (``int32[P_SIZE]`` or a tuple)."""
    extra_setup, extra_turn = variant_extra_steps(P)
    args = (int(P[P_PLAYERS]), int(P[P_SETUP]), int(P[P_TURN_LIMIT]), int(P[P_START_SEAT]) < 0,
            extra_setup, extra_turn)
    return max_game_length(*args), max_events(*args)
