"""Strategy files solved on the public tree: ``analyse`` and ``play`` read them on the public tree
(no history is built) and report what the history tree's analysis of the same policy reports."""

import io
import json
import sys

import numpy as np
import pytest

import coupsolve
import solvers
from coupsolve.analysis import analyse
from coupsolve.cli import main
from coupsolve.publicbuild import build_public_tree
from test_public_analysis import _close, _pair


def _run(argv, capsys):
    try:
        code = main(argv)
    except SystemExit as e:
        code = e.code
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture(scope="module")
def public_file(tmp_path_factory):
    rules = coupsolve.Rules.two_player_selection(turn_limit=1, limit_payoff="influence")
    path = tmp_path_factory.mktemp("public") / "p.npz"
    result = solvers.solve(build_public_tree(rules).tree, iterations=60, progress=False)
    result.save(path)
    return rules, path, result


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
