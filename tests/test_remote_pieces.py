"""Coup's public tree built by the Ray workers that solve it (:class:`solvers.RemotePieces`).

The driver walks only the trunk; each actor builds its own parts from the recipe. The result must be
the tree :func:`coupsolve.trees.pieces.build.build_class_pieces` builds in one process from the same plan:
the same trunk, table and digests, the same iterates for every pass (a killed actor rebuilt and
replayed included), the same exploitability, and policy shares that read back as its average policy
and keys.
"""

import os
import re
import runpy
import signal
from pathlib import Path

import numpy as np
import pytest

import coupsolve
import solvers
from coupsolve.trees.classwalk.count import count_class_tree
from coupsolve.trees.pieces.build import PiecesPlan, build_class_pieces
from coupsolve.trees.pieces.remote import ClassRecipe, count_on_ray
from solvers import PublicPieces, Solver
from solvers.pieces.split import piece_bytes
from solvers.pieces.remote import RemotePieces, load_shares

ray = pytest.importorskip("ray")
from solvers.pieces.ray import RayBackend  # noqa: E402 (needs ray)

pytestmark = pytest.mark.xdist_group("ray")  # one local cluster at a time (tests/test_distributed.py)


@pytest.fixture(scope="module")
def plan():
    rules = coupsolve.Rules.two_player_selection(turn_limit=2, limit_payoff="influence")
    return PiecesPlan.of(count_class_tree(rules, split_depth=8, parts=5))


@pytest.fixture(scope="module")
def built(plan):
    """The same plan built whole in this process: the reference."""
    return build_class_pieces(plan.size.rules, plan.depth, bounds=plan.bounds)


def _reference(built):
    return PublicPieces(built.rules.game_string(), built.trunk, built.parts, built.infoset_actions)


@pytest.mark.slow
def test_the_workers_build_the_pieces_of_one_process(cluster, plan, built, tmp_path):
    ref = _reference(built)
    remote = RemotePieces(ClassRecipe(plan))
    with pytest.raises(AttributeError, match="built by the workers that solve it"):
        remote.num_actions
    a, b = Solver(ref, "pcfr+"), Solver(remote, "pcfr+", backend=RayBackend(workers=3))
    rep = b.representation
    assert 2 <= len(rep.parts) <= 3 and remote.recipe.num_parts == len(built.parts) > 3
    assert (remote.num_infosets, remote.num_actions) == (ref.num_infosets, ref.num_actions)
    for name, x in zip(built.trunk.flat._fields, built.trunk.flat):  # the driver's trunk
        np.testing.assert_array_equal(getattr(remote.trunk.flat, name), x, err_msg=name)
    for name in ("infoset_player", "infoset_num_actions", "infoset_actions", "piece_digests"):
        np.testing.assert_array_equal(getattr(remote, name), getattr(ref, name), err_msg=name)
    assert piece_bytes(remote.trunk) < sum(map(piece_bytes, built.parts)) / 10  # all it holds
    for i in range(5):
        a.step(1)
        b.step(1)
        if i == 2:
            os.kill(rep.pids()[0], signal.SIGKILL)  # its actor rebuilds its parts, then replays
        np.testing.assert_array_equal(b.current_policy(), a.current_policy())
        np.testing.assert_array_equal(b.average_policy(), a.average_policy())
    assert rep.recovered == 1
    assert b.exploitability() == a.exploitability()
    rep.save_shares(tmp_path)
    manifest, shares = load_shares(tmp_path)
    assert manifest["game_id"] == ref.game_id and manifest["iterations"] == 5
    assert ClassRecipe(plan).record() == manifest["recipe"]
    np.testing.assert_array_equal(shares["average_policy"], a.average_policy())
    np.testing.assert_array_equal(shares["infoset_hash"], built.infoset_hash)
    np.testing.assert_array_equal(shares["infoset_actions"], built.infoset_actions)
    np.testing.assert_array_equal(shares["infoset_num_actions"], ref.infoset_num_actions)
    rep.close()


