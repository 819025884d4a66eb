"""Control variates for head-to-head play (coupsolve.evaluation.aivat): unbiased for any value function,
exactly; a fitted one never adds much variance and removes some; duplicate deals cancel the deal."""

import zlib

import numpy as np
import pyspiel
import pytest
from hypothesis import given, settings, strategies as st
from open_spiel.python import policy as os_policy

import coupsolve
from coupsolve.evaluation.aivat import LinearValue, coup_features, fit_value
from coupsolve.evaluation.arena import correction, play
from coupsolve.openspiel.bots import HonestBot, RandomBot


class _Skewed(os_policy.Policy):
    """A fixed mixed policy of any game: legal action k weighted 1 + (k + salt) % 3."""

    def __init__(self, game, salt):
        super().__init__(game, list(range(game.num_players())))
        self.salt = salt

    def action_probabilities(self, state, player_id=None):
        legal = state.legal_actions()
        w = np.array([1.0 + (k + self.salt) % 3 for k in range(len(legal))])
        return dict(zip(legal, w / w.sum()))


def _arbitrary_value(salt):
    """A value function unrelated to the game: a number per seat from a hash of the history."""
    def value(state):
        h = zlib.crc32(f"{salt}:{state.history_str()}".encode())
        return np.array([(h % 1000) / 250.0 - 2.0, ((h >> 10) % 1000) / 250.0 - 2.0])
    return value


def _expectations(state, policies, value, prob=1.0):
    """Exact ``(E[returns], E[returns - corrections])`` over every play of ``state``'s game."""
    if state.is_terminal():
        r = np.asarray(state.returns())
        return prob * r, prob * r
    if state.is_chance_node():
        actions, probs = zip(*state.chance_outcomes())
    else:
        dist = policies[state.current_player()].action_probabilities(state)
        actions, probs = tuple(dist), tuple(dist.values())
    plain, adjusted = 0.0, 0.0
    for a, p in zip(actions, probs):
        child = state.clone()
        child.apply_action(a)
        c = correction(state, actions, probs, a, value)
        sub_plain, sub_adj = _expectations(child, policies, value, prob * p)
        plain, adjusted = plain + sub_plain, adjusted + sub_adj - prob * p * c
    return plain, adjusted


@settings(max_examples=15, deadline=None)
@given(salt=st.integers(0, 10_000), game_name=st.sampled_from(["kuhn_poker", "leduc_poker"]))
def test_the_corrected_payoff_has_exactly_the_plain_expectation_for_any_value_function(salt, game_name):
    game = pyspiel.load_game(game_name)
    policies = [_Skewed(game, salt), _Skewed(game, salt + 1)]
    plain, adjusted = _expectations(game.new_initial_state(), policies, _arbitrary_value(salt))
    assert np.allclose(plain, adjusted, atol=1e-12)


def test_a_correction_is_zero_where_the_draw_is_certain_and_terminal_values_are_the_returns():
    game = pyspiel.load_game("kuhn_poker")
    state = game.new_initial_state()
    value = _arbitrary_value(3)
    assert np.allclose(correction(state, [0], [1.0], 0, value), 0.0)
    coup = coupsolve.load_game(coupsolve.Rules.two_player_selection(turn_limit=1))
    end = coup.new_initial_state()
    while not end.is_terminal():
        end.apply_action(end.chance_outcomes()[0][0] if end.is_chance_node() else end.legal_actions()[0])
    v = LinearValue(np.ones(6), scale=0.5)
    assert np.allclose(v(end), 0.5 * np.asarray(end.returns()))


def test_coup_values_sum_to_zero_over_the_seats():
    game = coupsolve.load_game(coupsolve.Rules.standard(players=3, turn_limit=4))
    v = LinearValue(np.arange(1.0, 7.0))
    state, rng = game.new_initial_state(), np.random.default_rng(0)
    while not state.is_terminal():
        if not state.is_chance_node():
            assert coup_features(state).shape == (3, 6)
            assert abs(v(state).sum()) < 1e-12
        actions = [a for a, _ in state.chance_outcomes()] if state.is_chance_node() else state.legal_actions()
        state.apply_action(int(rng.choice(actions)))


@pytest.fixture(scope="module")
def full_length():
    return coupsolve.load_game(coupsolve.Rules.two_player_selection(turn_limit=100))


def test_a_fitted_value_reduces_the_variance_of_random_play_and_keeps_its_mean(full_length):
    rand = RandomBot(full_length)
    value = fit_value(full_length, [rand, rand], 100, seed=11)
    assert 0.0 < value.scale < 2.0
    res = play(full_length, [rand, rand], 400, seed=1, value=value)
    assert res.variance_reduction[0] > 1.1
    low, high = res.interval("0")
    a_low, a_high = res.interval("0", adjusted=True)
    assert max(low, a_low) <= min(high, a_high)  # the two estimates' intervals meet
    assert np.allclose(res.adjusted.sum(axis=1), 0.0) and np.allclose(res.payoffs.sum(axis=1), 0.0)


def test_a_value_that_explains_nothing_is_scaled_away(full_length):
    """Honest play beats random play almost every game: the fitted features explain nothing of that,
    and the fitted scale leaves the estimate as it was."""
    honest, rand = HonestBot(full_length), RandomBot(full_length)
    value = fit_value(full_length, [honest, rand], 200, seed=12)
    res = play(full_length, [honest, rand], 200, seed=2, value=value)
    assert abs(value.scale) < 0.15 and 0.8 < res.variance_reduction[0] < 1.25


def test_duplicate_deals_cancel_the_deal_for_a_policy_against_itself(full_length):
    """The same deterministic policy in both seats: each deal's two games are mirror images, so every
    deal's mean is exactly 0 and the interval has width 0."""
    honest = HonestBot(full_length)
    res = play(full_length, [honest, honest], 40, seed=3)
    assert res.deals == 20 and res.half_width[0] == 0.0 and res.mean[0] == 0.0
    assert np.any(res.payoffs[:, 0] != 0)  # the games themselves were won and lost


def test_a_stand_in_plays_the_pilot_games_and_the_policy_only_the_matched_ones(full_length):
    """``match(..., pilot_policy=)``: the (costly) policy is asked only at the matched games' decisions,
    as many times as in a match without pilots, and the fitted value still gives a reduced estimate."""
    from coupsolve.evaluation.aivat import match

    class Counting(os_policy.Policy):
        def __init__(self, inner):
            super().__init__(full_length, [0, 1])
            self.inner, self.calls = inner, 0

        def action_probabilities(self, state, player_id=None):
            self.calls += 1
            return self.inner.action_probabilities(state)

    honest, rand = HonestBot(full_length), RandomBot(full_length)
    plain, stood = Counting(rand), Counting(rand)
    match(full_length, plain, honest, 20, seed=4, pilot=0)
    res = match(full_length, stood, honest, 20, seed=4, pilot=30, pilot_policy=rand)
    assert stood.calls == plain.calls > 0 and res.adjusted_mean is not None
    assert np.allclose(res.payoffs, match(full_length, rand, honest, 20, seed=4, pilot=0).payoffs)
