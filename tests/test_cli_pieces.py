"""``coupsolve solve`` on the public tree built in pieces (``--representation pieces``, and what
``auto`` falls back to when the whole public tree does not fit), and its strategy file, which
``play`` and ``analyse --sampled`` read with no tree at all (it carries its information sets' keys),
and ``analyse`` rebuilds the pieces of for the exact analysis (it records where the tree was cut)."""

import contextlib
import importlib
import io
import json
import sys

import numpy as np
import pytest

import coupsolve
import solvers
from coupsolve.cli import main
from test_cli_reports import _run
from test_public_analysis import _close

pytestmark = pytest.mark.xdist_group("ray")  # beside test_cli_public: one compile of the class walk

TL = ["--turn-limit", "1", "--limit-payoff", "influence"]
SPLIT = ["--representation", "pieces", "--pieces", "2"]
PIECES = SPLIT + ["--precision", "float64"]  # as the whole tree's (auto: float32): the same iterates


def _no_build(monkeypatch):
    """Make every tree builder fail if called."""
    for module, name in (("trees.history.tree", "build_coup_tree"), ("trees.stepwalk.build", "build_public_tree"),
                         ("trees.classwalk.build", "build_class_tree"), ("trees.pieces.build", "build_class_pieces")):
        monkeypatch.setattr(importlib.import_module(f"coupsolve.{module}"), name,
                            lambda *a, _n=name, **k: pytest.fail(f"{_n} built a tree"))


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """The same solve on the whole public tree and in pieces, and the analyses ``solve`` printed."""
    folder = tmp_path_factory.mktemp("pieces")
    out = {}
    for name, how in (("whole", ["--representation", "public"]), ("pieces", PIECES)):
        path = folder / f"{name}.npz"
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            assert main(["solve", *TL, *how, "--iterations", "40", "--out", str(path),
                         "--no-progress", "--json", "-"]) == 0
        out[name] = solvers.SolveResult.load(path), path
        out[name + " analysis"] = json.loads(printed.getvalue().strip().splitlines()[-1])["analysis"]
    return out


@pytest.mark.slow
def test_pieces_on_a_local_ray_cluster_give_the_same_strategy(files, tmp_path, capsys):
    """``--ray local`` deals the pieces' parts out to two Ray actors: the same strategy and the
    same exact analysis."""
    pytest.importorskip("ray")
    import ray

    path = tmp_path / "ray.npz"
    try:
        code, out, err = _run(["solve", *TL, *PIECES, "--ray", "local", "--ray-workers", "2",
                               "--iterations", "40", "--out", str(path), "--no-progress", "--json",
                               "-"], capsys)
    finally:
        ray.shutdown()
    assert code == 0, err
    mine, theirs = solvers.SolveResult.load(path), files["pieces"][0]
    assert abs(mine.average_policy - theirs.average_policy).max() <= 1e-12
    assert mine.exploitability == pytest.approx(theirs.exploitability, abs=1e-12)
    _same_analysis(json.loads(out.strip().splitlines()[-1])["analysis"], files["pieces analysis"])


def _arrays(path, drop=()):
    """The arrays of a strategy file but its attachments (its kept analysis) and ``drop``: the
    makings of a file as an older coupsolve, or somebody else, wrote it."""
    with np.load(path, allow_pickle=False) as f:
        return {k: f[k] for k in f.files if k not in drop and not k.startswith("attached__")}


def _same_analysis(mine, theirs):
    mine, theirs = dict(mine), dict(theirs)
    for data in (mine, theirs):
        data.pop("meta")
    _close(mine, theirs)


def test_pieces_give_the_whole_trees_strategy(files, capsys):
    whole, _ = files["whole"]
    pieces, _ = files["pieces"]
    assert pieces.tree_type == "PublicPieces" and pieces.options["tree_builder"] == "classpieces"
    assert whole.infoset_hash is None and pieces.infoset_hash.shape == pieces.infoset_num_actions.shape
    # the whole tree's information sets in the pieces' numbering, found by their keys
    rules = coupsolve.Rules.two_player_selection(turn_limit=1, limit_payoff="influence")
    keys = coupsolve.trees.classwalk.build.build_class_tree(rules).infoset_hash
    index = {int(h): i for i, h in enumerate(keys)}
    j = np.array([index[int(h)] for h in pieces.infoset_hash])
    offset = np.concatenate(([0], np.cumsum(whole.infoset_num_actions)[:-1]))
    n = pieces.infoset_num_actions
    pos = np.repeat(offset[j] - np.concatenate(([0], np.cumsum(n)[:-1])), n) + np.arange(n.sum())
    assert np.array_equal(whole.infoset_actions[pos], pieces.infoset_actions)
    assert np.array_equal(whole.average_policy[pos], pieces.average_policy)
    assert pieces.exploitability == pytest.approx(whole.exploitability, abs=1e-12)


