"""Exact leaf values of a features blueprint (:mod:`coupsolve.depth.exact`): the rest of the game as
a Markov chain over turn starts, checked against the exact backward pass of the longer tree and
against rollouts of the same strategy."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import coupsolve
from coupsolve import Rules, depth
from coupsolve.depth.exact import values_exact
from coupsolve.sampling.keys import KEY_VERSION

CUT = Rules.two_player_selection(turn_limit=1, limit_payoff="influence")
FULL = Rules.two_player_selection(turn_limit=2, limit_payoff="influence")
LONGER = Rules.two_player_selection(turn_limit=3, limit_payoff="influence")


def _features_solver(rules, iterations, seed=5):
    from coupsolve.sampling.game import sampling_game
    from solvers.mccfr.solver import MCCFRSolver

    solver = MCCFRSolver(sampling_game(rules, abstraction="features"), max_infosets=1 << 18, seed=seed)
    solver.step(iterations)
    return solver


def _meta(rules):
    return {"rules": rules.to_dict(), "abstraction": "features", "features_key": KEY_VERSION}


@pytest.fixture(scope="module")
def cut():
    return coupsolve.build_coup_tree(CUT, leaves=True)


@pytest.fixture(scope="module")
def exact_one_turn(cut):
    """A features strategy of the turn-limit-2 game, its exact values by the longer tree, and by the
    chain, for 1, 2 and 4 continuations."""
    from solvers.mccfr.policy import tree_policy

    full = coupsolve.build_coup_tree(FULL)
    solver = _features_solver(FULL, 200)
    policy = tree_policy(solver, full.tree)
    by_tree = {k: depth.values_from_longer_game(cut.tree, cut.leaf_node, full, policy, k) for k in (1, 2, 4)}
    by_chain = {k: values_exact(cut, solver, _meta(FULL), k) for k in (1, 2, 4)}
    return by_tree, by_chain


@pytest.mark.xdist_group("depth_exact")
def test_the_chain_gives_the_longer_trees_values(exact_one_turn):
    """Every leaf, every pair of continuations, the influence payoff at the limit included: the
    chain's values are the backward pass's (one turn left: what the turn's ends and its limit pay)."""
    by_tree, by_chain = exact_one_turn
    for k in (1, 2, 4):
        values = by_chain[k]
        assert values.values.shape == (values.states, k, k) and not values.stderr.any()
        assert np.abs(values.per_leaf() - by_tree[k].values).max() < 1e-12
        assert by_tree[k].values.std() > 0.1  # the values are not all alike: the check can fail


@pytest.mark.xdist_group("depth_exact")
@settings(max_examples=6, deadline=None)
@given(k=st.sampled_from((1, 2, 4)), c0=st.integers(0, 3), c1=st.integers(0, 3))
def test_a_pair_of_continuations_has_the_same_value_whatever_else_is_offered(exact_one_turn, k, c0, c1):
    """The value of a pair of continuations does not depend on how many others the chain carries."""
    by_chain = exact_one_turn[1]
    c0, c1 = min(c0, k - 1), min(c1, k - 1)
    assert np.array_equal(by_chain[k].per_leaf()[:, c0, c1], by_chain[4].per_leaf()[:, c0, c1])


@pytest.mark.slow  # one turn of it in the default run: test_depth's test_rollout_values_agree_with_the_exact_ones
@pytest.mark.xdist_group("depth_exact")
def test_the_chain_over_two_turns_agrees_with_rollouts(cut):
    """Two turns after the cut (one sweep of the chain, whose states were found breadth first and
    grown past their first arrays): the rollouts' errors against the chain have a mean within their
    standard error, per pair of continuations, and a spread of about one standard error."""
    from coupsolve.depth.rollouts import values_from_trained

    solver = _features_solver(LONGER, 300)  # the seed of longer_blueprint's: its own test
    exact = values_exact(cut, solver, _meta(LONGER), 2)
    est = values_from_trained(cut, solver, _meta(LONGER), 2, rollouts=16, seed=3, threads=2)
    assert np.array_equal(exact.row_of, est.row_of)
    diff = est.values - exact.values
    for c0 in range(2):
        for c1 in range(2):
            se = np.sqrt((est.stderr[:, c0, c1] ** 2).sum()) / len(diff)
            assert abs(diff[:, c0, c1].mean()) < 4 * se, (c0, c1, diff[:, c0, c1].mean(), se)
    ok = est.stderr > 1e-9
    z = diff[ok] / est.stderr[ok]
    assert ok.mean() > 0.5 and 0.85 < z.std() < 1.25, z.std()


@pytest.fixture(scope="module")
def longer_blueprint(tmp_path_factory):
    """A features strategy of the turn-limit-3 game, in memory and as a training's file."""
    from coupsolve.strategy.trained import key_version, save_trained

    solver = _features_solver(LONGER, 300)
    solver.notes["features_key"] = key_version()  # as a training's run says
    path = tmp_path_factory.mktemp("blueprint") / "longer.npz"
    save_trained(solver, str(path), LONGER, "features", "external")
    return solver, path


@pytest.fixture(scope="module")
def longer_cut():
    return coupsolve.build_coup_tree(FULL, leaves=True)


@pytest.mark.xdist_group("depth_exact")
def test_the_chain_is_the_same_whatever_threads_build_it(cut, longer_blueprint, monkeypatch):
    """Threads walk ranges of states and one of them numbers what they found in order: one thread,
    two, and two with ranges of three states and buffers that fill after a few (the rest walked
    again) give the same chain and the same values, to the last bit (from 300 leaf states, two turns
    deep)."""
    from coupsolve.depth import exact
    from solvers.mccfr.chain import ROOM

    _, game, _, (_, _, states, hashes, _) = exact.leaf_game(cut, _meta(LONGER), 2)
    args = (game, longer_blueprint[0].lookup_arrays(), False, states[:300], hashes[:300], 2, 2)
    one, facts = exact.chain_values(*args)
    two, facts_two = exact.chain_values(*args, threads=2)
    monkeypatch.setattr(exact, "BATCH", 3)
    monkeypatch.setattr(exact, "BUFFER", ROOM + 40)
    small, facts_small = exact.chain_values(*args, threads=2)
    assert facts["states"] > 10 * 300 and facts["edges"] > facts["states"]  # a chain with levels to number
    for f in (facts_two, facts_small):
        assert (f["states"], f["edges"]) == (facts["states"], facts["edges"])
    assert np.array_equal(one, two) and np.array_equal(one, small) and one.std() > 0.1


@pytest.mark.slow  # the one step from kept values in the default run: the command line's cuts sharing them, below
@pytest.mark.xdist_group("depth_exact")
def test_a_cut_one_turn_shorter_takes_one_step_from_the_kept_values(cut, longer_blueprint, longer_cut):
    """The values of a cut's leaf states kept (by their keys) give a cut one turn shorter its exact
    values in one step from its own turns: the same as its whole chain. When a turn start its turns
    reach is not among them, the chain is built on, with the same values."""
    solver = longer_blueprint[0]
    kept = {}
    values_exact(longer_cut, solver, _meta(LONGER), 2, keep=lambda keys, values: kept.update(keys=keys, values=values))
    order = np.argsort(kept["keys"])
    known = kept["keys"][order], kept["values"][order]
    whole = values_exact(cut, solver, _meta(LONGER), 2)
    fast = values_exact(cut, solver, _meta(LONGER), 2, known=known)
    assert "a chain of" in whole.source and "kept values" in fast.source
    assert np.abs(fast.values - whole.values).max() < 1e-12 and whole.values.std() > 0.1
    half = known[0][::2], known[1][::2]
    built_on = values_exact(cut, solver, _meta(LONGER), 2, known=half)
    assert "a chain of" in built_on.source and np.array_equal(built_on.values, whole.values)


@pytest.mark.xdist_group("depth_exact")
def test_the_command_lines_cuts_share_their_turn_starts_through_the_cache(cut, longer_blueprint, longer_cut, tmp_path,
                                                                          monkeypatch):
    """`leaf_values` keeps the turn starts' values of a cut after turn 2 (again when its values are
    read from the cache and they are not kept) and a cut after turn 1 uses them (said so), with the
    values it would have had alone; a damaged file is refused in one line and the chain is built as
    without it."""
    from coupsolve.depth.build import leaf_values

    monkeypatch.setenv("COUPSOLVE_CACHE_DIR", str(tmp_path))
    said = []
    path, longer = str(longer_blueprint[1]), longer_cut
    leaf_values(longer, path, 2, rollouts=0, say=said.append, threads=1)
    kept = list(tmp_path.glob("turn-starts-*.npz"))
    first = kept[0].read_bytes()
    kept[0].unlink()
    leaf_values(longer, path, 2, rollouts=0, say=said.append, threads=1)
    assert any("read from the cache" in line for line in said) and kept[0].read_bytes() == first
    fast = leaf_values(cut, path, 2, rollouts=0, say=said.append, threads=1)
    assert any("kept by a cut one turn longer" in line for line in said)
    kept[0].write_bytes(kept[0].read_bytes()[:-100])
    for old in tmp_path.glob("leaf-values-*.npz"):
        old.unlink()
    said.clear()
    alone = leaf_values(cut, path, 2, rollouts=0, say=said.append, threads=1)  # its own chain
    assert any("ignoring the cached turn starts' values" in line for line in said), said
    assert np.abs(fast.per_leaf() - alone.per_leaf()).max() < 1e-12 and alone.values.std() > 0.1


def test_a_blueprint_keyed_by_its_histories_is_refused(cut):
    """Exact keys make the rest of the game depend on the history: not a chain over turn starts."""
    with pytest.raises(ValueError, match="features"):
        values_exact(cut, None, {"rules": FULL.to_dict(), "abstraction": "exact"}, 1)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 12), width=st.integers(1, 4), kk=st.sampled_from((1, 4)))
