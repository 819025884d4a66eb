"""The depth-limited Coup game on the public tree (coupsolve.depth.public): its leaves are the history
tree's, and it is the same game as the history tree's graft, policy for policy and iterate for iterate."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import solvers
import coupsolve
from coupsolve import Rules, depth
from coupsolve.depth.public import history_order, public_depth_limited_game, public_leaves
from coupsolve.trees.stepwalk.build import build_public_tree
from solvers.cfr.algorithms import get_algorithm
from solvers.trees.derive import chance_reach
from solvers.history.best_response import exploitability_of
from solvers.public.rep import PublicTreeRep


pytestmark = pytest.mark.xdist_group("depth")
CUT, FULL = Rules.two_player_selection(turn_limit=1), Rules.two_player_selection(turn_limit=2)


@pytest.fixture(scope="module")
def games():
    cut, full = coupsolve.build_coup_tree(CUT, leaves=True), coupsolve.build_coup_tree(FULL)
    blueprint = solvers.solve(full.tree, algorithm="hs-pcfr+", iterations=30, progress=False).average_policy
    values = depth.values_from_longer_game(cut.tree, cut.leaf_node, full, blueprint, 4,
                                           where=depth.node_map(cut.tree, full.tree))
    public = public_depth_limited_game(CUT, values, cut, cut_public=build_public_tree(CUT))
    history = depth.depth_limited_game(CUT, values, cut=cut)
    return cut, history, public, _perm(cut, history, public)


def _perm(cut, history, public):
    perm = history_order(public, cut, cut.infoset_hashes())
    T, P = history.tree, public.tree
    assert np.array_equal(P.infoset_actions[perm], T.infoset_actions)
    assert np.array_equal(np.sort(perm), np.arange(P.num_actions))
    return perm


def test_public_leaves_hold_the_history_leaves(games):
    cut, _, public, _ = games
    f = public.cut.tree.flat
    assert len(public.leaves) < len(cut.leaf_node)
    pairs = public.choices.pairs
    w = chance_reach(cut.tree)
    assert pairs.weight.sum() == pytest.approx(w[cut.leaf_node].sum(), rel=1e-12)
    for p in (0, 1):
        seen = set()
        for z in public.leaves:
            lo, n0, hi = f.entry_start[z], f.num_entries0[z], f.entry_start[z + 1]
            seen |= set(public.cut.entry_hash[lo:lo + n0] if p == 0 else public.cut.entry_hash[lo + n0:hi])
        assert seen == set(cut.leaf_key[:, p, 0].tolist())
    # the terminals that are not leaves are the games someone won
    ended = np.setdiff1d(np.flatnonzero(f.node_kind == solvers.TERMINAL), public.leaves)
    assert ended.size and all((public.cut.entry_hand[f.entry_start[z]:f.entry_start[z + 1]] == 0).any()
                              for z in ended)


def test_the_public_game_solves_as_the_history_game(games):
    """Same exploitability and value after the same iterations (the policies themselves may differ
    where two actions tie exactly: the trees sum in different orders, and a tie is broken by
    rounding)."""
    _, history, public, perm = games
    a = solvers.solve(history.tree, algorithm="hs-pcfr+", iterations=40, progress=False)
    b = solvers.solve(public.tree, algorithm="hs-pcfr+", iterations=40, progress=False)
    assert solvers.exploitability(history.tree, b.average_policy[perm]) == pytest.approx(b.exploitability, rel=1e-9)
    assert b.exploitability == pytest.approx(a.exploitability, rel=1e-9)
    assert b.game_value[0] == pytest.approx(a.game_value[0], abs=1e-12)
    assert np.array_equal(public.cut_policy(b.average_policy), b.average_policy[:public.cut.tree.num_actions])


@pytest.mark.parametrize("algorithm", ["hs-dcfr", "pcfr+"])
def test_the_public_game_cut_into_parts_iterates_as_the_whole(games, algorithm):
    """The graft is a public tree like any other: cut into a trunk and parts (what a Ray cluster's
    actors hold, :class:`solvers.pieces.parts.LocalBackend` in this process), wherever the cut falls
    among the leaves' choice levels, it gives the whole tree's iterates, number for number."""
    from solvers.pieces.parts import LocalBackend
    from solvers.pieces.split import choose_depth

    _, _, public, _ = games
    whole = solvers.solve(public.tree, algorithm=algorithm, iterations=12, progress=False)
    deepest = choose_depth(public.tree, 2)
    f = public.tree.flat
    level = np.searchsorted(f.level_start, public.choices.leaf_decision, side="right") - 1
    assert {deepest, deepest + 1} <= set(level.tolist())  # each cut below falls at a leaf's choices
    for parts, at in ((2, None), (3, deepest), (2, deepest + 1)):
        cut = solvers.solve(public.tree, algorithm=algorithm, iterations=12, progress=False,
                            backend=LocalBackend(parts, split_depth=at))
        assert np.array_equal(cut.average_policy, whole.average_policy)
        assert cut.exploitability == whole.exploitability and np.array_equal(cut.game_value, whole.game_value)


def test_the_graft_reads_no_less_than_the_least_reads(games):
    """The benchmark's floor (``benchmarks.depth_limited.least_reads_ratio``) holds for the graft, one
    exact layout of the same game: its leaves' cells are the K * K values of every pair, and its pass
    reads at least the floor's share more than the plain cut's."""
    from benchmarks.depth_limited import least_reads_ratio, pass_reads

    _, _, public, _ = games
    k0, k1 = public.choices.num_continuations
    g = public.tree.flat
    first = g.matrix_start.size - 1 - len(public.leaves)  # the leaves' matrices come last
    assert g.matrix_start[-1] - g.matrix_start[first] == k0 * k1 * public.choices.pairs.leaf.size
    least = least_reads_ratio(public.cut, k0)
    assert least > 1 and pass_reads(public.tree) >= least * pass_reads(public.cut.tree)


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_any_policy_is_as_exploitable_on_both(games, seed):
    """Every leaf value enters the best responses: a random policy's exploitability agrees."""
    _, history, public, perm = games
    rng = np.random.default_rng(seed)
    T = history.tree
    x = rng.exponential(size=T.num_actions) * (rng.random(T.num_actions) < 0.8) + 1e-3
    sigma = x / np.repeat(np.add.reduceat(x, T.infoset_offset), T.infoset_num_actions)
    public_sigma = np.empty_like(sigma)
    public_sigma[perm] = sigma
    rep = PublicTreeRep(public.tree, get_algorithm("cfr+"), "float64", "alternating", 1)
    br = [rep.best_choices(public_sigma, p)[0] for p in (0, 1)]
    assert exploitability_of(br[0], br[1], 0.0) == pytest.approx(solvers.exploitability(T, sigma), rel=1e-10)


