"""solve(): parity with OpenSpiel's Python CFR solvers, convergence, arguments."""

import numpy as np
import pytest
from open_spiel.python.algorithms import cfr as os_cfr
from open_spiel.python.algorithms import discounted_cfr as os_dcfr

import solvers
from solvers import GameTree, from_openspiel_policy

OPENSPIEL_SOLVERS = {
    "cfr": os_cfr.CFRSolver,
    "cfr+": os_cfr.CFRPlusSolver,
    "lcfr": os_dcfr.LCFRSolver,
    "dcfr": os_dcfr.DCFRSolver,
}


def _openspiel_policies(game, tree, algorithm, iterations):
    solver = OPENSPIEL_SOLVERS[algorithm](game)
    for _ in range(iterations):
        solver.evaluate_and_update_policy()
    return (from_openspiel_policy(tree, solver.average_policy()),
            from_openspiel_policy(tree, solver.current_policy()))


@pytest.mark.parametrize("name, algorithm, iterations", [
    ("kuhn", "cfr", 50), ("kuhn", "cfr+", 50), ("leduc", "cfr", 20), ("leduc", "cfr+", 20),
    # Not required by OpenSpiel's contract, but our LCFR/DCFR follow the same update order.
    ("kuhn", "lcfr", 50), ("kuhn", "dcfr", 50), ("leduc", "lcfr", 8), ("leduc", "dcfr", 8),
])
def test_policies_equal_openspiel_python_solvers(name, algorithm, iterations, request):
    game, tree = request.getfixturevalue(name)
    result = solvers.solve(tree, algorithm, iterations=iterations, progress=False)
    average, current = _openspiel_policies(game, tree, algorithm, iterations)
    assert result.iterations == iterations
    assert np.max(np.abs(result.average_policy - average)) <= 1e-9
    assert np.max(np.abs(result.current_policy - current)) <= 1e-9
    # The average is not trivially uniform after this many iterations.
    assert np.max(np.abs(average - tree.uniform_policy())) > 0.05


def test_kuhn_value_is_minus_one_eighteenth(kuhn):
    _, tree = kuhn
    result = solvers.solve(tree, "cfr+", iterations=1000, progress=False)
    eps = result.exploitability
    assert 0 <= eps < 1e-3
    # |v(sigma) - v*| <= NashConv = 2 * exploitability for any profile.
    assert abs(result.game_value[0] + 1 / 18) <= 2 * eps + 1e-12
    assert result.game_value[1] == -result.game_value[0]
    assert eps == pytest.approx(solvers.exploitability(tree, result.average_policy), abs=1e-15)


def test_target_exploitability_stops_at_a_check(kuhn):
    _, tree = kuhn
    result = solvers.solve(tree, "cfr+", target_exploitability=1e-3, check_every=10, progress=False)
    assert result.exploitability <= 1e-3
    assert result.iterations % 10 == 0
    assert np.all(result.curve_exploitability[:-1] > 1e-3)
    assert np.array_equal(result.curve_iterations, np.arange(1, len(result.curve_iterations) + 1) * 10)


@pytest.fixture(scope="module")
def leduc_1000(leduc):
    _, tree = leduc
    return {alg: solvers.solve(tree, alg, iterations=1000, check_every=250, progress=False)
            for alg in solvers.ALGORITHMS}


def test_leduc_cfr_plus_1000_iterations(leduc_1000):
    result = leduc_1000["cfr+"]
    assert result.exploitability <= 3e-4
    assert list(result.curve_iterations) == [250, 500, 750, 1000]
    assert np.all(np.diff(result.curve_seconds) > 0)


@pytest.mark.parametrize("algorithm", ["lcfr", "dcfr", "pcfr+"])
def test_variants_beat_vanilla_cfr_on_leduc(algorithm, leduc_1000):
    assert leduc_1000[algorithm].exploitability < leduc_1000["cfr"].exploitability


def test_all_algorithms_agree_on_leduc_value(leduc_1000):
    for result in leduc_1000.values():
        reference = leduc_1000["dcfr"]
        bound = 2 * (result.exploitability + reference.exploitability)
        assert abs(result.game_value[0] - reference.game_value[0]) <= bound + 1e-12


# ----------------------------------------------------------------- degenerate trees
def _arrays(kind, player, infoset, child_start, num_children, chance_prob, payoff, level_start,
            infoset_player=(), infoset_num_actions=()):
    num_actions = np.asarray(infoset_num_actions, np.int32)
    offsets = np.concatenate([[0], np.cumsum(num_actions)[:-1]]).astype(np.int64)
    return GameTree(
        node_kind=np.array(kind, np.int8), node_player=np.array(player, np.int8),
        node_infoset=np.array(infoset, np.int32), child_start=np.array(child_start, np.int64),
        num_children=np.array(num_children, np.int32),
        chance_prob=np.array(chance_prob, np.float64), payoff=np.array(payoff, np.float64),
        level_start=np.array(level_start, np.int64),
        infoset_player=np.array(infoset_player, np.int8), infoset_num_actions=num_actions,
        infoset_offset=offsets[:len(num_actions)],
        infoset_actions=np.concatenate([np.arange(n) for n in num_actions] or [[]]).astype(np.int32),
        game_id="degenerate", infoset_keys=[f"I{i}" for i in range(len(num_actions))])