def test_sweeps_settle_on_the_chains_value(seed, n, width, kk):
    """On a random chain whose rows sum to less than 1 (every state may end): each sweep returns its
    largest change, the changes never grow, and the values settle on ``(I - T)^-1 term``."""
    from solvers.mccfr.chain import sweep

    rng = np.random.default_rng(seed)
    succ = rng.integers(0, n, size=(n, width)).astype(np.int32).ravel()
    prob = (rng.dirichlet(np.ones(width + 1), size=(n, kk))[..., :width] * 0.9).transpose(0, 2, 1)
    prob = np.ascontiguousarray(prob.reshape(n * width, kk), dtype=np.float32)
    row_start = np.arange(0, n * width + 1, width, dtype=np.int64)
    term = rng.uniform(-1, 1, size=(n, kk))
    old, new = term.copy(), np.empty_like(term)
    last = np.inf
    for _ in range(400):
        change = sweep(row_start, succ, prob, term, old, new)
        assert change == pytest.approx(np.abs(new - old).max(), abs=1e-15) and change <= last + 1e-12  # rounding
        last, (old, new) = change, (new, old)
    for c in range(kk):
        T = np.zeros((n, n))
        np.add.at(T, (np.repeat(np.arange(n), width), succ), prob[:, c].astype(np.float64))
        assert np.allclose(old[:, c], np.linalg.solve(np.eye(n) - T, term[:, c]), atol=1e-9)
