"""Multi-valued leaves on a public tree (solvers.trees.leaves.public), checked against the same leaves
grafted onto the history tree: the two trees are one game, so every solver's iterates, the exact
exploitability and the values agree (1e-9), on Kuhn and Leduc poker with leaves at random terminal
public nodes and random continuation values."""

import numpy as np
import pyspiel
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import solvers
from solvers import GameTree, PublicTree, TERMINAL
from solvers.history.best_response import best_response
from solvers.trees.derive import derive, openspiel_labels
from solvers.trees.leaves import graft_leaf_choices, graft_public_leaf_choices, public_leaf_pairs, with_leaf_weights
from test_solvers_public import assert_same_iterates

FIELDS = ("node_kind", "node_player", "node_infoset", "child_start", "num_children", "chance_prob",
          "level_start", "infoset_player", "infoset_num_actions", "infoset_offset", "infoset_actions")


@pytest.fixture(scope="module", params=["kuhn_poker", "leduc_poker"])
def game(request):
    game = pyspiel.load_game(request.param)
    tree = GameTree.from_openspiel(game)
    labels = openspiel_labels(game)
    _, pub, loc = derive(tree, labels, histories=True)
    return tree, labels, pub, loc


def cut_public(game, rng):
    """``(public, leaves, at_leaf)``: the public tree with leaves at about half its terminal public
    nodes, their matrices holding chance weights, and which histories end at them."""
    tree, labels, pub, loc = game
    ends = np.unique(pub[tree.node_kind == TERMINAL])
    leaves = np.sort(rng.choice(ends, size=max(1, ends.size // 2), replace=False))
    at_leaf = np.isin(pub, leaves) & (tree.node_kind == TERMINAL)
    payoff = np.where(at_leaf, 1.0, tree.payoff)  # the leaves' matrices then hold chance weights
    weighted = GameTree(**{f: getattr(tree, f) for f in FIELDS}, payoff=payoff, game_id="w",
                        infoset_keys=tree.infoset_key)
    return PublicTree.from_game_tree(weighted, labels), leaves, at_leaf


def both_grafts(game, seed, k0, k1):
    """The same depth-limited game on both trees: leaves at about half the terminal public nodes."""
    tree, labels, pub, loc = game
    rng = np.random.default_rng(seed)
    public, leaves, at_leaf = cut_public(game, rng)
    pairs = public_leaf_pairs(public, leaves)
    values = rng.normal(size=(pairs.leaf.size, k0, k1))
    grafted, choices = graft_public_leaf_choices(public, leaves, values)
    index = {(int(i), int(a), int(b)): n for n, (i, a, b) in
             enumerate(zip(pairs.leaf, pairs.entry0, pairs.entry1))}
    hist = np.flatnonzero(at_leaf)
    where = np.searchsorted(leaves, pub[hist])
    rows = [index[(int(i), int(loc[0, h]), int(loc[1, h]))] for i, h in zip(where, hist)]
    ids = np.stack([choices.first0[where] + loc[0, hist], choices.first1[where] + loc[1, hist]], axis=1)
    history, _ = graft_leaf_choices(tree, hist, ids, values[rows])
    return history, grafted, choices


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                               HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1), k0=st.integers(1, 3), k1=st.integers(1, 3),
       algorithm=st.sampled_from(["cfr+", "dcfr", "hs-pcfr+"]))
def test_the_public_graft_is_the_history_graft(game, seed, k0, k1, algorithm):
    history, public, choices = both_grafts(game, seed, k0, k1)
    assert public.num_infosets == history.num_infosets
    assert public.num_actions == history.num_actions
    assert_same_iterates(history, public, algorithm, "alternating", 6)


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1), k0=st.integers(1, 3), k1=st.integers(1, 3))
def test_the_leaf_weights_are_the_graft_of_unit_values(game, seed, k0, k1):
    rng = np.random.default_rng(seed)
    public, leaves, _ = cut_public(game, rng)
    p = public_leaf_pairs(public, leaves).leaf.size
    grafted, choices = graft_public_leaf_choices(public, leaves, rng.normal(size=(p, k0, k1)))
    ones = graft_public_leaf_choices(public, leaves, np.ones((p, k0, k1)))[0]
    weights = with_leaf_weights(grafted, choices)
    for name, a in ones.flat._asdict().items():
        assert np.array_equal(getattr(weights.flat, name), a), name
    assert not np.array_equal(weights.flat.matrix_data, grafted.flat.matrix_data)
    assert weights.flat.entry_parent is grafted.flat.entry_parent  # shared, not copied


def test_its_solution_is_the_history_solution(game):
    history, public, choices = both_grafts(game, 7, 2, 3)
    a = solvers.solve(history, algorithm="hs-pcfr+", iterations=200, progress=False)
    b = solvers.solve(public, algorithm="hs-pcfr+", iterations=200, progress=False)
    assert b.exploitability == pytest.approx(a.exploitability, abs=1e-9)
    assert b.average_policy == pytest.approx(a.average_policy, abs=1e-9)
    # and each seat's exact best-response value against any policy is the other representation's
    rng = np.random.default_rng(3)
    policy = rng.random(public.num_actions)
    policy /= np.repeat(np.add.reduceat(policy, public.infoset_offset), public.infoset_num_actions)
    rep = solvers.Solver(public, "cfr+").representation
    for player in (0, 1):
        assert rep.best_choices(policy, player)[0] == pytest.approx(
            best_response(history, policy, player)[0], abs=1e-9)


def test_the_choices_are_private():
    """Matching pennies at a leaf of a one-node public tree: player 1 must not see player 0's pick."""
    tree = GameTree.from_nested(("terminal", 1.0), "one leaf")
    public = PublicTree.from_game_tree(tree, np.full(1, -1))
    assert public_leaf_pairs(public, [0]).weight.tolist() == [1.0]
    grafted, choices = graft_public_leaf_choices(public, [0], [[[1.0, -1.0], [-1.0, 1.0]]])
    assert grafted.num_nodes == 3 and choices.num_leaf_infosets == (1, 1)
    r = solvers.solve(grafted, iterations=2000, progress=False)
    assert r.exploitability < 1e-3
    assert r.average_policy == pytest.approx([0.5] * 4, abs=1e-2)


@pytest.mark.parametrize("bad, message", [
    (dict(values=np.zeros((1, 0, 1))), "shape"),
    (dict(values=np.zeros((2, 1, 1))), "shape"),
    (dict(values=np.full((1, 1, 1), np.inf)), "finite"),
    (dict(leaves=[1]), "terminal"),
    (dict(leaves=[0, 0]), "distinct"),
])
def test_bad_leaves_are_refused_by_name(bad, message):
    public = PublicTree.from_game_tree(GameTree.from_nested(("terminal", 1.0), "one"), np.full(1, -1))
    args = dict(leaves=[0], values=np.zeros((1, 1, 1)))
    args.update(bad)
    with pytest.raises(ValueError, match=message):
        graft_public_leaf_choices(public, **args)
