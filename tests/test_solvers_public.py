"""The public-tree solver against the history solver: same iterates, same exploitability.

Kuhn and Leduc poker (Liar's Dice behind ``slow``) and hypothesis-generated games with a random public
partition are solved both ways for a few iterations with every algorithm and both update schemes; the
average and current policies must agree to 1e-9 after every iteration, and the exploitability too (a
random game is compared until an iteration leaves regrets of rounding-noise size: regret matching then
picks the uniform or a pure strategy by the last bit, in either solver). Published values: Kuhn poker's -1/18, and OpenSpiel's own
exploitability of the public tree's policy.
"""

import os
import random
from types import SimpleNamespace

import numpy as np
import pyspiel
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from open_spiel.python.algorithms import exploitability as os_exploitability

import solvers
from solvers import GameTree, PublicTree, Solver
from solvers.trees.matrices import dense_matrix, sparse_matrices
from solvers.trees.derive import hidden_chance_labels, openspiel_labels

ALGORITHMS = ["cfr", "cfr+", "lcfr", "dcfr", "pcfr+", "hs-dcfr", "hs-pcfr+"]
UPDATES = ["alternating", "simultaneous"]
TIE = 1e-12  # regrets this small are rounding noise


def _pair(name):
    game = pyspiel.load_game(name)
    tree = GameTree.from_openspiel(game)
    return game, tree, PublicTree.from_game_tree(tree, openspiel_labels(game))


@pytest.fixture(scope="module")
def kuhn():
    return _pair("kuhn_poker")


@pytest.fixture(scope="module")
def leduc():
    return _pair("leduc_poker")


def assert_same_iterates(tree, public, algorithm, updates, iterations):
    """Step both solvers together and compare after every iteration; returns the iterations compared.

    Stops early after an iteration that leaves an information set's regrets all at rounding-noise
    size (below ``TIE`` but not identical in both): regret matching turns +1e-17 into a pure
    strategy and 0 into the uniform one, so from there on the two runs may legitimately part (the
    average policy of that iteration is still compared: it uses the strategies played).
    """
    a = Solver(tree, algorithm, updates=updates)
    b = Solver(public, algorithm, updates=updates)
    for done in range(1, iterations + 1):
        a.step(1)
        b.step(1)
        ra, rb = a.representation.get_state()["regret"], b.representation.get_state()["regret"]
        size = np.maximum.reduceat(np.maximum(np.abs(ra), np.abs(rb)), tree.infoset_offset)
        same = np.minimum.reduceat((ra == rb).astype(np.int8), tree.infoset_offset) == 1
        gap = np.maximum.reduceat(np.abs(a.current_policy() - b.current_policy()),
                                  tree.infoset_offset)
        # noise that regret matching turned into a choice; a predictive algorithm also adds the last
        # instantaneous regrets, so there identical zero regrets can hide noise of its own
        tie = (size < TIE) & (~same | ("pcfr" in algorithm)) & (gap > 1e-9)
        # the average weights, to rounding at their own scale (hs-pcfr+ weighs iteration t by about
        # t**30, and the two trees sum in different orders); an information set whose weights are all
        # of rounding size has no average to compare
        ca, cb = a.representation.get_state()["cumulative"], b.representation.get_state()["cumulative"]
        scale = max(float(np.abs(ca).max(initial=0.0)), 1.0)
        np.testing.assert_allclose(cb, ca, atol=1e-11 * scale, rtol=0)
        weighed = np.repeat(np.add.reduceat(np.abs(ca), tree.infoset_offset) > 1e-9 * scale,
                            tree.infoset_num_actions)
        np.testing.assert_allclose(b.average_policy()[weighed], a.average_policy()[weighed], atol=1e-9,
                                   rtol=0)
        assert abs(b.exploitability() - a.exploitability()) < 1e-9
        assert abs(b.evaluate()[1] - a.evaluate()[1]) < 1e-9
        if np.any(tie):  # the new strategies (of everybody updated after it) may now differ
            return done
        np.testing.assert_allclose(b.current_policy(), a.current_policy(), atol=1e-9, rtol=0)
    return iterations


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("updates", UPDATES)
def test_kuhn_and_leduc_iterates_equal_the_history_solver(kuhn, leduc, algorithm, updates):
    for _, tree, public in (kuhn, leduc):
        assert assert_same_iterates(tree, public, algorithm, updates, 7) == 7


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("updates", UPDATES)
def test_iterations_in_one_call_equal_one_call_each(leduc, algorithm, updates):
    """A call of several iterations recomputes only the reach of the player updated last between
    passes; iterations one call each recompute every entry's. Both give the same arrays, bit for bit."""
    _, _, public = leduc
    a = Solver(public, algorithm, updates=updates)
    b = Solver(public, algorithm, updates=updates)
    a.step(9)
    for _ in range(9):
        b.step(1)
    for name, x in a.representation.get_state().items():
        assert np.array_equal(x, b.representation.get_state()[name]), name


