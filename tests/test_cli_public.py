"""Strategy files solved on the public tree: ``analyse`` and ``play`` read them on the public tree
(no history is built) and report what the history tree's analysis of the same policy reports. The
public tree is the class walk's when it takes the rules, else ``publicbuild``'s; the file records
which, and a file that records none (written before the class walk) is read on ``publicbuild``'s."""

import importlib
import io
import json
import sys

import numpy as np
import pytest

import coupsolve
import solvers
from coupsolve.analysis.history import analyse
from coupsolve.cli import main
from test_cli_reports import _run
from test_public_analysis import _close, _pair

# Under pytest-xdist (`make test`) this module runs in one worker with test_distributed's Ray clusters:
# its local cluster never runs beside theirs, and a cold run compiles the class walk and the public
# kernels of its solves once, not once per worker.
pytestmark = pytest.mark.xdist_group("ray")


@pytest.fixture(scope="module")
def public_file(tmp_path_factory):
    """A strategy solved by ``coupsolve solve --representation public``."""
    rules = coupsolve.Rules.two_player_selection(turn_limit=1, limit_payoff="influence")
    folder = tmp_path_factory.mktemp("public")
    path = folder / "p.npz"
    assert main(["solve", "--turn-limit", "1", "--limit-payoff", "influence", "--representation",
                 "public", "--iterations", "60", "--out", str(path), "--no-progress", "--json",
                 str(folder / "s.json")]) == 0
    result = solvers.SolveResult.load(path)
    assert result.tree_type == "PublicTree" and result.options["tree_builder"] == "classbuild"
    assert json.loads((folder / "s.json").read_text())["tree_builder"] == "classbuild"
    return rules, path, result


def _no_build(monkeypatch, *modules):
    """Make the tree builders of ``modules`` fail if called."""
    names = {"couptree": "build_coup_tree", "publicbuild": "build_public_tree",
             "classbuild": "build_class_tree"}
    where = {"couptree": "trees.history.tree", "publicbuild": "trees.stepwalk.build", "classbuild": "trees.classwalk.build"}
    for m in modules:
        monkeypatch.setattr(importlib.import_module(f"coupsolve.{where[m]}"), names[m],
                            lambda *a, _m=m, **k: pytest.fail(f"{_m} built a tree"))


def _rewrite_meta(src, dst, change):
    """Copy the strategy file ``src`` to ``dst`` with ``change(meta)`` applied to its JSON metadata."""
    with np.load(src, allow_pickle=False) as f:
        arrays = {k: f[k] for k in f.files}
    meta = json.loads(str(arrays["__metadata__"][()]))
    change(meta)
    arrays["__metadata__"] = np.array(json.dumps(meta, sort_keys=True))
    np.savez(dst, **arrays)


def test_auto_takes_the_public_tree_when_the_history_tree_does_not_fit(capsys, monkeypatch):
    """The history tree's size as counted, its peak made larger than the budget."""
    import coupsolve.plan as planner
    from coupsolve.plan import public as plan_public

    measure = planner.measure_history

    def too_big(rules, options, say, build=False):
        size, need, budget = measure(rules, options, say, build)
        return size, (need[0], need[1], 2**40), 2**34

    monkeypatch.setattr(planner, "measure_history", too_big)
    code, out, err = _run(["solve", "--turn-limit", "1", "--iterations", "5", "--no-progress"], capsys)
    assert code == 0, err
    assert "trying the public tree" in out and "built the public tree (classbuild)" in out
    assert "bytes per information set" in out and "bytes per history" not in out
    code, out, err = _run(["solve", "--turn-limit", "1", "--iterations", "5", "--representation",
                           "history"], capsys)
    assert code == 2 and "more than the 16.00 GiB" in err and "--representation public" in err
    monkeypatch.setattr(plan_public, "AUTO_CLASS_MAX_HISTORIES", 1000)  # too large to count here
    code, out, err = _run(["solve", "--turn-limit", "1", "--iterations", "5"], capsys)
    assert code == 2 and "minutes here" in err and "built" not in out
    assert "by the class walk" in err and "stepping every history" not in err


def test_the_class_walk_is_chosen_when_it_takes_the_rules_and_publicbuild_otherwise(capsys):
    code, out, err = _run(["info", "--turn-limit", "1", "--rule", "marked_cards=true",
                           "--representation", "public"], capsys)
    assert code == 0, err
    assert "stepping every history (publicbuild; the class walk does not take marked cards" in out
    assert "public tree: 556 public nodes" in out and "public tree (class walk)" not in out