def test_cut_at_the_real_end_is_the_plain_public_solve(games):
    """Leaves valued by the turn-limit payoff: the plain public solve, iterate for iterate."""
    cut, _, public, _ = games
    values = depth.values_from_longer_game(cut.tree, cut.leaf_node, cut, cut.tree.uniform_policy(), 1)
    g = public_depth_limited_game(CUT, values, cut, cut_public=public.cut)
    a = solvers.solve(public.cut.tree, iterations=30, progress=False)
    b = solvers.solve(g.tree, iterations=30, progress=False)
    assert g.cut_policy(b.average_policy) == pytest.approx(a.average_policy, abs=1e-9)
    assert b.exploitability == pytest.approx(a.exploitability, abs=1e-9)


def test_values_per_state_join_as_values_per_leaf(games):
    """Leaf values kept one row per distinct state (``row_of``, as the rollouts give them) join to the
    same pair values as the same values written out per leaf."""
    from coupsolve.depth.public import public_leaf_values

    cut, history, public, _ = games
    lv = history.leaf_values
    rng = np.random.default_rng(3)
    row_of = rng.integers(0, 500, len(lv.leaves))
    rows = rng.normal(size=(500,) + lv.values.shape[1:])
    packed = lv._replace(values=rows, row_of=row_of)
    assert np.array_equal(packed.per_leaf(), rows[row_of])
    a = public_leaf_values(public.cut, public.leaves, cut, packed)[1]
    b = public_leaf_values(public.cut, public.leaves, cut, lv._replace(values=rows[row_of]))[1]
    assert np.allclose(a, b, rtol=1e-12, atol=1e-15)
    # summed by pair first (so the history tree can be let go), then joined: the same values
    from coupsolve.depth.public import history_pairs

    summed = history_pairs(cut, packed)
    assert summed.keys.size == public.choices.pairs.leaf.size
    assert np.array_equal(public_leaf_values(public.cut, public.leaves, summed)[1], a)
    again = public_depth_limited_game(CUT, lv, history_pairs(cut, lv), cut_public=public.cut)
    assert np.array_equal(again.choices.pairs.weight, public.choices.pairs.weight)
    assert again.tree.num_nodes == public.tree.num_nodes
    assert np.array_equal(again.tree.flat.matrix_data, public.tree.flat.matrix_data)