def test_forward_for_one_player_writes_only_that_players_entries(leduc):
    from solvers.public._forward import forward, no_live

    _, _, public = leduc
    flat, sigma = public.flat, Solver(public, "cfr+").representation.state.sigma
    rng = np.random.default_rng(3)
    sigma = rng.random(sigma.shape[0])
    whole = np.empty(public.num_entries)
    forward(flat, sigma, whole, False, 2, no_live())  # BOTH_PLAYERS
    first = np.repeat(np.arange(public.num_nodes), np.diff(flat.entry_start))
    mine = (np.arange(public.num_entries) - flat.entry_start[first]) < flat.num_entries0[first]
    for q, owned in ((0, mine), (1, ~mine)):
        for parallel in (False, True):
            reach = np.full(public.num_entries, -7.0)
            forward(flat, sigma, reach, parallel, q, no_live())
            assert np.array_equal(reach[owned], whole[owned])
            assert np.all(reach[~owned & (np.arange(public.num_entries) >= flat.entry_start[1])]
                          == -7.0)


def test_the_passes_skip_the_nodes_the_opponent_does_not_reach(leduc):
    """After CFR+ has dropped actions, the forward pass's codes are those of the reach (a node is
    LIVE where its player has reach at one of its entries, BELOW where its parent is not LIVE), some
    nodes go unread by the backward pass, and the iterates are still the history solver's."""
    from solvers.public._forward import BELOW, LIVE, SILENT, forward

    _, tree, public = leduc
    assert assert_same_iterates(tree, public, "cfr+", "alternating", 12) >= 10
    solver = Solver(public, "cfr+")
    solver.step(12)
    S, flat = solver.representation.state, public.flat
    forward(flat, S.sigma, S.reach, False, 2, S.live)
    parent = np.full(public.num_nodes, -1)
    for s in np.flatnonzero(flat.node_kind != solvers.TERMINAL):
        parent[flat.child_start[s]:flat.child_start[s] + flat.num_children[s]] = s
    for q in (0, 1):
        for s in range(public.num_nodes):
            b = flat.entry_start[s] + (0 if q == 0 else flat.num_entries0[s])
            e = flat.entry_start[s] + flat.num_entries0[s] if q == 0 else flat.entry_start[s + 1]
            want = LIVE if np.any(S.reach[b:e] != 0) else SILENT
            if want == SILENT and parent[s] >= 0 and S.live[2 * parent[s] + q] != LIVE:
                want = BELOW
            assert S.live[2 * s + q] == want
    assert np.sum(S.live == SILENT) > 0 and np.sum(S.live == BELOW) > 0


@pytest.mark.slow
@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_liars_dice_iterates_equal_the_history_solver(algorithm):
    _, tree, public = _pair("liars_dice")
    for updates in UPDATES:
        assert assert_same_iterates(tree, public, algorithm, updates, 5) >= 1


def test_kuhn_value_and_openspiel_exploitability(kuhn):
    game, tree, public = kuhn
    result = solvers.solve(public, "cfr+", iterations=3000, progress=False)
    assert abs(result.game_value[0] - (-1.0 / 18.0)) < 1e-3
    theirs = os_exploitability.exploitability(game, result.to_openspiel_policy(game))
    assert abs(theirs - result.exploitability) < 1e-12
    assert result.exploitability < 1e-4


def test_checkpoint_resume_continues_bit_for_bit(leduc, tmp_path):
    _, _, public = leduc
    path = os.fspath(tmp_path / "c.npz")
    s = Solver(public, "dcfr")
    s.step(6)
    s.save(path)
    r = Solver.load(path, public)
    s.step(4)
    r.step(4)
    assert np.array_equal(s.average_policy(), r.average_policy())
    assert np.array_equal(s.current_policy(), r.current_policy())


def test_float32_keeps_every_buffer_in_float32(leduc):
    """A float32 solve on a public tree holds its per-action state in float32 too, and the memory
    figure counts 4 bytes a buffer where float64 counts 8 (nothing runs: no kernel compiles)."""
    _, _, public = leduc
    state = Solver(public, "pcfr+", precision="float32").representation.state
    assert {x.dtype for x in state[:8]} == {np.dtype(np.float32)}
    assert all(x.size for x in state[:8])  # PCFR+: the prediction buffers too
    est = solvers.public.rep.estimate_public_solve_bytes
    assert est(0, 1, "float64") - est(0, 1, "float32") == 5 * 4
    assert est(1, 0, "float64", True) - est(1, 0, "float32", True) == 3 * 4
    assert est(0, 1, "float32", True) - est(0, 1, "float32") == 4