def test_info_shows_both_sizes(capsys):
    code, out, err = _run(["info", "--turn-limit", "1", "--representation", "public"], capsys)
    assert code == 0, err
    assert "63,973 histories" in out and "counting the public tree by the class walk" in out
    assert "public tree (class walk): 314 public nodes" in out and "publicbuild" not in out
    assert "at the peak of a build and solve" in out


def test_analyse_reads_a_public_strategy_on_the_public_tree(public_file, capsys, monkeypatch):
    rules, path, result = public_file
    _no_build(monkeypatch, "couptree", "publicbuild")  # rebuilt by the class walk, as recorded
    code, out, err = _run(["analyse", str(path), "--json"], capsys)
    assert code == 0, err
    assert "building the public tree of" in out and "by the class walk" in out
    data = json.loads(out.strip().splitlines()[-1])
    assert data["tree_builder"] == "classbuild"
    monkeypatch.undo()
    history, public, perm = _pair(rules, "class")
    theirs = analyse(history, result.average_policy[perm]).to_dict()
    _close(data["analysis"]["claims"], theirs["claims"])
    _close(data["analysis"]["choice_best_response"], theirs["choice_best_response"])
    assert data["exploitability"] == pytest.approx(result.exploitability)


def test_play_against_a_public_strategy(public_file, capsys, monkeypatch):
    _, path, _ = public_file
    monkeypatch.setattr(sys, "stdin", io.StringIO("Choose Duke\n" + "0\n" * 30))
    code, out, err = _run(["play", str(path), "--seat", "1", "--seed", "2"], capsys)
    assert code == 0, err
    assert "public tree" in out and "p1 Choose Duke" in out
    assert any(w in out for w in ("You win.", "You lose.", "A draw"))


def test_solve_on_a_local_ray_cluster_gives_the_same_strategy(public_file, tmp_path, capsys):
    """``--ray local`` solves the same public tree in two Ray actors: the same average policy."""
    pytest.importorskip("ray")
    import ray

    _, _, result = public_file
    path = tmp_path / "ray.npz"
    try:
        code, out, err = _run(["solve", "--turn-limit", "1", "--limit-payoff", "influence", "--ray",
                               "local", "--ray-workers", "2", "--iterations", "60", "--out",
                               str(path), "--no-progress"], capsys)
    finally:
        ray.shutdown()
    assert code == 0, err
    assert "built the public tree" in out
    ray_result = solvers.SolveResult.load(path)
    assert abs(ray_result.average_policy - result.average_policy).max() <= 1e-12
    assert ray_result.exploitability == pytest.approx(result.exploitability, abs=1e-12)
    code, out, err = _run(["solve", "--turn-limit", "1", "--ray", "local", "--representation",
                           "history", "--iterations", "5"], capsys)
    assert code == 2 and "--ray solves the public tree" in err
    assert not ray.is_initialized()  # refused before connecting


def test_a_file_without_its_builder_is_read_on_publicbuilds_tree(public_file, tmp_path, capsys,
                                                                 monkeypatch):
    """A file written before the class walk (a public tree, no builder recorded) loads with
    ``publicbuild``; the class walk's tree, of another digest, would refuse it."""
    from coupsolve.trees.stepwalk.build import build_public_tree

    rules, path, _ = public_file
    old = tmp_path / "old.npz"
    result = solvers.solve(build_public_tree(rules).tree, algorithm="cfr+", iterations=20,
                           progress=False)
    assert "tree_builder" not in result.options
    result.save(old)
    _no_build(monkeypatch, "couptree", "classbuild")
    code, out, err = _run(["analyse", str(old)], capsys)
    assert code == 0, err
    assert "by stepping every history" in out and "cfr+, 20 iterations" in out
    monkeypatch.undo()
    unrecorded = tmp_path / "unrecorded.npz"  # a class-walk file with its record removed
    _rewrite_meta(path, unrecorded, lambda meta: meta["options"].pop("tree_builder"))
    code, out, err = _run(["analyse", str(unrecorded)], capsys)
    assert code == 2 and "does not fit the tree of the rules it records" in err
    unknown = tmp_path / "unknown.npz"
    _rewrite_meta(path, unknown, lambda meta: meta["options"].update(tree_builder="elsewhere"))
    code, out, err = _run(["analyse", str(unknown)], capsys)
    assert code == 2 and "'elsewhere'" in err


