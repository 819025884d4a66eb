"""Hypothesis-generated small games with perfect recall.

Each player's information set is keyed by everything that player has seen:
their own (infoset, action) pairs and the chance outcomes and opponent actions
they observe; unobserved events add nothing, so histories of one information
set may lie at different depths. Best responses are checked against brute
force over all pure strategies, evaluated on the nested description (not on
the flat arrays), and every algorithm must drive the exploitability below
1e-3.
"""

import itertools
import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import solvers
from solvers import GameTree

MAX_PURE_STRATEGIES = 512


def random_game(seed, max_depth, max_branch):
    """Nested description of a random game (see ``GameTree.from_nested``)."""
    rng = random.Random(seed)
    num_actions = {}

    def node(depth, views):
        if depth == max_depth or (depth > 1 and rng.random() < 0.2):
            return ("terminal", float(rng.randint(-3, 3)))
        if rng.random() < 0.3:
            k = rng.randint(2, max_branch)
            weights = [rng.randint(1, 4) for _ in range(k)]
            seen = [rng.random() < 0.4 for _ in range(2)]
            edges = []
            for outcome, weight in enumerate(weights):
                child_views = tuple(v + (("c", depth, outcome),) if s else v
                                    for v, s in zip(views, seen))
                edges.append((weight / sum(weights), node(depth + 1, child_views)))
            return ("chance", edges)
        player = rng.randint(0, 1)
        key = f"P{player}:{views[player]!r}"
        if key not in num_actions:
            num_actions[key] = rng.randint(1, max_branch)
        seen = rng.random() < 0.4
        edges = []
        for action in range(num_actions[key]):
            child_views = list(views)
            child_views[player] = views[player] + (("a", key, action),)
            if seen:
                child_views[1 - player] = views[1 - player] + (("o", depth, action),)
            edges.append((action, node(depth + 1, tuple(child_views))))
        return ("decision", player, key, edges)

    return node(0, ((), ()))


def evaluate(node, strategy):
    """Player 0's expected utility; ``strategy(key)`` -> action probabilities."""
    tag = node[0]
    if tag == "terminal":
        return node[1]
    if tag == "chance":
        return sum(p * evaluate(child, strategy) for p, child in node[1])
    probs = strategy(node[2])
    return sum(probs[a] * evaluate(child, strategy) for a, (_, child) in enumerate(node[3]))


def flat_strategy(tree, policy):
    """``key -> probabilities`` reading a flat policy."""
    def strategy(key):
        i = tree.infoset_index(key)
        o = tree.infoset_offset[i]
        return policy[o:o + tree.infoset_num_actions[i]]
    return strategy


def brute_force_best_response(root, tree, policy, player):
    """Max over all pure strategies of ``player`` (None if there are too many)."""
    mine = [i for i in range(tree.num_infosets) if tree.infoset_player[i] == player]
    sizes = [int(tree.infoset_num_actions[i]) for i in mine]
    if np.prod(sizes, dtype=np.int64) > MAX_PURE_STRATEGIES:
        return None
    keys = [tree.infoset_key(i) for i in mine]
    sign = 1.0 if player == 0 else -1.0
    given = flat_strategy(tree, policy)
    best = -np.inf
    for choice in itertools.product(*(range(n) for n in sizes)):
        pure = {key: np.eye(n)[a] for key, n, a in zip(keys, sizes, choice)}
        best = max(best, sign * evaluate(root, lambda key: pure[key] if key in pure else given(key)))
    return best


def random_flat_policy(tree, seed):
    rng = np.random.default_rng(seed)
    weights = rng.random(tree.num_actions)
    weights[rng.random(tree.num_actions) < 0.3] = 0.0
    weights[tree.infoset_offset] += 1e-2
    return weights / np.repeat(np.add.reduceat(weights, tree.infoset_offset),
                               tree.infoset_num_actions)


games = st.builds(random_game, seed=st.integers(0, 2**32 - 1), max_depth=st.integers(2, 5),
                  max_branch=st.integers(2, 3))
SETTINGS = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(root=games, policy_seed=st.integers(0, 2**32 - 1))
def test_best_response_matches_brute_force(root, policy_seed):
    tree = GameTree.from_nested(root, "random")
    policy = random_flat_policy(tree, policy_seed)
    values = solvers.expected_values(tree, policy)
    assert values[0] == pytest.approx(evaluate(root, flat_strategy(tree, policy)), abs=1e-12)
    improvements = []
    for player in (0, 1):
        br = solvers.best_response(tree, policy, player)
        brute = brute_force_best_response(root, tree, policy, player)
        if brute is not None:
            assert br.value == pytest.approx(brute, abs=1e-9)
        improvements.append(br.value - values[player])
    assert solvers.nash_conv(tree, policy) == pytest.approx(sum(improvements), abs=1e-12)


@SETTINGS
@given(root=games)
def test_every_algorithm_converges(root):
    tree = GameTree.from_nested(root, "random")
    for algorithm in (a for a, spec in solvers.ALGORITHMS.items() if spec.family == "cfr"):
        result = solvers.solve(tree, algorithm, iterations=100_000, target_exploitability=1e-3,
                               check_every=50, progress=False)
        assert result.exploitability <= 1e-3, (algorithm, result.iterations)
        # The reported exploitability is that of the returned average policy.
        nash_conv = 0.0
        for player in (0, 1):
            brute = brute_force_best_response(root, tree, result.average_policy, player)
            if brute is None:
                nash_conv = None
                break
            nash_conv += brute - result.game_value[player]
        if nash_conv is not None:
            assert result.exploitability == pytest.approx(nash_conv / 2, abs=1e-9)
