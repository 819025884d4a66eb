"""The check of exact best responses by play (coupsolve.evaluation.brcheck) and its example script."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import coupsolve
from coupsolve.evaluation.brcheck import check_by_play, exact_best_responses
from coupsolve.openspiel.policy import PublicTreePolicy
from coupsolve.trees.stepwalk.build import build_public_tree
from coup_helpers import play_randomly
from solvers import Solver, npz

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RULES = coupsolve.Rules.two_player_selection(turn_limit=2, limit_payoff="influence")


@pytest.fixture(scope="module")
def solved():
    coup_public = build_public_tree(RULES)
    solver = Solver(coup_public.tree, "cfr+")
    solver.step(30)
    return coup_public, solver


def _check(coup_public, solver, rep, games=2000):
    value0, avg = solver.evaluate()[1], solver.average_policy()
    strategy = PublicTreePolicy(coupsolve.load_game(RULES), coup_public, avg)
    return check_by_play(strategy, exact_best_responses(rep, avg), value0, games, 5)


def test_the_exact_best_responses_are_earned_in_play_and_their_gains_are_the_exploitability(solved):
    coup_public, solver = solved
    checks = _check(coup_public, solver, solver.representation)
    assert [c.seat for c in checks] == [0, 1] and all(c.holds for c in checks)
    assert all(c.gain >= -1e-12 for c in checks)
    assert abs((checks[0].gain + checks[1].gain) / 2 - solver.exploitability()) < 1e-9
    assert all(c.half_width > 0 and c.games == 2000 for c in checks)


class _Inflated:
    """A best response whose value is overstated by ``by``: the play must not earn it."""

    def __init__(self, rep, by):
        self.rep, self.by = rep, by

    def best_choices(self, policy, seat):
        value, choice = self.rep.best_choices(policy, seat)
        return value + self.by, choice


def test_a_value_the_best_response_does_not_earn_falls_outside_the_interval(solved):
    coup_public, solver = solved
    checks = _check(coup_public, solver, _Inflated(solver.representation, 0.2))
    assert not any(c.holds for c in checks)


@pytest.mark.slow
def test_the_script_checks_a_strategy_file_and_writes_its_report(tmp_path):
    env = {**os.environ, "PYTHONPATH": ROOT, "COUPSOLVE_CACHE_DIR": str(tmp_path)}
    strategy, out = tmp_path / "s1.npz", tmp_path / "check.json"
    subprocess.run([sys.executable, "-m", "coupsolve", "solve", "--turn-limit", "2", "--limit-payoff",
                    "influence", "--representation", "public", "--iterations", "20", "--out", str(strategy)],
                   check=True, env=env, capture_output=True)
    run = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "best_response_check.py"),
                          str(strategy), "--games", "500", "--out", str(out)], env=env,
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    doc = json.loads(out.read_text())
    assert [s["seat"] for s in doc["seats"]] == [0, 1] and all(s["holds"] for s in doc["seats"])
    gains = np.array([s["gain"] for s in doc["seats"]])
    assert abs(gains.mean() - doc["exploitability"]) < 1e-9
    assert "inside the interval" in run.stdout


def test_the_script_solves_and_checks_on_one_build(tmp_path):
    env = {**os.environ, "PYTHONPATH": ROOT, "COUPSOLVE_CACHE_DIR": str(tmp_path)}
    strategy, out = tmp_path / "s1.npz", tmp_path / "check.json"
    run = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "best_response_check.py"),
                          str(strategy), "--solve", "--turn-limit", "1", "--limit-payoff", "influence",
                          "--games", "300", "--out", str(out)], env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    doc = json.loads(out.read_text())
    assert doc["exploitability"] <= 1e-3 and all(s["holds"] for s in doc["seats"])
    assert strategy.exists() and "public tree" in run.stdout


@pytest.mark.slow
def test_the_script_checks_a_strategy_solved_in_pieces(tmp_path):
    """The pieces are rebuilt where the file says; the games read the file's keys and action ids."""
    env = {**os.environ, "PYTHONPATH": ROOT, "COUPSOLVE_CACHE_DIR": str(tmp_path)}
    strategy, out = tmp_path / "p2.npz", tmp_path / "check.json"
    subprocess.run([sys.executable, "-m", "coupsolve", "solve", "--turn-limit", "2", "--limit-payoff",
                    "influence", "--representation", "pieces", "--pieces", "8", "--iterations", "20",
                    "--out", str(strategy)], check=True, env=env, capture_output=True)
    run = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "best_response_check.py"),
                          str(strategy), "--games", "400", "--out", str(out)], env=env,
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    doc = json.loads(out.read_text())
    assert "rebuilding the public tree" in run.stdout and all(s["holds"] for s in doc["seats"])
    assert abs(np.mean([s["gain"] for s in doc["seats"]]) - doc["exploitability"]) < 1e-6


