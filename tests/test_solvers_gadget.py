"""The re-solving gadget on a public tree (solvers.trees.gadget): a game the opponent may decline.

Checked on Kuhn and Leduc poker, where the deal is the tree's first moves and player 0's cards are
equally likely: entering always is the game itself, declining always pays the values given, and
re-solving with the values of an old strategy's best response gives no private state of the
opponent more than it had (Burch, Johanson and Bowling, AAAI 2014), within the solve's error."""

import numpy as np
import pyspiel
import pytest
from hypothesis import given, settings, strategies as st

import solvers
from solvers import GameTree, PublicTree
from solvers.trees.derive import openspiel_labels
from solvers.trees.gadget import DECLINE, ENTER, gadget_node, graft_gadget

_TREES = {}


def tree(name):
    if name not in _TREES:
        game = pyspiel.load_game(name)
        _TREES[name] = PublicTree.from_game_tree(GameTree.from_openspiel(game), openspiel_labels(game))
    return _TREES[name]


def sizes(t, x):
    f = t.flat
    n0 = int(f.num_entries0[x])
    return n0, int(f.entry_start[x + 1] - f.entry_start[x]) - n0


def dealt(t):
    """The node below the deal and its pairs' weights: player 0's cards equally likely, player 1 one
    entry there (its card not yet told apart in these trees)."""
    x = gadget_node(t)
    n0, n1 = sizes(t, x)
    assert n1 == 1 and n0 > 1
    return x, np.full((n0, 1), 1.0 / n0)


def game_value(t, iterations=3000):
    return float(np.asarray(solvers.solve(t, iterations=iterations, progress=False).game_value).ravel()[0])


@pytest.mark.parametrize("name", ["kuhn_poker", "leduc_poker"])
def test_entering_always_is_the_game_and_declining_always_pays_the_values(name):
    t = tree(name)
    x, w = dealt(t)
    value = game_value(t)
    worst = graft_gadget(t, 0, w, np.full(w.shape[0], -50.0))[0]  # declining never pays: always enter
    assert game_value(worst) == pytest.approx(value, abs=2e-3)
    pays = np.linspace(1.0, 2.0, w.shape[0])
    best, gadget = graft_gadget(t, 0, w, pays)  # declining pays more than the game ever does
    assert game_value(best) == pytest.approx(float((w[:, 0] * pays).sum()), abs=1e-6)
    assert gadget.node == x and gadget.subgame == x + 2 and gadget.first_infoset == t.num_infosets
    g = best.flat
    assert g.node_player[x] == 0 and g.num_children[x] == 2
    assert list(best.infoset_actions[t.num_actions:t.num_actions + 2]) == [DECLINE, ENTER]
    assert best.num_infosets == t.num_infosets + w.shape[0] and best.num_nodes == t.num_nodes + 2


def test_bad_input_is_refused_in_one_line():
    t = tree("kuhn_poker")
    x, w = dealt(t)
    with pytest.raises(ValueError, match="weights must be"):
        graft_gadget(t, 0, w[:, :0], np.zeros(w.shape[0]))
    with pytest.raises(ValueError, match="values must be"):
        graft_gadget(t, 0, w, np.zeros(w.shape[0] + 1))
    with pytest.raises(ValueError, match="ancestor"):
        graft_gadget(t, 0, np.ones(sizes(t, x + 1)), np.zeros(sizes(t, x + 1)[0]), node=x + 1)
    with pytest.raises(ValueError, match="player must be"):
        graft_gadget(t, 2, w, np.zeros(w.shape[0]))


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**31 - 1))
def test_re_solving_with_an_old_strategys_values_gives_no_private_state_more(seed):
    """Player 1 re-solves Leduc from the deal against a gadget whose values are player 0's
    best-response values against a random old strategy of player 1: against the new strategy, every
    private state of player 0 gets at most that (within twice the gadget solve's exploitability)."""
    t = tree("leduc_poker")
    x, w = dealt(t)
    rng = np.random.default_rng(seed)
    old = np.empty(t.num_actions)
    for i in range(t.num_infosets):
        o, m = int(t.infoset_offset[i]), int(t.infoset_num_actions[i])
        old[o:o + m] = rng.dirichlet(np.ones(m))
    rep = solvers.Solver(t).representation
    before = rep.entry_values(old, 0, x)  # counterfactual: chance's weight is in them
    gadgeted, _ = graft_gadget(t, 0, w, before / w[:, 0])
    result = solvers.solve(gadgeted, iterations=3000, progress=False)
    eps = float(result.exploitability)
    after = rep.entry_values(result.average_policy[:t.num_actions], 0, x)
    assert (after <= before + 2 * eps + 1e-9).all(), (after - before, eps)
    # and the policy's own values are not best responses' (the comparison could fail)
    assert (rep.entry_values(old, 0, x, best=False) <= before + 1e-12).all()
