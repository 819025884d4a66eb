"""Strategy files solved on the public tree: ``analyse`` and ``play`` read them on the public tree
(no history is built) and report what the history tree's analysis of the same policy reports."""

import io
import json
import sys

import pytest

import coupsolve
import solvers
from coupsolve.analysis import analyse
from coupsolve.cli import main
from test_cli_reports import _run
from test_public_analysis import _close, _pair


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
    assert result.tree_type == "PublicTree"
    return rules, path, result


def test_auto_takes_the_public_tree_when_the_history_tree_does_not_fit(capsys, monkeypatch):
    """The history tree's size as counted, its peak made larger than the budget."""
    from coupsolve import cli_solve

    measure = cli_solve.measure

    def too_big(rules, args, out, build=False):
        size, need, budget = measure(rules, args, out, build)
        return size, (need[0], need[1], 2**40), 2**34

    monkeypatch.setattr(cli_solve, "measure", too_big)
    code, out, err = _run(["solve", "--turn-limit", "1", "--iterations", "5", "--no-progress"], capsys)
    assert code == 0, err
    assert "trying the public tree" in out and "built the public tree" in out
    code, out, err = _run(["solve", "--turn-limit", "1", "--iterations", "5", "--representation",
                           "history"], capsys)
    assert code == 2 and "more than the 16.00 GiB" in err and "--representation public" in err
    monkeypatch.setattr(cli_solve, "AUTO_PUBLIC_MAX_HISTORIES", 1000)  # too large to count here
    code, out, err = _run(["solve", "--turn-limit", "1", "--iterations", "5"], capsys)
    assert code == 2 and "minutes here" in err and "built" not in out


def test_info_shows_both_sizes(capsys):
    code, out, err = _run(["info", "--turn-limit", "1", "--representation", "public"], capsys)
    assert code == 0, err
    assert "63,973 histories" in out and "public tree: 304 public nodes" in out
    assert "at the peak of a build and solve" in out


def test_analyse_reads_a_public_strategy_on_the_public_tree(public_file, capsys, monkeypatch):
    rules, path, result = public_file
    monkeypatch.setattr(coupsolve.couptree, "build_coup_tree",
                        lambda *a, **k: pytest.fail("a history tree was built"))
    code, out, err = _run(["analyse", str(path), "--json"], capsys)
    assert code == 0, err
    data = json.loads(out.strip().splitlines()[-1])
    monkeypatch.undo()
    history, public, perm = _pair(rules)
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