def test_a_best_response_by_its_choices_plays_as_the_flat_best_response(solved):
    """``best_choices`` is ``best_response`` without the flat copy: the same value, and as an OpenSpiel
    policy (``with_choices``) the same action probabilities at every state met in play."""
    coup_public, solver = solved
    rep, avg = solver.representation, solver.average_policy()
    game = coupsolve.load_game(RULES)
    strategy = PublicTreePolicy(game, coup_public, avg)
    rng = np.random.default_rng(3)
    for seat in (0, 1):
        value, choice = rep.best_choices(avg, seat)
        flat_value, flat = rep.best_response(avg, seat)
        assert value == flat_value and choice.shape == (coup_public.tree.num_infosets,)
        by_choices, by_flat = strategy.with_choices(choice), PublicTreePolicy(game, coup_public, flat)
        met = []

        def compare(state):
            if not state.is_chance_node() and state.current_player() == seat:
                assert by_choices.action_probabilities(state) == by_flat.action_probabilities(state)
                met.append(state)

        for _ in range(40):
            play_randomly(game.new_initial_state(), rng, compare)
        assert len(met) > 40


@pytest.mark.parametrize("bad, why", [(np.zeros(3, np.int32), "expected"),
                                      (None, "not an action of its information set")])
def test_choices_that_are_not_a_pure_policy_of_the_tree_are_refused(solved, bad, why):
    coup_public, solver = solved
    strategy = PublicTreePolicy(coupsolve.load_game(RULES), coup_public, solver.average_policy())
    if bad is None:
        bad = np.asarray(coup_public.tree.infoset_num_actions, np.int32).copy()  # one past the last
    with pytest.raises(ValueError, match=why):
        strategy.with_choices(bad)


def test_kept_best_responses_are_read_back_only_for_their_strategy(tmp_path):
    from coupsolve.evaluation.brcheck import load_best_responses, save_best_responses

    policy = np.array([0.25, 0.75, 1.0, 0.5, 0.5], np.float32)
    exact = [(-0.125, np.array([1, 0, 1], np.int32)), (0.5, np.array([0, 0, 0], np.int32))]
    path = tmp_path / "b.npz"
    save_best_responses(path, exact, policy, "s.npz")
    back = load_best_responses(path, policy, 3)
    assert [v for v, _ in back] == [-0.125, 0.5]
    assert all(np.array_equal(c, d) for (_, c), (_, d) in zip(back, exact))
    with pytest.raises(ValueError, match="another strategy"):
        load_best_responses(path, policy.astype(np.float64), 3)  # the same numbers, another precision
    other = policy.copy()
    other[0] = np.nextafter(other[0], 1)
    with pytest.raises(ValueError, match="another strategy"):
        load_best_responses(path, other, 3)
    with pytest.raises(ValueError, match="choices0 .* not a vector of 4"):
        load_best_responses(path, policy, 4)
    npz.save(path, "something else", {}, {})
    with pytest.raises(ValueError, match="expected 'coupsolve best responses'"):
        load_best_responses(path, policy, 3)
    with pytest.raises(ValueError, match="picks action 200"):
        save_best_responses(path, [(0.0, np.array([200])), (0.0, np.array([0]))], policy, "s.npz")


def test_the_script_keeps_its_best_responses_and_plays_one_seat_again_from_them(tmp_path):
    """--keep-best, then --best --seat 1 with the same seed: the same games for that seat, and no best
    response computed again; the kept file refused for another strategy (exit 2, one line)."""
    env = {**os.environ, "PYTHONPATH": ROOT, "COUPSOLVE_CACHE_DIR": str(tmp_path)}
    script = os.path.join(ROOT, "examples", "best_response_check.py")
    strategy, other, kept = tmp_path / "s1.npz", tmp_path / "o1.npz", tmp_path / "s1.best.npz"
    subprocess.run([sys.executable, "-m", "coupsolve", "solve", "--turn-limit", "1", "--limit-payoff",
                    "influence", "--representation", "public", "--iterations", "20", "--out", str(strategy)],
                   check=True, env=env, capture_output=True)
    meta, arrays = npz.load(strategy, "coupsolve.solvers.SolveResult")  # another strategy of the
    p = arrays["average_policy"]  # same tree: two probabilities moved
    p[:2] = p[1::-1] if p[0] != p[1] else (p[0] + 0.25, p[1] - 0.25)
    npz.save(other, meta["kind"], meta, arrays)

    def run(*args, out):
        done = subprocess.run([sys.executable, script, *args, "--games", "300", "--seed", "4",
                               "--out", str(tmp_path / out)], env=env, capture_output=True, text=True)
        return done, (json.loads((tmp_path / out).read_text()) if done.returncode == 0 else None)

    first, whole = run(str(strategy), "--keep-best", str(kept), out="a.json")
    assert first.returncode == 0, first.stderr
    again, one = run(str(strategy), "--best", str(kept), "--seat", "1", out="b.json")
    assert again.returncode == 0, again.stderr
    assert "the exact best response of seat" in first.stdout
    assert "the exact best response of seat" not in again.stdout
    assert [s["seat"] for s in one["seats"]] == [1] and one["best_read_from"] == kept.name
    assert one["seats"][0] == whole["seats"][1]
    refused, _ = run(str(other), "--best", str(kept), out="c.json")
    assert refused.returncode == 2 and refused.stdout.count("\n") <= 3
    assert len(refused.stderr.strip().splitlines()) == 1 and "another strategy" in refused.stderr