def test_solve_and_analyse_give_the_exact_analysis_of_pieces(files, tmp_path, capsys, monkeypatch):
    """The analysis ``solve`` prints in pieces, and ``analyse`` prints after rebuilding them, are the
    whole public tree's (the policies are the same, in another numbering). ``solve`` keeps it in
    the strategy file and ``analyse`` reads it there; a file without it is rebuilt and analysed
    once, then kept."""
    whole, pieces = files["whole analysis"], files["pieces analysis"]
    _same_analysis(pieces, whole)
    assert "games" not in pieces  # exact, not estimated
    assert solvers.SolveResult.attachment(files["pieces"][1], "analysis")["analysis"] == pieces
    np.savez(tmp_path / "bare.npz", **_arrays(files["pieces"][1]))
    code, out, err = _run(["analyse", str(tmp_path / "bare.npz"), "--json"], capsys)
    assert code == 0, err
    assert "rebuilding the public tree" in out and "analysing the strategy exactly on its 3 pieces" in out
    assert "the exact analysis is kept in" in out
    _same_analysis(json.loads(out.strip().splitlines()[-1])["analysis"], whole)
    _no_build(monkeypatch)
    for path in (files["pieces"][1], tmp_path / "bare.npz"):
        code, out, err = _run(["analyse", str(path), "--json"], capsys)
        assert code == 0, err
        assert "the exact analysis kept with the strategy" in out and "rebuilding" not in out
        _same_analysis(json.loads(out.strip().splitlines()[-1])["analysis"], whole)
    assert solvers.SolveResult.load(tmp_path / "bare.npz").iterations == files["pieces"][0].iterations


def test_a_kept_analysis_of_another_policy_is_not_read(files):
    from coupsolve.strategy import stored_analysis

    result, path = files["pieces"]
    assert stored_analysis(path, result).to_dict() == \
        solvers.SolveResult.attachment(path, "analysis")["analysis"]
    other = solvers.SolveResult.load(path)
    other.average_policy = other.average_policy.copy()
    other.average_policy[0] = np.nextafter(other.average_policy[0], 2.0)
    assert stored_analysis(path, other) is None
    assert stored_analysis(files["whole"][1], result) is None  # a whole tree's file keeps none


def test_a_pieces_file_that_does_not_say_where_it_was_cut_is_estimated(files, tmp_path, capsys,
                                                                       monkeypatch):
    _, path = files["pieces"]
    _no_build(monkeypatch)
    arrays = _arrays(path)
    meta = json.loads(str(arrays["__metadata__"]))
    del meta["options"]["pieces"]
    arrays["__metadata__"] = np.array(json.dumps(meta))
    np.savez(tmp_path / "old.npz", **arrays)
    code, out, err = _run(["analyse", str(tmp_path / "old.npz"), "--games", "50"], capsys)
    assert code == 0, err
    assert "does not say where its tree was cut" in out and "estimated from 50 self-play games" in out


def test_a_pieces_file_cut_elsewhere_than_it_says_is_refused(files, tmp_path, capsys):
    """The rebuilt pieces are checked against the file's digest before anything is analysed."""
    _, path = files["pieces"]
    arrays = _arrays(path)
    meta = json.loads(str(arrays["__metadata__"]))
    bounds = meta["options"]["pieces"]["bounds"]
    assert len(bounds) == 3 and bounds[1] + 1 < bounds[2]
    bounds[1] += 1
    arrays["__metadata__"] = np.array(json.dumps(meta))
    np.savez(tmp_path / "moved.npz", **arrays)
    code, out, err = _run(["analyse", str(tmp_path / "moved.npz")], capsys)
    assert code == 2 and "does not fit the pieces of the rules it records" in err


