"""Restricted public trees (solvers.trees.restricted): a player held to a model with some probability
at each information set, the game a data-biased response solves (Johanson and Bowling, AISTATS 2009).

Checked on Kuhn and Leduc poker against what is known without the restriction code: weight 0 is the
plain solve, iterate for iterate; weight 1 on a player makes the other's strategy a best response to
the model, whose value OpenSpiel's own best response gives; between the two the restricted player's
strategy holds at least the model's share, and the other player's value lies between the game's
value and that best response's."""

import numpy as np
import pyspiel
import pytest
from hypothesis import given, settings, strategies as st
from open_spiel.python.algorithms import expected_game_score, exploitability as os_exploitability

import solvers
from solvers import GameTree, PublicTree
from solvers.trees.derive import openspiel_labels
from solvers.trees.restricted import RestrictedTree

_TREES = {}


def tree(name):
    if name not in _TREES:
        game = pyspiel.load_game(name)
        _TREES[name] = (game, PublicTree.from_game_tree(GameTree.from_openspiel(game), openspiel_labels(game)))
    return _TREES[name]


def random_model(t, seed):
    """A strategy at every information set of ``t``, each action's probability drawn at random."""
    rng = np.random.default_rng(seed)
    x = rng.gamma(0.7, size=t.num_actions) + 1e-3
    return x / np.repeat(np.add.reduceat(x, t.infoset_offset), t.infoset_num_actions)


def player_weights(t, player, w):
    return np.where(np.asarray(t.flat.infoset_player) == player, float(w), 0.0)


def value0(result):
    return float(np.asarray(result.game_value).ravel()[0])


@pytest.mark.parametrize("algorithm", ["cfr+", "dcfr"])
@pytest.mark.parametrize("name", ["kuhn_poker", "leduc_poker"])
def test_no_weight_is_the_plain_solve(name, algorithm):
    _, t = tree(name)
    plain = solvers.solve(t, algorithm=algorithm, iterations=60, progress=False)
    held = solvers.solve(RestrictedTree(t, np.zeros(t.num_infosets), random_model(t, 1)), algorithm=algorithm,
                         iterations=60, progress=False)
    np.testing.assert_array_equal(held.average_policy, plain.average_policy)
    np.testing.assert_array_equal(held.current_policy, plain.current_policy)


@pytest.mark.parametrize("name", ["kuhn_poker", "leduc_poker"])
@given(seed=st.integers(0, 2**31 - 1))
@settings(max_examples=3, deadline=None)
def test_full_weight_makes_the_other_a_best_response_to_the_model(name, seed):
    game, t = tree(name)
    model = random_model(t, seed)
    result = solvers.solve(RestrictedTree(t, player_weights(t, 1, 1.0), model), algorithm="cfr+",
                           iterations=1500, progress=False)
    mine = np.asarray(t.flat.infoset_player) == 1
    slots = np.repeat(mine, t.infoset_num_actions)
    np.testing.assert_allclose(result.average_policy[slots], model[slots], atol=1e-12)
    # OpenSpiel's best response of player 0 to the model: what player 0's average must come to
    theirs = os_exploitability.best_response(game, solvers.to_openspiel_policy(t, model, game), 0)
    mixed = solvers.to_openspiel_policy(t, result.average_policy, game)
    got = expected_game_score.policy_value(game.new_initial_state(), [mixed, mixed])[0]
    assert got == pytest.approx(theirs["best_response_value"], abs=5e-3)
    assert value0(result) == pytest.approx(got, abs=1e-9)


@pytest.mark.parametrize("name", ["kuhn_poker", "leduc_poker"])
@given(seed=st.integers(0, 2**31 - 1), w=st.floats(0.1, 0.9))
@settings(max_examples=3, deadline=None)
def test_a_partial_weight_keeps_the_models_share_and_a_value_between(name, seed, w):
    _, t = tree(name)
    model = random_model(t, seed)
    runs = {x: solvers.solve(RestrictedTree(t, player_weights(t, 1, x), model), algorithm="cfr+",
                             iterations=1500, progress=False) for x in (0.0, w, 1.0)}
    mine = np.repeat(np.asarray(t.flat.infoset_player) == 1, t.infoset_num_actions)
    assert np.all(runs[w].average_policy[mine] >= w * model[mine] - 1e-9)
    low, mid, high = (value0(runs[x]) for x in (0.0, w, 1.0))
    assert low - 5e-3 <= mid <= high + 5e-3
    assert high > low + 1e-2  # a random model is worth exploiting


def test_the_predictive_variants_and_mmd_refuse_a_restricted_tree():
    _, t = tree("kuhn_poker")
    held = RestrictedTree(t, player_weights(t, 1, 0.5), random_model(t, 0))
    with pytest.raises(ValueError, match="pcfr"):
        solvers.solve(held, algorithm="pcfr+", iterations=2, progress=False)
    with pytest.raises(TypeError):
        solvers.solve(held, algorithm="mmd", iterations=2, progress=False)


@pytest.mark.parametrize("weight, model, message", [
    (lambda t: np.zeros(t.num_infosets + 1), lambda t: np.ones(t.num_actions), "weights"),
    (lambda t: np.full(t.num_infosets, 1.5), lambda t: random_model(t, 0), r"\[0, 1\]"),
    (lambda t: np.ones(t.num_infosets), lambda t: np.ones(t.num_actions), "sums to"),
])
def test_a_restriction_that_does_not_fit_is_refused_in_one_line(weight, model, message):
    _, t = tree("kuhn_poker")
    with pytest.raises(ValueError, match=message) as caught:
        RestrictedTree(t, weight(t), model(t))
    assert "\n" not in str(caught.value)