def test_solve_on_publicbuilds_tree_when_the_class_walk_refuses(tmp_path, capsys, monkeypatch):
    """Marked cards: counted, built and recorded by ``publicbuild``, and loaded back on its tree (the
    analysis of the public tree does not cover marked cards, so only the load is checked)."""
    from coupsolve.strategy import load_solved

    path = tmp_path / "marked.npz"
    _no_build(monkeypatch, "classbuild")
    _, out, _ = _run(["solve", "--turn-limit", "1", "--rule", "marked_cards=true", "--representation",
                      "public", "--iterations", "20", "--no-progress", "--out", str(path)], capsys)
    assert "built the public tree (publicbuild)" in out and "bytes per information set" in out
    rules, coup_tree, result = load_solved(path, print)
    assert rules.marked_cards and result.options["tree_builder"] == "publicbuild"
    assert "by stepping every history" in capsys.readouterr().out
    assert coup_tree.tree.num_infosets == 3_299 == result.infoset_num_actions.shape[0]


def test_info_counts_the_public_tree_by_parts_once(capsys):
    """The class walk's count by parts is cached: a second ``info`` plans the same pieces from it;
    ``--no-cache`` counts again."""
    how = ["info", "--turn-limit", "2", "--representation", "pieces", "--pieces", "8"]
    runs = [_run(how, capsys), _run(how, capsys), _run(how + ["--no-cache"], capsys)]
    assert [code for code, _, _ in runs] == [0, 0, 0]
    cached = ["a cached count" in out for _, out, _ in runs]
    assert cached == [False, True, False], [out for _, out, _ in runs]
    plans = [[line for line in out.splitlines() if line.startswith("public tree in pieces")]
             for _, out, _ in runs]
    assert plans[0] and plans[0] == plans[1] == plans[2]


@pytest.mark.parametrize("algorithm", ["mmd", "mmd-qre"])
def test_mmd_solves_the_public_tree_as_it_solves_the_history_tree(tmp_path, algorithm):
    """``coupsolve solve --algorithm mmd --representation public`` end to end: the file records the
    public tree and MMD, and its last iterate is as exploitable as the history tree's (the same
    iterates: tests/test_solvers_public_mmd.py)."""
    results = {}
    for rep in ("public", "history"):
        path = tmp_path / f"{rep}.npz"
        assert main(["solve", "--turn-limit", "1", "--limit-payoff", "influence", "--representation", rep,
                     "--algorithm", algorithm, "--iterations", "150", "--out", str(path),
                     "--no-progress"]) == 0
        results[rep] = solvers.SolveResult.load(path)
    public, history = results["public"], results["history"]
    assert public.tree_type == "PublicTree" and history.tree_type != "PublicTree"
    assert public.algorithm == history.algorithm == algorithm and public.iterations == 150
    assert abs(public.exploitability - history.exploitability) < 1e-9
    assert abs(public.game_value[0] - history.game_value[0]) < 1e-9


def test_auto_takes_the_whole_public_tree_for_mmd_never_pieces(capsys, monkeypatch):
    """MMD goes on to the public tree when the history tree does not fit, and is refused (one line,
    nothing built) where a CFR solve would go on to pieces."""
    import coupsolve.plan as planner

    measure, measure_public = planner.measure_history, planner.measure_public

    def too_big(rules, options, say, build=False):
        size, need, budget = measure(rules, options, say, build)
        return size, (need[0], need[1], 2**40), 2**34

    monkeypatch.setattr(planner, "measure_history", too_big)
    argv = ["solve", "--turn-limit", "1", "--iterations", "5", "--algorithm", "mmd", "--no-progress"]
    code, out, err = _run(argv, capsys)
    assert code == 0, err
    assert "trying the public tree" in out and "built the public tree (classbuild)" in out
    assert "mmd: 5 iterations" in out
    monkeypatch.setattr(planner, "measure_public",
                        lambda *a, **k: (measure_public(*a, **k)[0], 2**40, 2**34))
    code, out, err = _run(argv, capsys)
    assert code == 2 and "--algorithm mmd solves no tree in pieces" in err and "built" not in out