def test_refusals(games):
    cut, history, public, _ = games
    with pytest.raises(ValueError, match="information sets on the history tree"):
        history_order(public, cut, cut.infoset_hashes()[1:])
    with pytest.raises(ValueError, match="no public one with its hash"):
        history_order(public, cut, cut.infoset_hashes() + np.uint64(1))
    with pytest.raises(ValueError, match="no entry hashes"):  # as the class walk builds it
        public_depth_limited_game(CUT, history.leaf_values, cut, cut_public=public.cut._replace(entry_hash=None))
    short = history.leaf_values._replace(leaves=history.leaf_values.leaves[1:],
                                         values=history.leaf_values.values[1:])
    with pytest.raises(ValueError, match="not for this cut game's leaves"):
        public_depth_limited_game(CUT, short, cut, cut_public=public.cut)
    with pytest.raises(ValueError, match="other rules"):
        public_depth_limited_game(CUT, history.leaf_values, cut, cut_public=public.cut._replace(
            rules=Rules.two_player_selection(turn_limit=1, starting_seat="p1")))
    assert public_leaves(public.cut).size == len(public.leaves)


def test_the_analysis_on_the_public_game_is_the_history_games(games):
    """Rates, values and continuation shares of one policy, read on both trees."""
    from coupsolve.analysis import analyse

    _, history, public, perm = games
    b = solvers.solve(public.tree, algorithm="hs-pcfr+", iterations=20, progress=False).average_policy
    a = b[perm]
    mine, theirs = analyse(public.coup_tree, b), analyse(history.coup_tree, a)
    assert mine.game_value == pytest.approx(theirs.game_value, abs=1e-12)
    for turn in (0, 1):
        rows = mine.by_turn[1] if turn else mine.claims
        other = theirs.by_turn[1] if turn else theirs.claims
        for field in ("made", "bluff", "challenged", "challenge_success"):
            assert [getattr(r, field) for r in rows] == pytest.approx([getattr(r, field) for r in other],
                                                                      abs=1e-9, nan_ok=True), field
    assert sum(r.made for r in mine.by_turn[1]) > 0.9
    for p in (0, 1):
        assert public.leaf_choice(b)[p] == pytest.approx(history.leaf_choice(a)[p], abs=1e-12)
    assert public.coup_tree.infoset_hash.size == public.tree.num_infosets


def test_build_lets_the_history_tree_go_before_the_public_tree(games, monkeypatch):
    """Even when a reference cycle still holds it (as the frames of a first run's compilation do), the
    history tree is freed before the public tree is built, so the two never share the memory."""
    import gc
    import weakref

    from coupsolve.depth import build as build_mod

    cut, _, public, _ = games
    seen = {}

    def fake_leaf_values(tree, *args, **kwargs):
        seen["tree"] = weakref.ref(tree)
        cycle = {"tree": tree}
        cycle["self"] = cycle  # only the cyclic garbage collector frees this
        return public.leaf_values._replace(leaves=tree.leaf_node.copy())

    def fake_join(rules, values, pairs, **kwargs):
        seen["alive"] = seen["tree"]() is not None
        return "joined"

    monkeypatch.setattr(build_mod, "open_blueprint", lambda source, rules: ("solved", rules))
    monkeypatch.setattr(build_mod, "leaf_values", fake_leaf_values)
    monkeypatch.setattr("coupsolve.depth.public.join_leaves", fake_join)
    monkeypatch.setattr("coupsolve.depth.public.public_depth_limited_game", lambda rules, values, joined: joined)
    gc.disable()  # else a collection at any moment might free it without build's help
    try:
        assert build_mod.build(CUT, "blueprint.npz", 4, representation="public") == "joined"
    finally:
        gc.enable()
    assert seen["alive"] is False
