"""The packed node context: every field reads back, the turn past 255 included, from int32 storage too."""

import numpy as np
import pytest

from coupsolve import Rules
from coupsolve import engine as E
from coupsolve.analysis.history import _accumulate
from coupsolve.engine.context import context_field
from coup_helpers import random_engine_game


def _first_turn(rules):
    """The engine state at the first turn of ``rules`` (the first outcome of every chance node)."""
    P = rules.params()
    s = np.zeros(E.S_SIZE, dtype=np.int32)
    ev = np.zeros((E.MAX_EVENTS_PER_STEP, 3), dtype=np.int32)
    buf = np.zeros(E.MAX_MOVES, dtype=np.int32)
    prob = np.zeros(E.MAX_MOVES, dtype=np.float64)
    E.initial_state(P, s, ev, buf, prob)
    while s[E.S_PHASE] != E.PH_TURN:
        k = E.chance_outcomes(P, s, buf, prob) if E.is_chance(s) else E.legal_actions(P, s, buf)
        E.apply(P, s, int(buf[k - 1]), ev, 0, buf, prob)
    return P, s


@pytest.mark.parametrize("turn", [1, 255, 256, 300, 8191, 8192, 10_000])
def test_the_turn_reads_back_past_255(turn):
    _, s = _first_turn(Rules.standard(turn_limit=10_000))
    s[E.S_TURN] = turn
    ctx = E.node_context(s)
    stored = np.array([ctx], dtype=E.CTX_DTYPE).view(np.int32)  # in an int32 array the top bit is the sign
    assert context_field(ctx, E.CTX_TURN) == turn
    assert context_field(stored, E.CTX_TURN)[0] == turn and context_field(int(stored[0]), E.CTX_TURN) == turn
    assert context_field(stored, E.CTX_PHASE)[0] == E.PH_TURN


def test_the_analysis_counts_turns_past_255_apart():
    _, s = _first_turn(Rules.standard(turn_limit=10_000))
    turns = (255, 256, 300, 9_999)
    context = np.zeros(len(turns), dtype=E.CTX_DTYPE)
    for i, t in enumerate(turns):
        s[E.S_TURN] = t
        context[i] = E.node_context(s)
    n = len(turns)
    acc = np.zeros((10_001, 2, E.NUM_CLAIMS, 4))
    # one decision node per turn, each its own information set with the single action Tax
    _accumulate(np.zeros(n, np.int8), np.arange(n), context, np.arange(n), np.ones(n, np.int64),
                np.full(n, E.ACT_TAX, np.int32), np.ones(n), np.ones(n), acc)
    made = acc[:, :, E.CLAIM_TAX, 0].sum(axis=1)
    assert [made[t] for t in turns] == [1.0] * n and made.sum() == n


@pytest.mark.parametrize("rules", [Rules.standard(players=3, turn_limit=30),
                                   Rules.house(turn_limit=30), Rules.standard(turn_limit=30, selective_coup=True)])
def test_every_field_reads_back(rules):
    seen = set()

    def check(before, action, legal, after, events):
        if E.is_chance(before):
            return
        ctx = E.node_context(before)
        p = E.current_player(before)
        hand = before[E.S_HAND + E.NCH * p:E.S_HAND + E.NCH * (p + 1)]
        assert context_field(ctx, E.CTX_PHASE) == before[E.S_PHASE]
        assert context_field(ctx, E.CTX_TURN) == before[E.S_TURN]
        assert context_field(ctx, E.CTX_HAND) == sum(1 << c for c in range(E.NCH) if hand[c] > 0)
        assert context_field(ctx, E.CTX_INFL) == hand.sum()
        claim = context_field(ctx, E.CTX_CLAIM) - 1
        if before[E.S_PHASE] == E.PH_BLOCK_CHALLENGE:
            assert E.CLAIM_CHAR[claim] == before[E.S_BLOCK_CHAR]
            claimant = before[E.S_BLOCKER]
            proves = before[E.S_HAND + E.NCH * claimant + before[E.S_BLOCK_CHAR]] > 0
            assert context_field(ctx, E.CTX_HOLDS) == proves
        if before[E.S_PHASE] == E.PH_CHALLENGE and not before[E.S_TREATY]:
            assert claim == E.ACTION_CLAIM[before[E.S_ACTION]] >= 0
        seen.add(int(before[E.S_PHASE]))

    for seed in range(4):
        random_engine_game(rules, seed, on_step=check)
    assert {E.PH_TURN, E.PH_CHALLENGE, E.PH_LOSE} <= seen
