"""The command line, end to end in a subprocess."""

import importlib
import json
import subprocess
import sys
import tracemalloc

import numba
import numpy as np
import pytest

import coupsolve
from coup_helpers import histories
from coupsolve import Rules
from coupsolve.cli import main
from coupsolve.plan.options import ALGORITHM


def run(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "coupsolve.cli", *args], capture_output=True, text=True,
                          timeout=600, input=stdin)


@pytest.fixture(scope="module")
def strategy(tmp_path_factory):
    path = tmp_path_factory.mktemp("cli") / "s.npz"
    out = run("solve", "--turn-limit", "1", "--target-exploitability", "1e-3", "--out", str(path), "--json",
              "--no-progress")
    assert out.returncode == 0, out.stderr
    return path, out


def test_solve_json_shape(strategy):
    path, out = strategy
    data = json.loads(out.stdout.strip().splitlines()[-1])
    assert {"rules", "iterations", "exploitability", "game_value", "bluff"} <= set(data)
    assert data["rules"]["turn_limit"] == 1 and data["rules"]["setup"] == "selection"
    assert data["exploitability"] <= 1e-3
    assert len(data["game_value"]) == 2 and abs(sum(data["game_value"])) < 1e-12
    assert set(data["bluff"]) >= {"Tax", "Steal", "Exchange", "Block Duke"}
    assert "histories" in out.stderr and "memory" in out.stderr  # sizes reported before the build
    assert path.exists()


def test_no_overwrite_without_force(strategy):
    path, _ = strategy
    out = run("solve", "--turn-limit", "1", "--iterations", "2", "--out", str(path))
    assert out.returncode == 2 and "--force" in out.stderr


def test_analyse_and_plot(strategy, tmp_path):
    path, _ = strategy
    png = tmp_path / "p.png"
    out = run("analyse", str(path), "--plot", str(png))
    assert out.returncode == 0, out.stderr
    assert "bluff" in out.stdout and "card choice" in out.stdout
    assert png.stat().st_size > 1000


def test_info_counts_without_building(monkeypatch):
    out = run("info", "--turn-limit", "1")
    assert out.returncode == 0, out.stderr
    assert "63,973 histories" in out.stdout
    # in this process: no tree object may be made, and the peak of numpy's allocations stays far below
    # the bytes of the turn-limit-2 tree (3,072,301 histories)
    import solvers
    import coupsolve.trees.history.builder
    import coupsolve.trees.history.tree

    def refuse(*args, **kwargs):
        raise AssertionError("info built a tree")

    monkeypatch.setattr(solvers.GameTree, "__init__", refuse)
    monkeypatch.setattr(coupsolve.trees.history.builder, "fill_tree", refuse)
    for module in (coupsolve, coupsolve.trees.history.tree):
        monkeypatch.setattr(module, "build_tree", refuse)
        monkeypatch.setattr(module, "build_coup_tree", refuse)
    assert main(["info", "--turn-limit", "1"]) == 0  # imports and compiled code loaded: not counted below
    tracemalloc.start()
    try:
        assert main(["info", "--turn-limit", "2"]) == 0
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 3_072_301 * 34 / 10  # the tree's node arrays alone are 34 bytes a history


def test_info_sizes_are_openspiel_enumeration():
    rules = Rules.standard(players=2, turn_limit=2, characters="Duke+Assassin+Captain+Contessa", copies=1,
                           starting_coins="3,3")
    out = run("info", "--preset", "two-player-standard", "--turn-limit", "2", "--rule",
              "characters=Duke+Assassin+Captain+Contessa", "--rule", "copies=1", "--rule", "starting_coins=3,3")
    assert out.returncode == 0, out.stderr
    assert f"rules: {rules}" in out.stdout
    nodes = decisions = depth = 0
    for state, _, path in histories(coupsolve.load_game(rules)):
        nodes += 1
        decisions += not (state.is_terminal() or state.is_chance_node())
        depth = max(depth, len(path))
    assert f"{nodes:,} histories ({decisions:,} decisions) in {depth + 1} levels" in out.stdout


def test_rule_options_reach_the_rules():
    out = run("info", "--turn-limit", "1", "--rule", "contessa_blocks_tax=true", "--rule", "challenge_bounty=1")
    assert out.returncode == 0, out.stderr
    assert "contessa_blocks_tax=True, challenge_bounty=1" in out.stdout
    assert "63,973 histories" not in out.stdout  # a different game from the base one