@pytest.mark.slow  # compiles the public kernels for float32 (minutes, cold)
@pytest.mark.parametrize("algorithm", ["cfr+", "pcfr+"])
def test_float32_tracks_float64_and_resumes(leduc, tmp_path, algorithm):
    """The float32 solve's exploitability stays near the float64 solve's (CFR+'s regret matching
    amplifies rounding, so the policies drift apart where little is at stake), its own float32
    evaluation agrees with the history tree's float64 one, and a checkpoint resumes it bit for bit."""
    _, tree, public = leduc
    a = Solver(public, algorithm)
    b = Solver(public, algorithm, precision="float32")
    a.step(200)
    b.step(200)
    assert b.average_policy().dtype == np.float64
    assert abs(b.exploitability() - a.exploitability()) < 0.1 * a.exploitability()
    assert abs(b.exploitability() - solvers.exploitability(tree, b.average_policy())) < 1e-5
    path = os.fspath(tmp_path / "c32.npz")
    b.save(path)
    r = Solver.load(path, public, precision="float32")  # speed options are the caller's
    b.step(5)
    r.step(5)
    assert np.array_equal(b.average_policy(), r.average_policy())
    assert np.array_equal(b.current_policy(), r.current_policy())


def test_strategy_files_record_the_public_tree(kuhn, leduc, tmp_path):
    """A strategy solved on a public tree is read back only onto that public tree: its digest and its
    tree type are recorded (a history tree of the same layout is refused)."""
    _, tree, public = kuhn
    path = os.fspath(tmp_path / "s.npz")
    result = solvers.solve(public, iterations=5, progress=False)
    result.save(path)
    back = solvers.SolveResult.load(path, tree=public)
    assert np.array_equal(back.average_policy, result.average_policy)
    with pytest.raises(ValueError, match="PublicTree, not on a GameTree"):
        solvers.SolveResult.load(path, tree=tree)
    assert solvers.SolveResult.load(path).tree is None  # readable without a tree


def test_sizes_are_those_of_the_game(kuhn, leduc):
    for _, tree, public in (kuhn, leduc):
        assert public.num_infosets == tree.num_infosets
        assert np.array_equal(public.infoset_actions, tree.infoset_actions)
        decisions = int(np.count_nonzero(tree.node_kind == solvers.DECISION))
        assert public.num_histories == decisions
        assert public.num_nodes < tree.num_nodes
    # Kuhn: 1 root + 1 dealt-to-p0 + 1 dealt-to-p1, then the public betting sequences
    assert kuhn[2].num_nodes == 3 + 8


def test_labels_revealing_a_private_card_are_refused(kuhn):
    _, tree, _ = kuhn
    every_chance_public = hidden_chance_labels(tree, public_chance_depth=0)
    with pytest.raises(ValueError, match="spans public nodes"):
        PublicTree.from_game_tree(tree, every_chance_public)
    with pytest.raises(ValueError, match="one entry per history"):
        PublicTree.from_game_tree(tree, np.zeros(3, np.int64))


def test_broken_arrays_are_refused(kuhn):
    _, _, public = kuhn
    arrays = {name: getattr(public.flat, name) for name in public.flat._fields}
    bad = dict(arrays, num_children=arrays["num_children"][:-1])
    with pytest.raises(ValueError, match="num_children"):
        PublicTree("x", infoset_actions=public.infoset_actions, **bad)
    bad = dict(arrays, term_matrix=np.where(arrays["term_matrix"] >= 0, 99, -1))
    with pytest.raises(ValueError, match="matrix"):
        PublicTree("x", infoset_actions=public.infoset_actions, **bad)
    col = arrays["cell_col"].copy()
    col[-1] = arrays["matrix_cols"][-1]
    with pytest.raises(ValueError, match="column is outside its matrix"):
        PublicTree("x", infoset_actions=public.infoset_actions, **dict(arrays, cell_col=col))
    ptr = arrays["row_ptr"].copy()
    ptr[-1] += 1
    with pytest.raises(ValueError, match="row pointers must go from 0"):
        PublicTree("x", infoset_actions=public.infoset_actions, **dict(arrays, row_ptr=ptr))
    mid = int(arrays["matrix_rowp"][0]) + 1  # a middle pointer of the first matrix (2 rows)
    ptr = arrays["row_ptr"].copy()
    ptr[mid] = ptr[mid + 1] + 1
    with pytest.raises(ValueError, match="must not decrease"):
        PublicTree("x", infoset_actions=public.infoset_actions, **dict(arrays, row_ptr=ptr))
    row = arrays["entry_ref"].copy()
    z = int(np.flatnonzero(arrays["node_kind"] == solvers.TERMINAL)[0])
    row[arrays["entry_start"][z]] = 99
    with pytest.raises(ValueError, match="entry_ref is outside"):
        PublicTree("x", infoset_actions=public.infoset_actions, **dict(arrays, entry_ref=row))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4)), min_size=1, max_size=6),
       st.integers(0, 2 ** 31))
