"""A public tree cut into a trunk and parts, iterated in this process and on a local Ray cluster.

The pieces must cover the tree (every information set and action in exactly one), and iterating them
must give the single-process solver's iterates exactly (each node does the same arithmetic), for
every algorithm, both update schemes and every cut: on Kuhn, Leduc and hypothesis-generated games in
this process, on Leduc (Coup at turn limits 2 and 3 behind ``slow``) on a local Ray cluster of several
worker processes, also after one worker is killed mid-run and when resuming a checkpoint. The
cluster's placement refuses parts that no node can hold, naming the figures.
"""

import os
import signal

import numpy as np
import pyspiel
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import coupsolve
import solvers
from coupsolve.trees.pieces.build import build_class_pieces
from coupsolve.trees.stepwalk.build import build_public_tree
from solvers import GameTree, PublicPieces, PublicTree, Solver
from solvers.cfr.algorithms import get_algorithm
from solvers.trees.derive import openspiel_labels
from solvers.pieces.parts import LocalBackend, PartsRep, local_parts
from solvers.public.rep import PublicTreeRep
from solvers.pieces.groups import group, groups
from solvers.pieces.split import renumbered, split
from test_solvers_public import ALGORITHMS, UPDATES, random_public_game

ray = pytest.importorskip("ray")
from solvers.pieces.ray import RayBackend, _place  # noqa: E402 (needs ray)

# Under pytest-xdist (`make test`) every test that starts a local Ray cluster runs in one worker, one
# after the other: a cold cache's Ray actors compile the parts kernels once, not in two clusters at once.
pytestmark = pytest.mark.xdist_group("ray")


def _public(name):
    game = pyspiel.load_game(name)
    tree = GameTree.from_openspiel(game)
    return PublicTree.from_game_tree(tree, openspiel_labels(game))


@pytest.fixture(scope="module")
def leduc():
    return _public("leduc_poker")


def _levels(tree):
    return tree.level_start.shape[0] - 1


def test_pieces_cover_the_tree_once(leduc):
    for depth in range(1, _levels(leduc) - 1):
        for parts in (1, 2, 5):
            trunk, pieces = split(leduc, depth, parts)
            assert 1 <= len(pieces) <= parts
            infosets = np.concatenate([trunk.infosets] + [q.infosets for q in pieces])
            actions = np.concatenate([trunk.actions] + [q.actions for q in pieces])
            assert np.array_equal(np.sort(infosets), np.arange(leduc.num_infosets))
            assert np.array_equal(np.sort(actions), np.arange(leduc.num_actions))
            roots = [q.roots for q in pieces]  # the parts' roots tile the trunk's leaves
            assert roots[0][0] == trunk.roots[0] and roots[-1][1] == trunk.roots[1]
            assert all(a[1] == b[0] for a, b in zip(roots, roots[1:]))
            entries = trunk.roots[0] + sum(q.flat.entry_parent.shape[0] for q in pieces)
            assert entries == leduc.num_entries


def test_bad_cuts_are_refused(leduc):
    with pytest.raises(ValueError, match="split depth must be 1 .."):
        split(leduc, 0, 2)
    with pytest.raises(ValueError, match="split depth"):
        split(leduc, _levels(leduc), 2)
    with pytest.raises(ValueError, match="parts must be at least 1"):
        split(leduc, 2, 0)


def _assert_same(public, algorithm, updates, depth, parts, iterations):
    spec = get_algorithm(algorithm)
    whole = PublicTreeRep(public, spec, "float64", updates, 1)
    trunk, pieces = split(public, depth, parts)
    cut = PartsRep(public, spec, "float64", updates, 1, trunk, pieces,
                   lambda q, params, precision: local_parts(q, params, precision, 1))
    for _ in range(iterations):
        whole.iterate(1)
        cut.iterate(1)
        assert np.array_equal(whole.current_policy(), cut.current_policy())
        assert np.array_equal(whole.average_policy(), cut.average_policy())
    assert np.allclose(whole.evaluate(), cut.evaluate(), rtol=0, atol=1e-12)
    sigma = whole.average_policy()
    for p in (0, 1):
        a, b = whole.best_response(sigma, p), cut.best_response(sigma, p)
        assert a[0] == pytest.approx(b[0], abs=1e-12) and np.array_equal(a[1], b[1])


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("updates", UPDATES)
def test_parts_in_this_process_give_the_same_iterates(leduc, algorithm, updates):
    for depth, parts in ((1, 1), (3, 2), (6, 4), (_levels(leduc) - 2, 3)):
        _assert_same(leduc, algorithm, updates, depth, parts, 4)


