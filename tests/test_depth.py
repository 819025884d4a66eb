"""Depth-limited Coup (coupsolve.depth): the cut game's leaves, their information sets, their values from a
longer game, and the checks where the truth is known (issue 44's consistency checks and the small
version of Brown, Sandholm and Amos's table)."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import solvers
import coupsolve
from coupsolve import Rules, depth
from coupsolve.analysis.history import analyse
from solvers.trees.derive import within as _within
from coupsolve.depth.continuations import CONTINUATIONS, action_classes, biased, check_count
from coupsolve.engine import core

pytestmark = pytest.mark.xdist_group("depth")
CUT, FULL = Rules.two_player_selection(turn_limit=1), Rules.two_player_selection(turn_limit=2)


@pytest.fixture(scope="module")
def cut():
    return coupsolve.build_coup_tree(CUT, leaves=True)


@pytest.fixture(scope="module")
def full():
    return coupsolve.build_coup_tree(FULL)


@pytest.fixture(scope="module")
def blueprint(full):
    r = solvers.solve(full.tree, algorithm="hs-pcfr+", iterations=40, progress=False)
    return r.average_policy, r.exploitability


def test_leaves_are_the_histories_that_reach_the_turn_limit(cut):
    t = cut.tree
    assert (t.node_kind[cut.leaf_node] == solvers.TERMINAL).all()
    ended = np.flatnonzero(t.node_kind == solvers.TERMINAL)
    rng = np.random.default_rng(0)
    for v in rng.choice(ended, 60, replace=False):
        state = cut.state_at(int(v))
        alive = [len(state.hand(p)) > 0 for p in (0, 1)]
        assert (v in set(cut.leaf_node.tolist())) == all(alive)


def test_leaf_information_sets_are_openspiels(cut):
    """Same number for a player exactly when OpenSpiel's information-state strings agree."""
    ids = depth.leaf_infosets(cut)
    rng = np.random.default_rng(1)
    sample = rng.choice(len(cut.leaf_node), 150, replace=False)
    for p in (0, 1):
        # leaves sharing a number with another leaf: compare strings within a group and across
        groups = {}
        for i in sample:
            groups.setdefault(ids[i, p], []).append(i)
        same = [g for g in groups.values() if len(g) > 1][:10]
        extra = [int(j) for j in np.flatnonzero(ids[:, p] == ids[sample[0], p])[:3]]
        strings = {}
        for i in set(sample.tolist()) | set(extra) | {i for g in same for i in g}:
            strings[i] = cut.state_at(int(cut.leaf_node[i])).information_state_string(p)
        for a in strings:
            for b in strings:
                assert (strings[a] == strings[b]) == (ids[a, p] == ids[b, p]), (p, a, b)


def test_the_cut_tree_is_the_beginning_of_the_longer_one(cut, full):
    where = depth.node_map(cut.tree, full.tree)
    rng = np.random.default_rng(2)
    for v in rng.choice(cut.tree.num_nodes, 40, replace=False):
        assert cut.state_at(int(v)).history() == full.state_at(int(where.node[v])).history()
    with pytest.raises(ValueError, match="beginning"):
        other = coupsolve.build_coup_tree(Rules.two_player_selection(turn_limit=1, starting_seat="p1"))
        depth.node_map(other.tree, full.tree)


def test_cut_at_the_real_end_is_the_plain_solve(cut):
    """The longer game is the cut game itself: every leaf's value is its turn-limit payoff, so the
    depth-limited game is the plain game, iterate for iterate."""
    lv = depth.values_from_longer_game(cut.tree, cut.leaf_node, cut, cut.tree.uniform_policy(), 1)
    assert np.array_equal(lv.values[:, 0, 0], cut.tree.payoff[cut.leaf_node])
    dl = depth.depth_limited_game(CUT, lv, cut=cut)
    a = solvers.solve(cut.tree, iterations=30, progress=False)
    b = solvers.solve(dl.tree, iterations=30, progress=False)
    assert dl.cut_policy(b.average_policy) == pytest.approx(a.average_policy, abs=1e-9)
    assert b.exploitability == pytest.approx(a.exploitability, abs=1e-9)