def test_single_terminal_always_wins():
    tree = _arrays([2], [-1], [-1], [0], [0], [1.0], [2.5], [0, 1])
    result = solvers.solve(tree, "cfr", iterations=3, progress=False)
    assert result.iterations == 3 and result.average_policy.size == 0
    assert list(result.game_value) == [2.5, -2.5] and result.exploitability == 0.0


def test_pure_chance_value():
    tree = _arrays([1, 2, 2, 2], [-1] * 4, [-1] * 4, [1, 0, 0, 0], [3, 0, 0, 0],
                   [1.0, 0.25, 0.5, 0.25], [0, 4.0, -2.0, 1.0], [0, 1, 4])
    for algorithm in solvers.ALGORITHMS:
        result = solvers.solve(tree, algorithm, iterations=2, progress=False)
        assert result.game_value[0] == pytest.approx(0.25 * 4 - 0.5 * 2 + 0.25 * 1)
        assert result.exploitability == 0.0


@pytest.mark.parametrize("player, value", [(0, 3.0), (1, -2.0)])
@pytest.mark.parametrize("algorithm", [a for a, s in solvers.ALGORITHMS.items() if s.family == "cfr"])
def test_one_decision_picks_the_best_action(player, value, algorithm):
    tree = _arrays([0, 2, 2, 2], [player, -1, -1, -1], [0, -1, -1, -1], [1, 0, 0, 0],
                   [3, 0, 0, 0], [1.0] * 4, [0, 1.0, 3.0, -2.0], [0, 1, 4], [player], [3])
    result = solvers.solve(tree, algorithm, iterations=200, progress=False)
    best = 1 if player == 0 else 2
    assert result.current_policy[best] == 1.0
    assert result.average_policy[best] > 0.9
    assert abs(result.game_value[0] - value) <= 2 * result.exploitability + 1e-12
    assert result.exploitability < 0.05


def test_always_win_whatever_player_one_does():
    # Player 1 chooses, but every outcome pays player 0 one unit.
    tree = _arrays([0, 2, 2], [1, -1, -1], [0, -1, -1], [1, 0, 0], [2, 0, 0], [1.0] * 3,
                   [0, 1.0, 1.0], [0, 1, 3], [1], [2])
    result = solvers.solve(tree, "cfr+", iterations=10, progress=False)
    assert list(result.game_value) == [1.0, -1.0]
    assert result.exploitability == 0.0
    assert np.allclose(result.average_policy, 0.5)


# ------------------------------------------------------------------------ arguments
@pytest.mark.parametrize("kwargs, error, message", [
    (dict(algorithm="cfr++", iterations=5), ValueError, "unknown algorithm 'cfr\\+\\+'"),
    (dict(), ValueError, "give iterations, target_exploitability, or both"),
    (dict(iterations=-1), ValueError, "iterations must be at least 0"),
    (dict(iterations=2.5), TypeError, "iterations must be an int"),
    (dict(iterations=True), TypeError, "iterations must be an int"),
    (dict(target_exploitability=-1.0), ValueError, "target_exploitability must be finite"),
    (dict(target_exploitability=float("nan")), ValueError, "target_exploitability must be finite"),
    (dict(iterations=5, check_every=0), ValueError, "check_every must be at least 1"),
    (dict(iterations=5, checkpoint_every=2), ValueError, "checkpoint_every needs a checkpoint"),
    (dict(iterations=5, progress="yes"), TypeError, "progress must be a bool"),
    (dict(iterations=5, seed="0"), TypeError, "seed must be an int"),
    (dict(iterations=5, algorithm=3), TypeError, "algorithm must be a str"),
])
def test_bad_arguments_are_refused(kwargs, error, message, kuhn):
    _, tree = kuhn
    kwargs.setdefault("progress", False)
    with pytest.raises(error, match=message):
        solvers.solve(tree, **kwargs)


def test_tree_must_be_a_game_tree(kuhn):
    game, _ = kuhn
    with pytest.raises(TypeError, match="tree must be a GameTree"):
        solvers.solve(game, iterations=1)


def test_seed_and_algorithm_are_recorded(kuhn):
    _, tree = kuhn
    result = solvers.solve(tree, "lcfr", iterations=3, seed=1234, progress=True)
    assert (result.algorithm, result.seed, result.iterations) == ("lcfr", 1234, 3)
    assert result.game_id == "kuhn_poker()" and not result.interrupted
    assert solvers.solve(tree, iterations=1, progress=False).algorithm == "cfr+"