def test_solve_with_the_local_backend_is_the_plain_solve(leduc):
    plain = solvers.solve(leduc, "pcfr+", iterations=5, progress=False)
    cut = solvers.solve(leduc, "pcfr+", iterations=5, progress=False, backend=LocalBackend(3))
    assert np.array_equal(plain.average_policy, cut.average_policy)
    assert cut.exploitability == pytest.approx(plain.exploitability, abs=1e-12)


def test_the_benchmarks_largest_runner_reads_parts_and_groups(leduc):
    """``benchmarks.distributed`` sizes the largest runner of a cut solve, whether its runners hold
    one part (this process) or a group of parts (Ray): it once failed on groups unseen."""
    from benchmarks.distributed import _largest_part
    from solvers.pieces.groups import group_bytes

    one = Solver(leduc, "cfr+").representation
    cut = Solver(leduc, "cfr+", backend=LocalBackend(3)).representation
    sizes = [group_bytes(group([q]), False, "float64") for q in cut.parts]
    assert _largest_part(one) == 0
    assert _largest_part(cut) == max(sizes) > 0
    dealt = cut.parts
    cut.parts = groups(list(dealt), 2)  # as the Ray backend deals them
    assert _largest_part(cut) == max(group_bytes(g, False, "float64") for g in cut.parts)
    assert _largest_part(cut) >= max(sizes)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), algorithm=st.sampled_from(ALGORITHMS),
       updates=st.sampled_from(UPDATES), data=st.data())
def test_random_games_cut_anywhere(seed, algorithm, updates, data):
    root, labels = random_public_game(seed, max_depth=5, max_branch=3)
    if root[0] == "terminal":
        return
    public = PublicTree.from_game_tree(GameTree.from_nested(root, f"random-{seed}"), labels)
    if _levels(public) < 3:
        return
    depth = data.draw(st.integers(1, _levels(public) - 2))
    _assert_same(public, algorithm, updates, depth, data.draw(st.integers(1, 4)), 4)


def _compare(public, backend, algorithm, iterations, kill_at=None):
    """Run the single-process and the Ray solver side by side; returns the Ray representation."""
    a, b = Solver(public, algorithm), Solver(public, algorithm, backend=backend)
    rep = b.representation
    for i in range(iterations):
        a.step(1)
        b.step(1)
        if i == kill_at:
            os.kill(rep.pids()[-1], signal.SIGKILL)
        assert np.abs(a.current_policy() - b.current_policy()).max() <= 1e-12
        assert np.abs(a.average_policy() - b.average_policy()).max() <= 1e-12
    assert b.exploitability() == pytest.approx(a.exploitability(), abs=1e-12)
    rep.close()
    return rep


# pcfr+ and dcfr behind slow: every algorithm's iterates equal one process's in this process
# (test_parts_in_this_process_give_the_same_iterates), and the default run keeps one Ray cluster's worth
@pytest.mark.parametrize("algorithm", ["cfr+", pytest.param("pcfr+", marks=pytest.mark.slow),
                                       pytest.param("dcfr", marks=pytest.mark.slow)])
def test_ray_iterates_equal_and_a_killed_worker_is_recovered(cluster, leduc, algorithm, tmp_path):
    rep = _compare(leduc, RayBackend(workers=3, checkpoint_dir=tmp_path, checkpoint_every=3),
                   algorithm, 8, kill_at=4)
    assert rep.recovered == 1
    # the last complete generation only: every actor's file, then the trunk's
    assert sorted(os.listdir(tmp_path)) == ["part-0-6.npz", "part-1-6.npz", "part-2-6.npz",
                                            "trunk-6.npz"]
    rep = _compare(leduc, RayBackend(workers=2, split_depth=2), algorithm, 5, kill_at=2)
    assert rep.recovered == 1  # no part checkpoints: replayed from the start