def test_blueprint_leaves_give_the_longer_games_value(cut, full, blueprint):
    policy, eps = blueprint
    where = depth.node_map(cut.tree, full.tree)
    lv = depth.values_from_longer_game(cut.tree, cut.leaf_node, full, policy, 1, where=where)
    dl = depth.depth_limited_game(CUT, lv, cut=cut)
    v_full = solvers.expected_values(full.tree, policy)[0]
    # exactly: the blueprint above the cut, valued by the blueprint below it, is the blueprint
    n = cut.tree.infoset_num_actions
    restricted = policy[np.repeat(full.tree.infoset_offset[where.infoset], n) + _within(n)]
    above = np.concatenate([restricted, np.ones(dl.tree.num_actions - cut.tree.num_actions)])
    assert solvers.expected_values(dl.tree, above)[0] == pytest.approx(v_full, abs=1e-12)
    # and the depth-limited game's value is the longer game's, within both solutions' gaps
    r = solvers.solve(dl.tree, algorithm="hs-pcfr+", iterations=200, progress=False)
    v_dl = solvers.expected_values(dl.tree, r.average_policy)[0]
    assert abs(v_dl - v_full) <= 2 * eps + 2 * r.exploitability + 1e-12


def test_multi_valued_leaves_beat_a_draw_at_the_cut(cut, full, blueprint):
    """The small version of the table: stitched onto the blueprint, the solution with four
    continuations per leaf is at most a fifth as exploitable as the draw-payoff solution."""
    policy, eps = blueprint
    where = depth.node_map(cut.tree, full.tree)
    draw = solvers.solve(cut.tree, algorithm="hs-pcfr+", iterations=100, progress=False)
    a = depth.stitched_exploitability(cut.tree, draw.average_policy, full.tree, policy, where=where)
    lv = depth.values_from_longer_game(cut.tree, cut.leaf_node, full, policy, 4, where=where)
    dl = depth.depth_limited_game(CUT, lv, cut=cut)
    r = solvers.solve(dl.tree, algorithm="hs-pcfr+", iterations=300, progress=False)
    d = depth.stitched_exploitability(cut.tree, dl.cut_policy(r.average_policy), full.tree, policy, where=where)
    assert d <= a / 5
    assert a > 0.05
    choice = dl.leaf_choice(r.average_policy)
    assert set(choice) == {0, 1} and all(sum(c.values()) == pytest.approx(1) for c in choice.values())
    rows = analyse(dl.coup_tree, r.average_policy).by_turn[1]
    assert sum(s.made for s in rows) > 0.9  # every game has a first turn with a claim or not
    assert lv.values.shape == (len(cut.leaf_node), 4, 4) and lv.continuations == CONTINUATIONS


def test_the_biases_move_their_actions_and_nothing_else(full):
    classes = action_classes(full)
    bluff, challenge = classes
    rep = full.infoset_rep
    owner = np.repeat(np.arange(full.tree.num_infosets), full.tree.infoset_num_actions)
    rng = np.random.default_rng(3)
    for a in rng.choice(np.flatnonzero(bluff), 30, replace=False):  # the decider lacks the card
        I = owner[a]
        state = full.state_at(int(rep[I]))
        p = int(full.tree.infoset_player[I])
        claim = int(coupsolve.engine.ACTION_CLAIM[full.tree.infoset_actions[a]])
        character = coupsolve.names.card_name(int(coupsolve.engine.CLAIM_CHAR[claim]), False)
        assert character not in state.hand(p), (state.hand(p), character)
    assert challenge.sum() > 0 and not (bluff & challenge).any()


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), which=st.integers(0, 3))
def test_a_biased_policy_is_a_policy_with_more_or_less_of_its_kind(full, seed, which):
    tree = full.tree
    rng = np.random.default_rng(seed)
    w = rng.random(tree.num_actions)
    p = w / np.repeat(np.add.reduceat(w, tree.infoset_offset), tree.infoset_num_actions)
    classes = action_classes(full)
    q = biased(tree, p, classes, which)
    assert np.add.reduceat(q, tree.infoset_offset) == pytest.approx(1.0)
    kind = [None, classes[0], classes[1], classes[1]][which]
    if kind is not None:
        more = q[kind] >= p[kind] - 1e-15
        assert more.all() if which < 3 else (q[kind] <= p[kind] + 1e-15).all()