@pytest.mark.parametrize("args,word", [
    (["info", "--rule", "jokers=1"], "jokers"),
    (["info", "--rule", "selective_coup"], "NAME=VALUE"),
    (["info", "--rule", "event_mat=true"], "event_mat with setup=selection"),
    (["analyse", "missing.npz"], "no such file"),
    (["solve", "--turn-limit", "0"], "at least 1"),
    (["solve", "--iterations", "5", "--target-exploitability", "0.1"], "not allowed with"),
    (["play", "missing.npz"], "no such file"),
    (["solve", "--threads", "999"], "numba has"),
    (["solve", "--precision", "float16"], "invalid choice"),
    (["info", "--turn-limit", "1", "--rule", "turn_limit=3"], "use --turn-limit"),
    (["info", "--rule", "limit_payoff=influence"], "use --limit-payoff"),
    (["info", "--rule", "players=3"], "two-player games"),
    (["info", "--rule", "jokers=1"], "the options are players, setup"),
    (["random", "--seed", "-1"], "--seed: must be at least 0"),
    (["solve", "--bogus"], "unrecognized arguments: --bogus"),
    ([], "required: command"),
])
def test_errors_are_one_line(args, word):
    out = run(*args)
    assert out.returncode == 2
    assert word in out.stderr and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1, out.stderr


def test_random_picks_the_setup_that_fits_the_players():
    out = run("random", "--players", "4", "--turn-limit", "2", "--seed", "1")
    assert out.returncode == 0, out.stderr
    assert "p3" in out.stdout
    two = run("random", "--turn-limit", "2", "--seed", "1")
    assert two.returncode == 0 and "Choose" in two.stdout  # two players: the card-selection setup


def test_version():
    from coupsolve import __version__

    out = run("--version")
    assert out.returncode == 0 and out.stdout.strip() == f"coupsolve {__version__}"


def _solve_json(capsys, *flags):
    """``solve --json`` in this process: the report, a dict. (The influence payoff's values are not
    exact in float32, unlike the draw payoff's at turn limit 1, so the precision shows in the result.)"""
    assert main(["solve", "--turn-limit", "1", "--limit-payoff", "influence", "--iterations", "10",
                 "--check-every", "10", "--json", "--no-progress", *flags]) == 0
    return json.loads(capsys.readouterr().out.strip().splitlines()[-1])


def test_each_speed_option_changes_the_solve(monkeypatch, capsys):
    # the options reach the solver and its report: what it ran with (SolveResult.options); the
    # turn-limit-1 tree is below the size where threads pay, so one thread whatever was asked
    assert main(["solve", "--turn-limit", "1", "--target-exploitability", "0.01", "--precision", "float32",
                 "--updates", "simultaneous", "--threads", str(min(2, numba.config.NUMBA_NUM_THREADS)), "--json",
                 "--no-progress"]) == 0
    asked = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert asked["exploitability"] <= 0.01
    assert (asked["precision"], asked["updates"], asked["threads"]) == ("float32", "simultaneous", 1)
    monkeypatch.setattr(importlib.import_module("solvers.history.rep"), "PARALLEL_MIN_HISTORIES", 0)
    default = _solve_json(capsys)
    cores = importlib.import_module("coupsolve.plan").solve_threads(None)[0]  # the default: every core
    assert (default["precision"], default["updates"], default["threads"]) == ("float64", "alternating", cores)
    assert (default["algorithm"], default["iterations"]) == (ALGORITHM, 10)  # the library's default
    # CFR+ from here: HS-DCFR's curve reaches 5e-11 in 10 iterations in both precisions alike
    base = _solve_json(capsys, "--algorithm", "cfr+")
    # float32 buffers round differently: the same curve to about 1e-6, not to the last digit
    f32 = _solve_json(capsys, "--algorithm", "cfr+", "--precision", "float32")
    assert f32["precision"] == "float32"
    assert f32["exploitability"] == pytest.approx(base["exploitability"], rel=1e-4)
    assert f32["exploitability"] != base["exploitability"]
    # simultaneous updates are another algorithm's iterates
    sim = _solve_json(capsys, "--algorithm", "cfr+", "--updates", "simultaneous")
    assert sim["updates"] == "simultaneous"
    assert sim["exploitability"] != pytest.approx(base["exploitability"], rel=1e-3)
    for threads in {1, min(2, numba.config.NUMBA_NUM_THREADS)}:
        asked = _solve_json(capsys, "--algorithm", "cfr+", "--threads", str(threads))
        assert asked["threads"] == threads
        assert asked["exploitability"] == pytest.approx(base["exploitability"], rel=1e-9)


def test_foreign_file_is_refused(tmp_path):
    bad = tmp_path / "bad.npz"
    np.savez(bad, x=np.zeros(3))
    out = run("analyse", str(bad))
    assert out.returncode == 2 and "not a coupsolve strategy" in out.stderr


def test_play_through_standard_input(strategy):
    path, _ = strategy
    # always the first listed move, by number, except one move typed by name and one wrong entry
    out = run("play", str(path), "--seat", "0", "--seed", "1", stdin="Choose Captain\nnonsense\n" + "0\n" * 30)
    assert out.returncode == 0, out.stderr
    assert "p0 Choose Captain" in out.stdout and "is not one of" in out.stdout
    assert any(w in out.stdout for w in ("You win.", "You lose.", "A draw"))
    assert "p1 chose a card" in out.stdout and "p1 Choose" not in out.stdout  # the bot's choice is hidden


def test_random_game_log_ends_with_a_result():
    out = run("random", "--setup", "standard", "--players", "3", "--seed", "3")
    assert out.returncode == 0, out.stderr
    assert "game over" in out.stdout and "returns:" in out.stdout
