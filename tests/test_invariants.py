"""Hypothesis property tests of the engine over random rules and random legal play."""

import numpy as np
from hypothesis import given, settings, strategies as st

from coupsolve import CHARACTERS, Rules
from coupsolve import engine as E
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
    return Rules(players=players, setup=setup, characters=tuple(chars), copies=copies,
                 turn_limit=draw(st.integers(1, 40)),
                 limit_payoff=draw(st.sampled_from(["draw", "influence"])),
                 starting_seat=draw(st.sampled_from(["random"] + list(range(players)))),
                 starting_coins=None if coins is None else tuple(coins))


def _cards(s, players):
    total = s[E.S_DECK:E.S_DECK + E.NCH] + s[E.S_OUT:E.S_OUT + E.NCH] + s[E.S_POOL:E.S_POOL + E.NCH]
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
    limit = E.max_game_length(n, int(P[E.P_SETUP]), rules.turn_limit, rules.starting_seat == "random")
    coup, assassinate = rules.coup_cost, rules.assassinate_cost

    def check(before, action, legal, after, events):
        # legal actions: sorted, unique, and the one applied among them
        assert np.all(np.diff(legal) > 0)
        assert action in legal
        # cards: all accounted for, never negative
        assert np.array_equal(_cards(after, n), expected_cards)
        assert after[E.S_DECK:].min() >= 0 and after[E.S_HAND:E.S_DECK].min() >= 0
        # coins: never negative; only the actor gains; a step moves at most one payment
        cb, ca = before[E.S_COINS:E.S_COINS + n], after[E.S_COINS:E.S_COINS + n]
        assert ca.min() >= 0
        actor = before[E.S_ACTOR]
        infl = lambda s, p: s[E.S_HAND + E.NCH * p:E.S_HAND + E.NCH * (p + 1)].sum()  # noqa: E731
        started = before[E.S_TURN] > 0  # during setup nobody holds cards yet
        turn_over = after[E.S_TURN] > before[E.S_TURN] or E.is_terminal(after)
        for p in range(n):
            if started and turn_over and infl(after, p) == 0:
                assert ca[p] == 0  # out: coins back to the Treasury once the action is over
            elif started and p != actor:
                assert ca[p] <= cb[p]
        removed = sum(cb[p] for p in range(n) if started and infl(after, p) == 0 and ca[p] == 0)
        flow = int(ca.sum() - cb.sum() + removed)
        allowed = {0, 1, 2, 3, -coup, -assassinate, assassinate}
        assert flow in allowed or not started, (flow, removed)
        # whoever decides next still has influence
        who = E.current_player(after)
        if who >= 0 and after[E.S_TURN] > 0:
            assert infl(after, who) > 0
        # turns: never beyond the limit
        assert after[E.S_TURN] <= rules.turn_limit
        assert len(events) >= 1

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
    buf = np.zeros(64, dtype=np.int32)
    prob = np.zeros(64)

    def check(before, action, legal, after, events):
        if E.is_chance(after):
            k = E.chance_outcomes(P, after, buf, prob)
            assert k >= 2  # single outcomes are applied without a chance node
            assert np.all(np.diff(buf[:k]) > 0)
            assert abs(prob[:k].sum() - 1.0) < 1e-12 and prob[:k].min() > 0

    random_engine_game(rules, seed, check)