def test_ray_resume_continues_the_run(cluster, leduc, tmp_path):
    backend = RayBackend(workers=2)
    path = tmp_path / "run.npz"
    whole = solvers.solve(leduc, "cfr+", iterations=6, progress=False)
    solvers.solve(leduc, "cfr+", iterations=3, progress=False, checkpoint=path, backend=backend)
    resumed = solvers.solve(leduc, "cfr+", iterations=6, progress=False, resume=path,
                            backend=backend)
    assert np.abs(resumed.average_policy - whole.average_policy).max() <= 1e-12


def _coup(turn_limit):
    rules = coupsolve.Rules.two_player_selection(turn_limit=turn_limit, limit_payoff="influence")
    return build_public_tree(rules).tree


@pytest.mark.slow
def test_ray_coup_turn_limit_2(cluster):
    public = _coup(2)
    for algorithm in ("cfr+", "pcfr+"):
        rep = _compare(public, RayBackend(workers=2), algorithm, 3, kill_at=1)
        assert rep.recovered == 1
        assert rep.traffic() > 0


@pytest.mark.slow
def test_ray_coup_turn_limit_3(cluster):
    _compare(_coup(3), RayBackend(workers=2), "cfr+", 2)


def _pieces(public, depth, parts):
    trunk, pieces, _, actions = renumbered(*split(public, depth, parts))
    return PublicPieces(public.game_id, trunk, pieces, public.infoset_actions[actions])


def test_groups_deal_consecutive_parts_balanced(leduc):
    parts = _pieces(leduc, 5, 9).parts
    cost = {id(q): q.flat.entry_parent.shape[0] + (q.actions.stop - q.actions.start) for q in parts}
    total, most = sum(cost.values()), max(cost.values())
    for k in range(1, len(parts) + 3):
        gs = groups(parts, k)
        assert 1 <= len(gs) <= k
        assert [id(q) for g in gs for q in g.pieces] == list(cost)  # every part once, in order
        assert all(a.roots[1] == b.roots[0] for a, b in zip(gs, gs[1:]))
        assert gs[0].actions.start == parts[0].actions.start and \
            gs[-1].actions.stop == parts[-1].actions.stop
        # a boundary is where the running cost crosses a k-th: no group exceeds it by a whole part
        assert max(sum(cost[id(q)] for q in g.pieces) for g in gs) <= total / k + most
    with pytest.raises(ValueError, match="roots follow each other"):
        group([parts[1], parts[0]])


@pytest.mark.slow
def test_ray_solves_public_pieces_like_one_process(cluster, leduc):
    """A tree built in pieces keeps its cut; its parts are dealt out to the actors, and the
    iterates are those of its solve in this process, a killed actor included."""
    pieces = _pieces(leduc, 5, 8)
    assert len(pieces.parts) > 3  # so that some actor runs several
    for algorithm in ("cfr+", "pcfr+"):
        rep = _compare(pieces, RayBackend(workers=3), algorithm, 6, kill_at=3)
        assert rep.recovered == 1
        assert len(rep.parts) == 3 and sum(len(g.pieces) for g in rep.parts) == len(pieces.parts)
    with pytest.raises(ValueError, match="cut at level 5, where it was built"):
        Solver(pieces, "cfr+", backend=RayBackend(workers=2, split_depth=2))


@pytest.mark.slow
def test_ray_coup_built_in_pieces(cluster):
    rules = coupsolve.Rules.two_player_selection(turn_limit=2, limit_payoff="influence")
    built = build_class_pieces(rules, 8, 5)
    pieces = PublicPieces("coup tl2", built.trunk, built.parts, built.infoset_actions)
    rep = _compare(pieces, RayBackend(workers=2), "cfr+", 3, kill_at=1)
    assert rep.recovered == 1


def test_placement_refuses_what_no_node_holds():
    nodes = [{"Resources": {"memory": 100.0}}, {"Resources": {"memory": 60.0}}]
    assert _place([50, 50, 50], nodes) == [0, 1, 0]
    with pytest.raises(MemoryError, match="part 1 needs 120 B and no Ray node has that much"):
        _place([10, 120], nodes)


def test_backend_options_are_checked():
    with pytest.raises(ValueError, match="workers must be at least 1"):
        RayBackend(workers=0)
    with pytest.raises(ValueError, match="checkpoint_dir and checkpoint_every go together"):
        RayBackend(checkpoint_every=3)