def test_sparse_matrices_keep_the_non_zero_cells(shapes, seed):
    """Dense matrices to the sparse layout and back (PublicTree.dense_matrix): the same matrices,
    only their non-zero cells stored, in row order."""
    rng = np.random.default_rng(seed)
    dense = [np.where(rng.random((r, c)) < 0.4, rng.normal(size=(r, c)), 0.0) for r, c in shapes]
    start = np.concatenate(([0], np.cumsum([d.size for d in dense])))
    cols = np.array([c for _, c in shapes])
    flat = np.concatenate([d.ravel() for d in dense])
    sp = sparse_matrices(start, cols, flat)
    assert sp["matrix_data"].shape[0] == np.count_nonzero(flat) and np.all(sp["matrix_data"] != 0)
    for m, d in enumerate(dense):
        assert np.array_equal(dense_matrix(SimpleNamespace(**sp), m).reshape(d.shape), d)
    with pytest.raises(ValueError, match="rows x matrix_cols"):
        sparse_matrices([0, 3], [2], np.ones(3))


# ---------------------------------------------------------------- random games with public events
def random_public_game(seed, max_depth, max_branch):
    """A nested game (``GameTree.from_nested``) and its public labels in the tree's order.

    What kind of node comes next, whose it is and which of its edges are public depend only on the
    public sequence so far (a random generator seeded by it), so every public node is of one kind;
    both players see every public event and that a hidden one happened, and each sees some hidden
    outcomes: each information set then lies in one public node.
    """
    rng = random.Random(seed)
    num_actions = {}

    def node(depth, pub, views):
        r = random.Random(f"{seed}:{pub}")
        if depth == max_depth or (depth > 1 and r.random() < 0.2):
            return ("terminal", float(rng.randint(-3, 3))), []
        public = r.random() < 0.5
        if r.random() < 0.3:
            k = r.randint(2, max_branch)
            weights = [rng.randint(1, 4) for _ in range(k)]
            seen = [rng.random() < 0.5 for _ in range(2)]
            edges, labels = [], []
            for outcome, weight in enumerate(weights):
                event = ("c", outcome) if public else ("c?",)
                child_views = tuple(v + (event,) + ((("seen", outcome),) if s and not public else ())
                                    for v, s in zip(views, seen))
                child, sub = node(depth + 1, pub + (event,), child_views)
                edges.append((weight / sum(weights), child))
                labels.append((outcome if public else -1, sub))
            return ("chance", edges), labels
        player = r.randint(0, 1)
        key = f"P{player}:{views[player]!r}"
        if key not in num_actions:
            num_actions[key] = rng.randint(1, max_branch)
        edges, labels = [], []
        for action in range(num_actions[key]):
            event = ("a", player, action) if public else ("a?", player)
            child_views = list(v + (event,) for v in views)
            child_views[player] += (("own", key, action),)
            child, sub = node(depth + 1, pub + (event,), tuple(child_views))
            edges.append((action, child))
            labels.append((action if public else -1, sub))
        return ("decision", player, key, edges), labels

    root, sub = node(0, (), ((), ()))
    out, level = [-1], sub
    while level:  # breadth first, as GameTree.from_nested numbers the histories
        out.extend(label for label, _ in level)
        level = [item for _, children in level for item in children]
    return root, np.array(out, dtype=np.int64)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), algorithm=st.sampled_from(ALGORITHMS),
       updates=st.sampled_from(UPDATES), iterations=st.integers(1, 9))
@example(seed=857, algorithm="hs-pcfr+", updates="alternating", iterations=3)  # weights of rounding size
@example(seed=11216, algorithm="pcfr+", updates="alternating", iterations=1)  # predictions of rounding size
@example(seed=17168, algorithm="cfr", updates="simultaneous", iterations=1)  # a seen outcome unlike a public one
def test_random_games_with_random_public_partitions(seed, algorithm, updates, iterations):
    root, labels = random_public_game(seed, max_depth=5, max_branch=3)
    if root[0] == "terminal":
        return
    tree = GameTree.from_nested(root, f"random-{seed}")
    public = PublicTree.from_game_tree(tree, labels)
    assert public.num_infosets == tree.num_infosets
    assert_same_iterates(tree, public, algorithm, updates, iterations)
