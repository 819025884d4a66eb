"""Multi-valued leaves (solvers.trees.leaves): the grafted tree is the cut game with each leaf a pair of
simultaneous continuation choices, checked against the cut tree with the chosen values as its payoffs."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import solvers
from solvers import GameTree, TERMINAL
from solvers.trees.leaves import graft_leaf_choices
from test_solvers_random_trees import random_flat_policy, random_game


def _setup(root, seed, k0, k1):
    tree = GameTree.from_nested(root, "random")
    rng = np.random.default_rng(seed)
    terminals = np.flatnonzero(tree.node_kind == TERMINAL)
    leaves = np.sort(rng.choice(terminals, size=max(1, len(terminals) // 2), replace=False))
    ids = np.stack([np.arange(len(leaves))] * 2, axis=1)  # each leaf its own information set
    values = rng.normal(size=(len(leaves), k0, k1))
    return tree, leaves, ids, values


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(root=st.builds(random_game, seed=st.integers(0, 2**32 - 1), max_depth=st.integers(2, 4),
                      max_branch=st.integers(2, 3)),
       seed=st.integers(0, 2**32 - 1), k0=st.integers(1, 3), k1=st.integers(1, 3))
def test_grafted_values_are_the_cut_game_with_mixed_leaf_payoffs(root, seed, k0, k1):
    tree, leaves, ids, values = _setup(root, seed, k0, k1)
    grafted, choices = graft_leaf_choices(tree, leaves, ids, values)
    policy = random_flat_policy(grafted, seed)
    base = policy[:choices.base_actions]
    # the leaf's payoff when each player mixes its continuations as the policy says
    o0 = grafted.infoset_offset[choices.base_infosets + ids[:, 0]]
    o1 = grafted.infoset_offset[choices.base_infosets + choices.num_leaf_infosets[0] + ids[:, 1]]
    mixed = np.array([policy[a:a + k0] @ v @ policy[b:b + k1] for a, b, v in zip(o0, o1, values)])
    payoff = tree.payoff.copy()
    payoff[leaves] = mixed
    plain = GameTree(**{f: getattr(tree, f) for f in (
        "node_kind", "node_player", "node_infoset", "child_start", "num_children", "chance_prob",
        "level_start", "infoset_player", "infoset_num_actions", "infoset_offset", "infoset_actions")},
        payoff=payoff, game_id="plain", infoset_keys=lambda i: str(i))
    assert solvers.expected_values(grafted, policy)[0] == pytest.approx(
        solvers.expected_values(plain, base)[0], abs=1e-12)
    assert (choices.old_of_new[choices.leaf_decision] == leaves).all()
    assert grafted.num_nodes == tree.num_nodes + len(leaves) * (k0 + k0 * k1)


def test_one_continuation_is_the_game_with_those_payoffs():
    import pyspiel

    tree = GameTree.from_openspiel(pyspiel.load_game("kuhn_poker"))
    leaves = np.flatnonzero(tree.node_kind == TERMINAL)
    ids = np.stack([np.arange(len(leaves))] * 2, axis=1)
    grafted, _ = graft_leaf_choices(tree, leaves, ids, tree.payoff[leaves][:, None, None])
    a = solvers.solve(tree, iterations=300, progress=False)
    b = solvers.solve(grafted, iterations=300, progress=False)
    assert b.exploitability == pytest.approx(a.exploitability, abs=1e-12)
    assert solvers.expected_values(grafted, b.average_policy)[0] == pytest.approx(-1 / 18, abs=1e-3)


def test_the_choices_are_simultaneous():
    """Matching pennies at one leaf: player 1 must not see player 0's pick, so the value is 0 with
    both mixing half and half, where a sequential pick would give player 1 the whole stake."""
    tree = GameTree.from_nested(("terminal", 0.0), "one leaf")
    grafted, _ = graft_leaf_choices(tree, [0], [[0, 0]], [[[1.0, -1.0], [-1.0, 1.0]]])
    r = solvers.solve(grafted, iterations=2000, progress=False)
    assert r.exploitability < 1e-3
    assert r.average_policy == pytest.approx([0.5] * 4, abs=1e-2)


@pytest.mark.parametrize("bad, message", [
    (dict(values=np.zeros((1, 0, 1))), "shape"),
    (dict(values=np.full((1, 1, 1), np.nan)), "finite"),
    (dict(leaf_infoset=[[0, -1]]), "non-negative"),
    (dict(leaves=[5]), "terminal"),
])
def test_bad_leaves_are_refused_by_name(bad, message):
    tree = GameTree.from_nested(("terminal", 0.0), "one leaf")
    args = dict(leaves=[0], leaf_infoset=[[0, 0]], values=np.zeros((1, 1, 1)))
    args.update(bad)
    with pytest.raises(ValueError, match=message):
        graft_leaf_choices(tree, **args)