@pytest.mark.slow
def test_a_restarted_driver_resumes_from_the_workers_checkpoints(cluster, plan, built, tmp_path):
    """The driver's solve ends (killed) after 5 iterations; a new driver and new actors build the
    tree again and go on from the newest complete generation of checkpoints (iteration 4), and reach
    iteration 7 where one uninterrupted run does. Another algorithm's resume is refused."""
    ref = Solver(_reference(built), "cfr+")
    ref.step(7)

    def backend(**options):
        return RayBackend(workers=2, checkpoint_dir=tmp_path, checkpoint_every=2, **options)

    first = Solver(RemotePieces(ClassRecipe(plan)), "cfr+", backend=backend())
    first.step(5)
    first.representation.close()
    assert sorted(os.listdir(tmp_path)) == ["part-0-4.npz", "part-1-4.npz", "trunk-4.npz"]
    again = Solver(RemotePieces(ClassRecipe(plan)), "cfr+", backend=backend(resume=True))
    assert again.iterations == 4
    again.step(3)
    np.testing.assert_array_equal(again.average_policy(), ref.average_policy())
    np.testing.assert_array_equal(again.current_policy(), ref.current_policy())
    again.representation.close()
    with pytest.raises(ValueError, match=r"checkpoint of another solve: algorithm='cfr\+' \(this "
                                         r"solve: 'dcfr'\)"):
        Solver(RemotePieces(ClassRecipe(plan)), "dcfr", backend=backend(resume=True))


def test_a_recipe_needs_a_count_by_parts_and_a_backend(plan, tmp_path):
    with pytest.raises(TypeError, match="takes a PiecesPlan"):
        ClassRecipe(plan.size)
    with pytest.raises(TypeError, match="built by the Ray workers that solve it: pass backend="):
        Solver(RemotePieces(ClassRecipe(plan)), "cfr+")
    with pytest.raises(ValueError, match="not a folder of policy shares"):
        load_shares(tmp_path)
    with pytest.raises(ValueError, match="resume reads checkpoint_dir"):
        RayBackend(resume=True)


@pytest.mark.slow
def test_the_docs_example_runs_as_written(cluster, tmp_path, monkeypatch):
    """docs/howto/ray.md's example of a tree built by the workers (a ``py`` block: it needs a cluster)."""
    page = (Path(__file__).resolve().parent.parent / "docs" / "howto" / "ray.md").read_text()
    (block,) = [b for b in re.findall(r"```py\n(.*?)```", page, re.S) if "RemotePieces" in b]
    monkeypatch.chdir(tmp_path)
    (tmp_path / "example.py").write_text(block)
    names = runpy.run_path(str(tmp_path / "example.py"))
    assert names["solver"].iterations == 10 and (tmp_path / "run-tl2" / "trunk-10.npz").exists()
    assert names["policy"]["average_policy"].shape == (names["solver"].tree.num_actions,)
    assert names["manifest"]["iterations"] == 10


def test_the_count_by_parts_on_ray_is_the_count_in_one_process(cluster, plan):
    """Ray tasks count the parts (each walks the trunk again): the same figures, part for part, as
    the count in this process that ``plan`` comes from (all but the seconds, and the walk's memory:
    the driver does not hold every part's keys)."""
    here, there = plan.size, count_on_ray(plan.size.rules, 8, 5, tasks=2)
    for name in here._fields:
        if name not in ("seconds", "parts", "level_nodes", "level_entries", "work_bytes"):
            assert getattr(there, name) == getattr(here, name), name
    keys = 8 * (here.infosets - sum(q.infosets for q in here.parts))  # the trunk's, held
    assert there.work_bytes == here.work_bytes - 8 * here.infosets + keys
    np.testing.assert_array_equal(there.level_nodes, here.level_nodes)
    np.testing.assert_array_equal(there.level_entries, here.level_entries)
    assert [q._replace(seconds=0) for q in there.parts] == [q._replace(seconds=0) for q in here.parts]


@pytest.mark.slow
def test_solve_checkpoints_and_resumes_a_tree_built_by_the_workers(cluster, plan, built, tmp_path):
    """``solvers.solve`` takes a ``RemotePieces`` with its backend: its own checkpoint (gathered: a
    tree of this size) resumes where the run stopped, on a tree built again."""
    ref = solvers.solve(_reference(built), "cfr+", iterations=3, progress=False)
    path = tmp_path / "run.npz"
    solvers.solve(RemotePieces(ClassRecipe(plan)), "cfr+", iterations=2, progress=False,
                  checkpoint=path, backend=RayBackend(workers=2))
    again = solvers.solve(RemotePieces(ClassRecipe(plan)), "cfr+", iterations=3, progress=False,
                          resume=path, backend=RayBackend(workers=2))
    np.testing.assert_array_equal(again.average_policy, ref.average_policy)
    assert again.exploitability == ref.exploitability
