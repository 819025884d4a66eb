"""Game trees of three or more players: exact best response and NashConv against OpenSpiel's."""

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import exploitability as os_exploitability

import coupsolve
from coupsolve import Rules
from solvers import GameTree, Solver, best_response, expected_values, exploitability, nash_conv
from solvers import to_openspiel_policy

# Three players at turn limit 1 on a two-character deck (546 histories); the influence payoff, since
# under the draw payoff nobody can be out after one turn and every payoff is 0.
COUP3 = Rules.standard(players=3, turn_limit=1, characters="Duke+Captain", copies=3,
                       limit_payoff="influence")


def random_policy(tree, rng):
    w = rng.random(tree.num_actions) ** 3  # skewed, some actions nearly never taken
    return w / np.repeat(np.add.reduceat(w, tree.infoset_offset), tree.infoset_num_actions)


@pytest.fixture(scope="module")
def kuhn3():
    game = pyspiel.load_game("kuhn_poker(players=3)")
    return game, GameTree.from_openspiel(game)


@pytest.fixture(scope="module")
def coup3():
    return coupsolve.load_game(COUP3), coupsolve.build_tree(COUP3)


@pytest.mark.parametrize("which", ["kuhn3", "coup3"])
def test_nash_conv_equals_openspiels(which, request):
    game, tree = request.getfixturevalue(which)
    assert tree.num_players == 3 and tree.payoffs.shape == (tree.num_nodes, 3)
    rng = np.random.default_rng(7)
    for policy in [tree.uniform_policy()] + [random_policy(tree, rng) for _ in range(3)]:
        ours = nash_conv(tree, policy)
        theirs = os_exploitability.nash_conv(game, to_openspiel_policy(tree, policy, game))
        assert ours == pytest.approx(theirs, abs=1e-9)
        assert ours > 0.01  # none of these policies is an equilibrium


def test_a_best_response_earns_its_value_and_no_less_than_the_policy(kuhn3):
    _, tree = kuhn3
    policy = random_policy(tree, np.random.default_rng(3))
    values = expected_values(tree, policy)
    assert values.shape == (3,) and values.sum() == pytest.approx(0.0, abs=1e-12)  # Kuhn: zero-sum
    for p in range(3):
        br = best_response(tree, policy, p)
        assert br.on_policy_value == pytest.approx(values[p], abs=1e-12)
        assert br.value >= br.on_policy_value - 1e-12
        mine = tree.infoset_player == p
        rows = np.repeat(mine, tree.infoset_num_actions)
        assert np.all(np.isin(br.policy[rows], (0.0, 1.0)))  # pure where it responds
        assert np.array_equal(br.policy[~rows], policy[~rows])  # the others' untouched
        assert expected_values(tree, br.policy)[p] == pytest.approx(br.value, abs=1e-12)
        assert best_response(tree, br.policy, p).value == pytest.approx(br.value, abs=1e-12)


def test_the_general_kernel_agrees_with_the_two_player_one():
    """A two-player zero-sum tree given every player's payoffs takes the N-player path: same figures."""
    zero_sum = GameTree.from_openspiel("leduc_poker")
    arrays = {name: getattr(zero_sum, name) for name in (
        "node_kind", "node_player", "node_infoset", "child_start", "num_children", "chance_prob",
        "payoff", "level_start", "infoset_player", "infoset_num_actions", "infoset_offset",
        "infoset_actions", "game_id")}
    general = GameTree(**arrays, infoset_keys=zero_sum.infoset_key,
                       payoffs=np.stack([zero_sum.payoff, -zero_sum.payoff], axis=1))
    assert not general.two_player_zero_sum and zero_sum.two_player_zero_sum
    rng = np.random.default_rng(11)
    for policy in [zero_sum.uniform_policy(), random_policy(zero_sum, rng)]:
        assert nash_conv(general, policy) == pytest.approx(nash_conv(zero_sum, policy), abs=1e-12)
        for p in (0, 1):
            a, b = best_response(general, policy, p), best_response(zero_sum, policy, p)
            assert a.value == pytest.approx(b.value, abs=1e-12)
            assert np.array_equal(a.policy, b.policy)


def test_nested_trees_give_every_players_payoff():
    root = ("chance", [(0.5, ("decision", 0, "a", [(0, ("terminal", (1.0, 2.0, -3.0))),
                                                   (1, ("decision", 2, "c", [
                                                       (0, ("terminal", (0.0, 0.0, 5.0))),
                                                       (1, ("terminal", (4.0, 0.0, 0.0)))]))])),
                       (0.5, ("terminal", (0.0, 1.0, 1.0)))])
    tree = GameTree.from_nested(root, "toy3")
    uniform = tree.uniform_policy()
    assert tree.num_players == 3
    # player 0 at "a": 1 now, or on to player 2's uniform (0 + 4) / 2 = 2: best 2, uniform 1.5
    assert best_response(tree, uniform, 0).value == pytest.approx(0.5 * 2.0)
    assert expected_values(tree, uniform) == pytest.approx([0.5 * 1.5, 0.5 * 1.0 + 0.5,
                                                           0.5 * (-1.5 + 1.25) + 0.5])
    with pytest.raises(ValueError, match="2 payoffs"):
        GameTree.from_nested(("chance", [(0.5, ("terminal", (1.0, 2.0, 3.0))),
                                         (0.5, ("terminal", (1.0, 2.0)))]), "bad")


def test_what_stays_two_player_refuses_naming_why(kuhn3):
    _, tree = kuhn3
    with pytest.raises(ValueError, match="nash_conv"):
        exploitability(tree, tree.uniform_policy())
    with pytest.raises(ValueError, match="two-player zero-sum"):
        Solver(tree)
    with pytest.raises(ValueError, match="seat 0 .. 2"):
        best_response(tree, tree.uniform_policy(), 3)
    with pytest.raises(ValueError, match="player"):
        GameTree.from_openspiel("tiny_hanabi")  # two players and not zero-sum
