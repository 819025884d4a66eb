"""The game narration (coupsolve.openspiel.narrate): each "-- turn N" marker comes after the step that
ended the turn before (it came one step early, before that step's own events), and every coin that
moves is told, so the told purses add up to the state's (they were never told; issue 48)."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from coupsolve import Rules, load_game
from coupsolve.openspiel.narrate import Narrator


def _play(rules, seed):
    """Yield ``(state's turn before the step, lines, coins before, coins after)`` for a random game."""
    game = load_game(rules)
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    narrator = Narrator(rules)
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            action = int(rng.choice(outcomes, p=probs))
        else:
            action = int(rng.choice(state.legal_actions()))
        turn, coins = state.turn, state.coins
        lines = narrator.apply(state, action)
        yield turn, state.turn, lines, coins, state.coins


RULES = [Rules.two_player_selection(turn_limit=6), Rules.standard(players=3, turn_limit=12),
         Rules.standard(players=2, turn_limit=100)]


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(RULES), st.integers(0, 2**32 - 1))
def test_turn_markers_follow_the_step_that_ended_the_turn(rules, seed):
    for before, after, lines, _, _ in _play(rules, seed):
        markers = [i for i, line in enumerate(lines) if line.startswith("-- turn")]
        if after != before and after > 0:
            assert markers == [len(lines) - 1], lines  # last: after the step's own events
            assert lines[-1] == f"-- turn {after} of {rules.turn_limit}"
        else:
            assert markers == [], lines


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(RULES), st.integers(0, 2**32 - 1))
def test_every_coin_that_moves_is_told(rules, seed):
    for _, _, lines, purse, coins in _play(rules, seed):
        told = {}
        for line in lines:
            words = line.split()
            if len(words) == 5 and words[1] in ("gains", "pays") and words[3].startswith("coin"):
                p = int(words[0][1:])
                told[p] = (int(words[2]) * (1 if words[1] == "gains" else -1), int(words[4]))
        assert told == {p: (coins[p] - purse[p], coins[p]) for p in range(len(coins))
                        if coins[p] != purse[p]}, lines


@pytest.mark.parametrize("seed", [0, 1])
def test_a_log_tells_some_coins(seed):
    lines = [line for _, _, ls, _, _ in _play(Rules.standard(players=2, turn_limit=100), seed) for line in ls]
    assert any(" gains " in line and " coin" in line for line in lines)
