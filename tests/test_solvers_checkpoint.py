"""Checkpoints, resuming, and Ctrl-C."""

import os
import signal
import threading

import numpy as np
import pytest

import solvers
import solvers.history.rep
import solvers.cfr.solver
from solvers.cfr.checkpoint import load_checkpoint


def _same_result(a, b):
    assert a.iterations == b.iterations
    assert np.array_equal(a.average_policy, b.average_policy)
    assert np.array_equal(a.current_policy, b.current_policy)
    assert np.array_equal(a.curve_iterations, b.curve_iterations)
    assert np.array_equal(a.curve_exploitability, b.curve_exploitability)
    assert np.array_equal(a.game_value, b.game_value)


@pytest.mark.parametrize("algorithm", list(solvers.ALGORITHMS))
def test_split_run_equals_uninterrupted_run(algorithm, leduc, tmp_path):
    _, tree = leduc
    path = tmp_path / "run.npz"
    first = solvers.solve(tree, algorithm, iterations=37, check_every=25, checkpoint=path,
                          progress=False)
    assert first.iterations == 37 and list(first.curve_iterations) == [25, 37]
    resumed = solvers.solve(tree, iterations=100, check_every=25, resume=path, checkpoint=path,
                            progress=False)
    whole_path = tmp_path / "whole.npz"
    whole = solvers.solve(tree, algorithm, iterations=100, check_every=25, checkpoint=whole_path,
                          progress=False)
    assert resumed.algorithm == algorithm
    _same_result(resumed, whole)
    assert list(whole.curve_iterations) == [25, 50, 75, 100]
    # The final states are bit-identical too (the resumed run rewrote its checkpoint).
    end_a, end_b = load_checkpoint(path, tree), load_checkpoint(whole_path, tree)
    for name in ("regret", "cumulative", "sigma"):
        assert np.array_equal(end_a[name], end_b[name]), name
    assert end_a["iterations"] == end_b["iterations"] == 100


def test_checkpoints_are_written_every_k_iterations(kuhn, tmp_path, monkeypatch):
    _, tree = kuhn
    written = []
    original = solvers.cfr.solver.save_checkpoint

    def spy(path, tree, algorithm, seed, iteration, *args):
        written.append(iteration)
        return original(path, tree, algorithm, seed, iteration, *args)

    monkeypatch.setattr(solvers.cfr.solver, "save_checkpoint", spy)
    path = tmp_path / "ck.npz"
    solvers.solve(tree, "cfr", iterations=50, checkpoint=path, checkpoint_every=20, progress=False)
    assert written == [20, 40, 50]
    assert load_checkpoint(path, tree)["iterations"] == 50
    assert not os.path.exists(str(path) + ".tmp")


def _interrupt_after(monkeypatch, calls):
    original = solvers.history.rep.HistoryTree.iterate
    count = {"n": 0}

    def iterate(self, n):
        original(self, n)
        count["n"] += 1
        if count["n"] == calls:
            raise KeyboardInterrupt

    monkeypatch.setattr(solvers.history.rep.HistoryTree, "iterate", iterate)


def test_interrupt_returns_last_complete_iterate_and_resumes(leduc, tmp_path, monkeypatch):
    _, tree = leduc
    path = tmp_path / "ck.npz"
    _interrupt_after(monkeypatch, 3)
    stopped = solvers.solve(tree, "pcfr+", iterations=400, check_every=10, checkpoint=path,
                            progress=False)
    monkeypatch.undo()
    assert stopped.interrupted and 0 < stopped.iterations < 400
    assert stopped.curve_iterations[-1] == stopped.iterations
    fresh = solvers.solve(tree, "pcfr+", iterations=stopped.iterations, check_every=10,
                          progress=False)
    assert not fresh.interrupted
    _same_result(stopped, fresh)
    assert load_checkpoint(path, tree)["iterations"] == stopped.iterations
    resumed = solvers.solve(tree, iterations=400, check_every=10, resume=path, progress=False)
    whole = solvers.solve(tree, "pcfr+", iterations=400, check_every=10, progress=False)
    _same_result(resumed, whole)


def test_real_sigint_stops_cleanly(kuhn):
    _, tree = kuhn
    solvers.solve(tree, "cfr+", iterations=2, progress=False)  # compiled and loaded
    # A process started in the background by a non-interactive shell (as CI may be) inherits SIGINT
    # as ignored, and Python then never raises KeyboardInterrupt: install its default handler here.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        stopped = solvers.solve(tree, "cfr+", iterations=10**8, check_every=10**6,
                                progress=False)
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)
    assert stopped.interrupted and 0 < stopped.iterations < 10**8
    again = solvers.solve(tree, "cfr+", iterations=stopped.iterations, check_every=10**6,
                          progress=False)
    assert np.array_equal(stopped.average_policy, again.average_policy)
    assert np.array_equal(stopped.current_policy, again.current_policy)
    assert stopped.exploitability == again.exploitability


def test_resume_defaults_to_the_checkpoint_algorithm_and_seed(kuhn, tmp_path):
    _, tree = kuhn
    path = tmp_path / "ck.npz"
    solvers.solve(tree, "dcfr", iterations=5, seed=42, checkpoint=path, progress=False)
    resumed = solvers.solve(tree, iterations=8, resume=path, progress=False)
    assert (resumed.algorithm, resumed.seed, resumed.iterations) == ("dcfr", 42, 8)


def test_resume_refusals(kuhn, leduc, tmp_path):
    _, tree = kuhn
    _, other = leduc
    path = tmp_path / "ck.npz"
    solvers.solve(tree, "dcfr", iterations=5, seed=42, checkpoint=path, progress=False)
    with pytest.raises(ValueError, match="algorithm='dcfr', not 'cfr'"):
        solvers.solve(tree, "cfr", iterations=10, resume=path, progress=False)
    with pytest.raises(ValueError, match="seed=42, not 0"):
        solvers.solve(tree, iterations=10, seed=0, resume=path, progress=False)
    with pytest.raises(ValueError, match="already at iteration 5"):
        solvers.solve(tree, iterations=4, resume=path, progress=False)
    with pytest.raises(ValueError, match="saved for game 'kuhn_poker\\(\\)'"):
        solvers.solve(other, iterations=10, resume=path, progress=False)
    with pytest.raises(FileNotFoundError):
        solvers.solve(tree, iterations=10, resume=tmp_path / "missing.npz", progress=False)
