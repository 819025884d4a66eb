"""Best response, NashConv, exploitability and values against OpenSpiel."""

import numpy as np
import pytest
from open_spiel.python.algorithms import exploitability as os_exploitability
from open_spiel.python.algorithms import expected_game_score

import solvers
from solvers import to_openspiel_policy


def random_policy(tree, seed, zeros=True):
    """A random flat policy, with some exact zeros to exercise pruning."""
    rng = np.random.default_rng(seed)
    weights = rng.random(tree.num_actions) ** 2
    if zeros:
        weights[rng.random(tree.num_actions) < 0.3] = 0.0
        weights[tree.infoset_offset] += 1e-3  # keep every infoset's sum positive
    sums = np.add.reduceat(weights, tree.infoset_offset)
    return weights / np.repeat(sums, tree.infoset_num_actions)


def _policies(tree):
    yield tree.uniform_policy()
    yield random_policy(tree, 1)
    yield random_policy(tree, 2, zeros=False)
    yield solvers.solve(tree, "cfr+", iterations=30, progress=False).average_policy


@pytest.mark.parametrize("name", ["kuhn", "leduc"])
def test_exploitability_equals_openspiel(name, request):
    game, tree = request.getfixturevalue(name)
    for policy in _policies(tree):
        tabular = to_openspiel_policy(tree, policy, game)
        expected = os_exploitability.exploitability(game, tabular)
        assert abs(solvers.exploitability(tree, policy) - expected) <= 1e-9
        assert solvers.nash_conv(tree, policy) == pytest.approx(2 * expected, abs=2e-9)


def test_nash_conv_and_values_equal_openspiel_python(kuhn):
    game, tree = kuhn
    policy = random_policy(tree, 3)
    tabular = to_openspiel_policy(tree, policy, game)
    expected = os_exploitability.nash_conv(game, tabular, return_only_nash_conv=False)
    assert abs(solvers.nash_conv(tree, policy) - expected.nash_conv) <= 1e-9
    values = solvers.expected_values(tree, policy)
    reference = expected_game_score.policy_value(game.new_initial_state(), [tabular, tabular])
    assert np.allclose(values, reference, atol=1e-12, rtol=0)
    for player in (0, 1):
        br = solvers.best_response(tree, policy, player)
        gain = br.value - br.on_policy_value
        assert abs(gain - expected.player_improvements[player]) <= 1e-9


def test_values_equal_openspiel_on_leduc(leduc):
    game, tree = leduc
    policy = random_policy(tree, 4)
    tabular = to_openspiel_policy(tree, policy, game)
    reference = expected_game_score.policy_value(game.new_initial_state(), [tabular, tabular])
    assert np.allclose(solvers.expected_values(tree, policy), reference, atol=1e-12, rtol=0)


@pytest.mark.slow
def test_exploitability_equals_openspiel_on_liars_dice(liars_dice):
    game, tree = liars_dice
    result = solvers.solve(tree, "cfr+", iterations=10, check_every=10, progress=False)
    expected = os_exploitability.exploitability(game, result.to_openspiel_policy(game))
    assert expected > 1e-3  # far from solved: a meaningful comparison
    assert abs(result.exploitability - expected) <= 1e-9
    assert abs(solvers.exploitability(tree, result.average_policy) - expected) <= 1e-9


def test_best_response_policy_achieves_its_value(leduc):
    _, tree = leduc
    policy = random_policy(tree, 5)
    for player in (0, 1):
        br = solvers.best_response(tree, policy, player)
        mine = tree.infoset_player == player
        offsets, counts = tree.infoset_offset[mine], tree.infoset_num_actions[mine]
        for o, n in zip(offsets, counts):
            assert sorted(br.policy[o:o + n]) == [0.0] * (n - 1) + [1.0]
        others = np.repeat(~mine, tree.infoset_num_actions)
        assert np.array_equal(br.policy[others], policy[others])
        value = solvers.expected_values(tree, br.policy)[player]
        assert value == pytest.approx(br.value, abs=1e-12)
        assert br.value >= br.on_policy_value - 1e-12


def test_a_solved_kuhn_strategy_is_hardly_exploitable(kuhn):
    _, tree = kuhn
    solved = solvers.solve(tree, "pcfr+", iterations=2000, progress=False)
    assert solvers.exploitability(tree, solved) < 1e-6  # a SolveResult is accepted too
    assert solvers.exploitability(tree, tree.uniform_policy()) > 0.4


@pytest.mark.parametrize("policy, error, message", [
    (np.zeros(5), ValueError, "shape"),
    ("uniform", TypeError, "array of probabilities"),
])
def test_bad_policies_are_refused(policy, error, message, kuhn):
    _, tree = kuhn
    with pytest.raises(error, match=message):
        solvers.exploitability(tree, policy)


def test_policy_not_summing_to_one_names_the_infoset(kuhn):
    _, tree = kuhn
    policy = tree.uniform_policy()
    policy[tree.infoset_offset[3]] = 0.9
    with pytest.raises(ValueError, match=f"information set 3 \\({tree.infoset_key(3)!r}\\)"):
        solvers.nash_conv(tree, policy)
    policy[tree.infoset_offset[3]] = -0.5
    with pytest.raises(ValueError, match="negative"):
        solvers.expected_values(tree, policy)


def test_best_response_player_must_be_zero_or_one(kuhn):
    _, tree = kuhn
    with pytest.raises(ValueError, match="player must be 0 or 1"):
        solvers.best_response(tree, tree.uniform_policy(), 2)
