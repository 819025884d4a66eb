"""Safe re-solving (coupsolve.search.safe): the gadget above a re-solve, its values from rollouts of
the blueprint from every history at the root, and what it guarantees on Coup's own depth-limited
games: no private state of the opponent gets more from the re-solved strategy than its value."""

import numpy as np
import pytest

import solvers
from coupsolve import engine as E
from coupsolve.search import SearchSettings, resolve
from coupsolve.search.safe import _root_rows, blueprint_values, gadget_inputs
from coupsolve.trees.rooted import build_rooted_public_tree, count_rooted_public_tree, public_root
from solvers.trees.gadget import ENTER, gadget_node, graft_gadget
from tests.test_resolve_root import LONG, TAX
from tests.test_search import FULL, blueprint

pytestmark = pytest.mark.xdist_group("search")
SMALL = SearchSettings(lookahead=1, rollouts=1, iterations=200, held_rollouts=4, held_budget=4000, safe=True,
                       honest=0.0)


@pytest.mark.parametrize("history", [TAX, LONG], ids=["turn 1", "turn 10"])
def test_a_root_historys_features_state_is_the_one_its_moves_reach(history):
    """The rollouts start where the features game's own replay of each history stops: the engine's
    state the walk holds there, and the claims the history made."""
    bp, root = blueprint(), public_root(FULL, history)
    node, g = root.node, blueprint().game
    paths = np.ascontiguousarray(node.paths, np.int32)
    lengths = (paths >= 0).sum(axis=1).astype(np.int64)
    states = np.zeros((paths.shape[0], g.state_size), np.int32)
    hashes = np.zeros((paths.shape[0], 2, 2), np.uint64)
    keys = np.zeros(paths.shape[0], np.uint64)
    _root_rows(g.params, g.scratch, paths, lengths, states, hashes, keys)
    settled = node.start.pending == 0
    assert settled.any()
    assert np.array_equal(states[settled, :E.S_SIZE], node.start.states[settled])
    assert np.array_equal(states[node.target, E.S_SIZE:], bp.features_state(history)[E.S_SIZE:])
    values, err = blueprint_values(bp, node, rollouts=2, seed=5, budget=None)
    again, _ = blueprint_values(bp, node, rollouts=2, seed=5, budget=None)
    assert values.shape == (paths.shape[0],) and np.array_equal(values, again)  # seeded
    assert (np.abs(values) <= 1).all() and (err >= 0).all()


def test_the_declined_values_are_the_blueprints_averaged_over_the_re_solvers_range():
    """Against a sum over the root's histories: each private state of the opponent declines for the
    chance- and range-weighted mean of the blueprint's values of its histories."""
    bp, root = blueprint(), public_root(FULL, TAX)
    mine = np.random.default_rng(1).random(root.num_private[1]) + 0.1  # player 1 re-solves
    ranges = (np.ones(root.num_private[0]), mine)
    size = count_rooted_public_tree(FULL.replace(turn_limit=1), root, *ranges)
    coup = build_rooted_public_tree(FULL.replace(turn_limit=1), root, *ranges, size=size)
    values, _ = blueprint_values(bp, root.node, rollouts=1, seed=2, budget=None)
    x = gadget_node(coup.tree)
    f = coup.tree.flat
    lo, n0 = int(f.entry_start[x]), int(f.num_entries0[x])
    weights, declined = gadget_inputs(size.start, root.node, values, coup.entry_hash, lo, n0,
                                      int(f.entry_start[x + 1]) - lo - n0, 0)
    assert weights.sum() == pytest.approx(1.0, abs=1e-12)
    e = root.node.entry
    for j in range(root.num_private[0]):  # entries there are the private states, in order
        at = e[:, 0] == j
        w = root.node.start.prob[at] * mine[e[at, 1]]
        assert declined[j] == pytest.approx(float((w * values[at]).sum() / w.sum()), abs=1e-12)
        assert weights[j].sum() == pytest.approx(float(w.sum() / (root.node.start.prob * mine[e[:, 1]]).sum()))


@pytest.mark.parametrize("history", [TAX, LONG], ids=["turn 1", "turn 10"])
def test_re_solving_with_feasible_values_gives_no_private_state_of_the_opponent_more(history):
    """The gadget's guarantee on Coup's own depth-limited game (the subgame a safe re-solve grafts it
    on, leaves and all): with values an old strategy allows (the opponent's best response to a random
    strategy), against the new strategy each private state of the opponent earns at most
    its value, within twice the gadget solve's exploitability. The values a re-solve gives (the
    blueprint's own play from the root) need not be allowed by any strategy: the opponent may also
    choose its continuation at the leaves, so there the gadget is a best effort, not a guarantee."""
    bp = blueprint()
    r = resolve(bp, history, SMALL)
    you, g = 1 - r.player, r.game
    sub = g.subgame.tree
    x = gadget_node(sub)
    rep = solvers.Solver(sub).representation
    old = np.empty(sub.num_actions)  # a random old strategy
    rng = np.random.default_rng(len(history))
    for i in range(sub.num_infosets):
        o, m = int(sub.infoset_offset[i]), int(sub.infoset_num_actions[i])
        old[o:o + m] = rng.dirichlet(np.ones(m))
    before = rep.entry_values(old, you, x)
    room = g.weights.sum(axis=1 - you)
    values = np.divide(before, room, out=np.zeros_like(before), where=room > 0)
    gadgeted, _ = graft_gadget(sub, you, g.weights, values, x)
    result = solvers.solve(gadgeted, iterations=400, progress=False)
    after = rep.entry_values(result.average_policy[:sub.num_actions], you, x)
    eps = float(result.exploitability)
    assert (after <= before + 2 * eps + 1e-9).all(), (after - before, eps)
    assert (after < before - 10 * eps).any()  # the old strategy was not already the best it could be


@pytest.mark.parametrize("kind", ["blueprint", "uniform"])
def test_a_safe_re_solve_reports_the_opponents_entering_as_its_range(kind):
    """The opponent's range a safe re-solve reports (what the belief reads) is, per private state, its
    weight at the root (its blueprint range, floored, or 1) times its probability of entering the
    subgame in the gadget's solve, normalised."""
    from coupsolve.search.resolve import _floored

    bp = blueprint()
    r = resolve(bp, TAX, SMALL._replace(safe=kind))
    you, g = 1 - r.player, r.game
    t, first = g.tree, g.gadget.first_infoset
    sigma = r.result.average_policy
    enter = np.array([sigma[t.infoset_offset[first + e] + ENTER] / sigma[t.infoset_offset[first + e]:
                                                                        t.infoset_offset[first + e] + 2].sum()
                      for e in range(g.declined.size)])
    prior = _floored(bp.ranges(r.root)[you]) if kind == "blueprint" else np.ones(enter.size)
    assert r.ranges[you].sum() == pytest.approx(1.0) and (r.ranges[you] >= 0).all()
    expect = prior * enter  # at turn 1 the entries are the private states, in order
    assert np.allclose(r.ranges[you], expect / expect.sum())
    assert g.declined.shape == (r.root.num_private[you],) and np.isfinite(g.declined).all()


def test_an_unknown_kind_of_safe_re_solving_is_refused():
    from coupsolve import load_game
    from coupsolve.search import ResolvingPolicy

    with pytest.raises(ValueError, match="safe re-solving is one of"):
        resolve(blueprint(), TAX, SMALL._replace(safe="sometimes"))
    with pytest.raises(ValueError, match="safe re-solving is one of"):
        ResolvingPolicy(load_game(FULL), blueprint(), SMALL._replace(safe=1.5))