def test_analyse_sampled_and_play_read_a_pieces_strategy_with_no_tree(files, capsys, monkeypatch):
    _, path = files["pieces"]
    _no_build(monkeypatch)
    code, out, err = _run(["analyse", str(path), "--sampled", "--games", "300", "--seed", "4",
                           "--json"], capsys)
    assert code == 0, err
    assert "as asked (--sampled)" in out and "estimated from 300 self-play games" in out
    data = json.loads(out.strip().splitlines()[-1])["analysis"]
    assert (data["games"], data["seed"]) == (300, 4)
    made = [r["made"] for r in data["claims"] if r["made"]["events"] > 0]
    assert made and all(m["low"] <= m["value"] <= m["high"] for m in made)
    monkeypatch.setattr(sys, "stdin", io.StringIO("Choose Duke\n" + "0\n" * 30))
    code, out, err = _run(["play", str(path), "--seat", "1", "--seed", "2"], capsys)
    assert code == 0, err
    assert "p1 Choose Duke" in out and any(w in out for w in ("You win.", "You lose.", "A draw"))


def test_pieces_are_refused_with_the_figures(capsys):
    code, out, err = _run(["solve", *TL, "--representation", "pieces", "--pieces", "1000",
                           "--iterations", "2"], capsys)
    assert code == 2 and "try fewer --pieces" in err
    code, out, err = _run(["solve", *TL, *PIECES, "--iterations", "2", "--max-memory", "1MiB"],
                          capsys)
    assert code == 2 and "in pieces" in err and "more than the 1.00 MiB" in err
    code, out, err = _run(["info", *TL, *SPLIT], capsys)
    assert code == 0, err
    assert "public tree in pieces: cut at level" in out and "at the peak of a build and solve" in out


def test_a_pieces_file_without_keys_is_refused(files, tmp_path, capsys):
    _, path = files["pieces"]
    arrays = _arrays(path, drop=("infoset_hash",))
    np.savez(tmp_path / "k.npz", **arrays)
    code, out, err = _run(["analyse", str(tmp_path / "k.npz")], capsys)
    assert code == 2 and "lacks its information sets' keys" in err


def test_a_history_strategy_too_large_to_rebuild_is_refused_at_once(files, tmp_path, capsys,
                                                                     monkeypatch):
    """A strategy file recording turn limit 4's history tree (about 120 GiB) is refused from the table
    of known sizes, before anything is counted or built."""
    _, path = files["pieces"]
    _no_build(monkeypatch)
    rules = coupsolve.Rules.two_player_selection(turn_limit=4)
    arrays = _arrays(path)
    meta = json.loads(str(arrays["__metadata__"]))
    meta.pop("tree_type")
    meta["game_id"] = rules.game_string()
    arrays["__metadata__"] = np.array(json.dumps(meta))
    np.savez(tmp_path / "h.npz", **arrays)
    code, out, err = _run(["analyse", str(tmp_path / "h.npz")], capsys)
    assert code == 2 and "history tree" in err and "GiB, more than the" in err


@pytest.mark.parametrize("how,precision", [([], "float64"), (SPLIT, "float32"), (PIECES, "float64"),
                                           (["--precision", "float32"], "float32")])
def test_auto_precision_is_float32_only_in_pieces(how, precision):
    """``--precision auto`` (the default) solves a tree held in pieces in float32, for its memory, and
    every other tree in float64; a precision given is kept. The plan (:func:`coupsolve.plan.choose`)
    decides it once, with the tree, before anything is built, and leaves the parsed options as they
    were."""
    from coupsolve.cli import build_parser
    from coupsolve.cli.solve import plan_options
    from coupsolve.plan import choose

    args = build_parser().parse_args(["solve", *TL, *how])
    given = vars(args).copy()
    said = []
    plan = choose(coupsolve.Rules.two_player_selection(turn_limit=1, limit_payoff="influence"),
                  plan_options(args), said.append)
    assert plan.precision == precision and vars(args) == given
    assert (plan.tree == "pieces") == (how in (SPLIT, PIECES))
    assert ("precision: float32 (--precision auto" in "\n".join(said)) == (how == SPLIT)