def test_continuation_counts_are_checked():
    assert check_count(4) == 4
    for bad in (0, 5, 2.0, True, "4"):
        with pytest.raises(ValueError, match="continuations"):
            check_count(bad)


@pytest.fixture(scope="module")
def sampled(full):
    """A strategy of the turn-limit-2 game trained by sampling (exact keys), and its tree policy."""
    from coupsolve.sampling.game import sampling_game
    from solvers.mccfr.policy import tree_policy
    from solvers.mccfr.solver import MCCFRSolver

    solver = MCCFRSolver(sampling_game(FULL), max_infosets=1 << 18, seed=5)
    solver.step(20)
    return solver, tree_policy(solver, full.tree)


def test_rollout_values_agree_with_the_exact_ones(cut, full, sampled):
    """Rollouts of a sampled strategy against the exact values of the same strategy on the longer
    tree: the errors, in standard errors, have mean about 0 and spread about 1 (unbiased, and the
    standard errors are right), and the same seed gives the same values, on any number of threads."""
    from coupsolve.depth.rollouts import values_from_trained

    solver, policy = sampled
    exact = depth.values_from_longer_game(cut.tree, cut.leaf_node, full, policy, 2)
    meta = {"rules": FULL.to_dict(), "abstraction": "exact"}
    est = values_from_trained(cut, solver, meta, 2, rollouts=6, seed=11)
    assert est.values.shape == (est.states, 2, 2) and est.per_leaf().shape == exact.values.shape
    stderr = est.stderr[est.rows()]
    assert est.mean_stderr() == pytest.approx(stderr.mean(), rel=1e-12)
    ok = stderr > 1e-9
    z = (est.per_leaf() - exact.values)[ok] / stderr[ok]
    assert ok.mean() > 0.5 and abs(z.mean()) < 0.05 and 0.85 < z.std() < 1.15, (z.mean(), z.std())
    again = values_from_trained(cut, solver, meta, 2, rollouts=6, seed=11, threads=3)
    assert np.array_equal(again.values, est.values) and np.array_equal(again.stderr, est.stderr)
    assert again.states == est.states
    with pytest.raises(ValueError, match="rollouts"):
        values_from_trained(cut, solver, meta, 2, rollouts=0)
    with pytest.raises(ValueError, match="threads"):
        values_from_trained(cut, solver, meta, 2, threads=0)
    with pytest.raises(ValueError, match="differ"):
        values_from_trained(cut, solver, {**meta, "rules": FULL.replace(limit_payoff="influence").to_dict()}, 1)


def test_playing_the_chosen_continuations_is_worth_the_depth_limited_value(cut, full, blueprint):
    """Exactly: the longer game's value of a solution that plays, after the cut, the continuations it
    chose at its leaves is the depth-limited game's value of that solution (the leaf values are the
    continuations' values, and a mixed choice is the behaviour strategy stitch_choices makes)."""
    policy, _ = blueprint
    where = depth.node_map(cut.tree, full.tree)
    lv = depth.values_from_longer_game(cut.tree, cut.leaf_node, full, policy, 3, where=where)
    dl = depth.depth_limited_game(CUT, lv, cut=cut)
    for seed in (0, 1):
        rng = np.random.default_rng(seed)
        w = rng.random(dl.tree.num_actions) + 0.05
        mixed = w / np.repeat(np.add.reduceat(w, dl.tree.infoset_offset), dl.tree.infoset_num_actions)
        played = depth.stitch_choices(dl, mixed, full, policy, where=where)
        assert np.add.reduceat(played, full.tree.infoset_offset) == pytest.approx(1.0)
        assert solvers.expected_values(full.tree, played)[0] == pytest.approx(
            solvers.expected_values(dl.tree, mixed)[0], abs=1e-12)
    one = depth.depth_limited_game(CUT, depth.values_from_longer_game(cut.tree, cut.leaf_node, full, policy, 1,
                                                                      where=where), cut=cut)
    sigma = one.tree.uniform_policy()
    assert depth.stitch_choices(one, sigma, full, policy, where=where) == pytest.approx(
        depth.stitch(cut.tree, one.cut_policy(sigma), full.tree, policy, where=where), abs=1e-15)
