"""The strategy that comes with the package: the full-length blueprint, by name, in every command."""

import fnmatch
import io
import os
import tomllib

import pytest

from coupsolve.cli import main
from coupsolve.strategy import StrategyError, load
from coupsolve.strategy.shipped import SHIPPED, named, resolve, shipped_path

pytestmark = pytest.mark.xdist_group("sampling")  # the sampling kernels compiled once, on one worker
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.mark.parametrize("name", ["blueprint", "blueprint-v2"])
def test_the_blueprint_is_a_full_length_two_player_training_that_says_how_it_was_made(name):
    s = load(name)
    assert s.kind == "trained" and s.path == shipped_path(name)
    assert s.rules.players == 2 and s.rules.setup == "selection" and s.rules.turn_limit == 100
    assert s.meta["command"].startswith("coupsolve train --players 2 ") and str(s.meta["seed"]) in s.meta["command"]
    assert s.meta["iterations"] > 0 and not s.meta["interrupted"] and "/" not in s.meta["command"]
    assert s.meta["features_key"] == (3 if name == "blueprint" else 2)


def test_a_path_wins_over_a_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert resolve("blueprint") == shipped_path("blueprint") and resolve("other.npz") == "other.npz"
    (tmp_path / "blueprint").write_bytes(b"not a strategy")
    assert resolve("blueprint") == "blueprint"
    with pytest.raises(StrategyError, match="blueprint"):
        load("blueprint")
    with pytest.raises(KeyError, match="no shipped strategy"):
        shipped_path("nonsense")


def test_messages_and_files_name_a_shipped_strategy_by_its_name(tmp_path, monkeypatch):
    """Not by the place the package is installed in: given by name or by its path, the shipped
    blueprint is called ``blueprint``; any other file keeps what it was given."""
    from coupsolve.search.blueprint import Blueprint

    monkeypatch.chdir(tmp_path)
    assert named("blueprint") == named(shipped_path("blueprint")) == "blueprint"
    assert named("other.npz") == "other.npz" and named(str(tmp_path)) == str(tmp_path)
    assert Blueprint.load(shipped_path("blueprint")).source == "blueprint"
    (tmp_path / "blueprint").write_bytes(b"not a strategy")  # a file of that name wins, and is itself
    assert resolve("blueprint") == "blueprint" and named("blueprint") == "blueprint"
    with pytest.raises(StrategyError, match="^blueprint: not a strategy trained"):
        Blueprint.load("blueprint")


def test_the_analysis_names_the_blueprint_its_leaves_came_from():
    from coupsolve import Rules
    from coupsolve.cli.report import leaves_note

    rules = Rules.two_player_selection(turn_limit=2)
    shipped = leaves_note(rules, {"continuations": 1, "blueprint": "blueprint", "estimated": True, "rollouts": 4,
                                  "seed": 0})
    assert "each player plays the shipped blueprint for the rest of the game" in shipped
    assert "4 rollouts per leaf state (seed 0)" in shipped
    other = leaves_note(rules, {"continuations": 3, "blueprint": "/some/where/bp.npz", "estimated": False})
    assert "chooses one of 3 continuations of the blueprint bp.npz" in other and "/some" not in other
    assert other.endswith("valued by the blueprint's game exactly")


def test_every_shipped_file_is_package_data():
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        patterns = tomllib.load(f)["tool"]["setuptools"]["package-data"]["coupsolve.strategy"]
    for name in SHIPPED.values():
        assert os.path.isfile(os.path.join(ROOT, "coupsolve", "strategy", "data", name))
        assert any(fnmatch.fnmatch(f"data/{name}", p) for p in patterns), name


def test_match_and_play_take_the_blueprint_when_given_no_file(capsys, monkeypatch):
    assert main(["match", "--against", "random", "--games", "8", "--pilot", "0", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("blueprint (1,") and "against RandomBot" in out
    monkeypatch.setattr("sys.stdin", io.StringIO("0\n" * 400))
    assert main(["play", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert any(w in out for w in ("You win.", "You lose.", "A draw"))


def test_the_web_page_serves_the_blueprint_by_default():
    from coupsolve.cli import build_parser
    from coupsolve.web.strategy import load_served

    assert build_parser().parse_args(["serve"]).strategies == ["blueprint"]
    served = load_served("blueprint")
    assert served.name == "blueprint" and served.rules.turn_limit == 100 and served.what.startswith("trained")


def test_a_solve_with_leaves_from_the_blueprint_shipped_before_finds_it_under_its_new_name(monkeypatch):
    """A depth-limited strategy solved with ``--leaves blueprint`` records the name and the file's
    SHA-256; once that file is shipped as ``blueprint-v2``, rebuilding the game finds it there."""
    from coupsolve.depth import build as B

    seen, said = {}, []
    monkeypatch.setattr(B, "build", lambda rules, source, *a, **k: seen.setdefault("source", source))
    recorded = {"blueprint": "blueprint", "sha256": B._digest(shipped_path("blueprint-v2")), "continuations": 2,
                "rollouts": 0, "seed": 0}
    B.rebuild("dl.npz", None, recorded, say=said.append)
    assert seen["source"] == "blueprint-v2" and "now shipped as blueprint-v2" in said[0]
    with pytest.raises(StrategyError, match="has changed since"):
        B.rebuild("dl.npz", None, dict(recorded, sha256="0" * 64))
