"""Hypothesis property tests of the engine over random rules and random legal play."""

import numpy as np
from hypothesis import given, settings, strategies as st

from coupsolve import CHARACTERS, Rules
from coupsolve import engine as E
from coupsolve.engine import event_cards
from coup_helpers import random_engine_game


@st.composite
def rules_strategy(draw):
    players = draw(st.integers(2, 6))
    setup = "selection" if players == 2 and draw(st.booleans()) else "standard"
    chars = draw(st.lists(st.sampled_from(CHARACTERS), min_size=2, max_size=5, unique=True))
    copies = 3 if setup == "selection" else draw(st.integers(1, 4))
    if setup == "standard" and copies * len(chars) < 2 * players:
        copies = -(-2 * players // len(chars))
    coins = draw(st.none() | st.lists(st.integers(0, 12), min_size=1, max_size=players))
    variants = {name: draw(st.booleans()) for name in VARIANT_FLAGS}
    variants["challenge_bounty"] = draw(st.sampled_from([0, 0, 1, 2]))
    variants["challenge_buyout"] = draw(st.sampled_from([0, 0, 1, 5]))
    if setup == "standard" and draw(st.booleans()):
        variants["event_mat"] = True
        cards = 2 * players + event_cards(players)
        copies = max(copies, -(-cards // len(chars)))
    return Rules(players=players, setup=setup, characters=tuple(chars), copies=copies,
                 turn_limit=draw(st.integers(1, 40)),
                 limit_payoff=draw(st.sampled_from(["draw", "influence"])),
                 starting_seat=draw(st.sampled_from(["random"] + list(range(players)))),
                 starting_coins=None if coins is None else tuple(coins), **variants)


# the variants drawn at random (each on or off) along with the bounty and the buyout
VARIANT_FLAGS = ("selective_coup", "contessa_blocks_tax", "factions", "ambassador_halves_steal",
                 "decline_proof", "marked_cards")


def _check_marks(s, rules):
    """Each marked card is one copy of its character at the place its location names."""
    n = rules.players
    for k in range(3):
        c = int(E.MARK_CHAR[k])
        loc = s[E.S_MARK + k]
        if not rules.marked_cards or CHARACTERS[c] not in rules.characters:
            assert loc == E.LOC_NONE
            continue
        if loc == E.LOC_DECK:
            assert s[E.S_DECK + c] >= 1
        elif E.LOC_HAND <= loc < E.LOC_HAND + n:
            assert s[E.S_HAND + E.NCH * (loc - E.LOC_HAND) + c] >= 1
        elif E.LOC_FACEUP <= loc < E.LOC_FACEUP + n:
            assert s[E.S_FACEUP + E.NCH * (loc - E.LOC_FACEUP) + c] >= 1
        elif loc == E.LOC_POOL:
            assert s[E.S_POOL + c] >= 1
        elif loc == E.LOC_EVENT:
            assert s[E.S_EVENT + c] >= 1
        else:
            assert loc == E.LOC_EVENT_UP and s[E.S_EVENT_UP + c] >= 1


def _cards(s, players):
    total = s[E.S_DECK:E.S_DECK + E.NCH] + s[E.S_OUT:E.S_OUT + E.NCH] + s[E.S_POOL:E.S_POOL + E.NCH]
    total = total + s[E.S_EVENT:E.S_EVENT + E.NCH] + s[E.S_EVENT_UP:E.S_EVENT_UP + E.NCH]
    for p in range(players):
        total = total + s[E.S_HAND + E.NCH * p:E.S_HAND + E.NCH * (p + 1)]
        total = total + s[E.S_FACEUP + E.NCH * p:E.S_FACEUP + E.NCH * (p + 1)]
    return total


@settings(max_examples=150, deadline=None)
@given(rules=rules_strategy(), seed=st.integers(0, 2**32 - 1))
def test_random_play_keeps_every_invariant(rules, seed):
    n = rules.players
    P = rules.params()
    expected_cards = np.array([rules.copies if c in rules.characters else 0 for c in CHARACTERS])
    limit = E.game_bounds(P)[0]
    coup, assassinate = rules.coup_cost, rules.assassinate_cost
    bounty, buyout = rules.challenge_bounty, rules.challenge_buyout
    # what one step (with the forced steps after it) may add to the players' coins: one base flow
    # (Income, Foreign Aid, Tax, a paid cost, a refunded Assassinate; Defect's coin with Factions),
    # plus a challenger's bounty, minus a buyout
    base = {0, 1, 2, 3, -coup, -assassinate, assassinate} | ({-1} if rules.factions else set())
    # and the event mat's coin, given at the start of the first player's second turn
    mat = {0, 1} if rules.event_mat else {0}
    # and the Inheritance's 4 coins to its owner when it is killed
    heir = {0, E.INHERITANCE_COINS} if rules.marked_cards else {0}
    allowed = {f + b - x + m + h for f in base for b in {0, bounty} for x in {0, buyout} for m in mat
               for h in heir}

    def check(before, action, legal, after, events):
        # legal actions: sorted, unique, and the one applied among them
        assert np.all(np.diff(legal) > 0)
        assert action in legal
        # cards: all accounted for, never negative
        assert np.array_equal(_cards(after, n), expected_cards)
        assert after[E.S_DECK:E.S_POOL + E.NCH].min() >= 0 and after[E.S_HAND:E.S_DECK].min() >= 0
        assert after[E.S_EVENT:E.S_EVENT_UP + E.NCH].min() >= 0
        _check_marks(after, rules)
        # coins: never negative; only the actor gains; a step moves at most one payment
        cb, ca = before[E.S_COINS:E.S_COINS + n], after[E.S_COINS:E.S_COINS + n]
        assert ca.min() >= 0
        actor = before[E.S_ACTOR]
        # a challenger takes the bounty: the only other player who may gain coins
        gainers = {actor, E.current_player(before) if bounty and action == E.ACT_CHALLENGE else actor}
        if rules.event_mat and after[E.S_TURN] > before[E.S_TURN]:
            gainers.add(after[E.S_ACTOR])  # the event mat's coin, at the start of a turn
        inherit = after[E.S_MARK + E.INHERITANCE]
        if inherit != before[E.S_MARK + E.INHERITANCE] and E.LOC_FACEUP <= inherit < E.LOC_FACEUP + n:
            gainers.add(inherit - E.LOC_FACEUP)  # the Inheritance was turned face up
        infl = lambda s, p: s[E.S_HAND + E.NCH * p:E.S_HAND + E.NCH * (p + 1)].sum()  # noqa: E731
        started = before[E.S_TURN] > 0  # during setup nobody holds cards yet
        turn_over = after[E.S_TURN] > before[E.S_TURN] or E.is_terminal(after)
        for p in range(n):
            if started and turn_over and infl(after, p) == 0:
                assert ca[p] == 0  # out: coins back to the Treasury once the action is over
            elif started and p not in gainers:
                assert ca[p] <= cb[p]
        removed = sum(cb[p] for p in range(n) if started and infl(after, p) == 0 and ca[p] == 0)
        flow = int(ca.sum() - cb.sum() + removed)
        assert flow in allowed or not started, (flow, removed)
        # whoever decides next still has influence
        who = E.current_player(after)
        if who >= 0 and after[E.S_TURN] > 0:
            assert infl(after, who) > 0
        # turns: never beyond the limit
        assert after[E.S_TURN] <= rules.turn_limit
        assert 1 <= len(events) <= E.MAX_EVENTS_PER_STEP

    steps, final = random_engine_game(rules, seed, check)
    assert steps <= limit
    out = np.zeros(E.MAXP)
    E.returns(P, final, out)
    assert abs(out[:n].sum()) < 1e-12
    assert np.all(out[n:] == 0)
    living = [p for p in range(n) if final[E.S_HAND + E.NCH * p:E.S_HAND + E.NCH * (p + 1)].sum() > 0]
    if len(living) == 1:
        assert out[living[0]] == 1.0
    else:
        assert final[E.S_TURN] == rules.turn_limit


@settings(max_examples=60, deadline=None)
@given(rules=rules_strategy(), seed=st.integers(0, 2**32 - 1))
def test_chance_outcomes_are_distributions(rules, seed):
    P = rules.params()
    buf = np.zeros(E.MAX_MOVES, dtype=np.int32)
    prob = np.zeros(E.MAX_MOVES)

    def check(before, action, legal, after, events):
        if E.is_chance(after):
            k = E.chance_outcomes(P, after, buf, prob)
            assert k >= 2  # single outcomes are applied without a chance node
            assert np.all(np.diff(buf[:k]) > 0)
            assert abs(prob[:k].sum() - 1.0) < 1e-12 and prob[:k].min() > 0

    random_engine_game(rules, seed, check)
