"""Counting on a budget and stopping long compiled passes: a tree too big for memory is refused as soon
as the count passes the budget ("more than N"), or at once when its size is known (the packaged table,
the cache of earlier counts); a tree is counted once; Ctrl-C stops the count and the fill."""

import os
import signal
import threading

import numpy as np
import pytest

import coupsolve.trees.history.builder as builder
from coupsolve import Rules, count_tree
from coupsolve.trees import sizecache
from coupsolve.cli import main
from coupsolve.trees.history.size import MIN_BYTES_PER_HISTORY, TreeTooLarge


def test_count_stops_at_its_budget():
    with pytest.raises(TreeTooLarge, match="more than 200,000 histories") as info:
        count_tree(Rules.two_player_selection(turn_limit=1000), max_nodes=200_000)
    assert 200_000 < info.value.at_least <= 200_000 + 65_536  # polled every 65,536 histories


def test_info_of_a_huge_turn_limit_returns_with_more_than(capsys):
    assert main(["info", "--turn-limit", "1000", "--max-memory", "64MiB", "--no-cache"]) == 2  # counted
    captured = capsys.readouterr()
    assert "counting the histories" in captured.out  # said before the long step
    err = captured.err.strip()
    assert len(err.splitlines()) == 1 and "more than" in err and "--max-memory" in err
    assert f"at least {MIN_BYTES_PER_HISTORY} bytes a history" in err


def test_info_counts_once_and_reports_the_estimates(capsys, monkeypatch):
    calls = []
    original = builder.count_tree
    monkeypatch.setattr(builder, "count_tree", lambda *a, **k: calls.append(1) or original(*a, **k))
    assert main(["info", "--turn-limit", "1", "--no-cache"]) == 0  # else the table of known sizes answers
    out = capsys.readouterr().out
    assert calls == [1]
    assert "information sets" in out and "at the peak" in out


def test_ctrl_c_stops_a_count():
    """SIGINT a second into a count that would take minutes: KeyboardInterrupt (the budget is only a
    backstop so a failure ends as TreeTooLarge instead of hanging)."""
    # a process started in the background by a non-interactive shell inherits SIGINT as ignored:
    # install Python's default handler here
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(1.0, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            count_tree(Rules.two_player_selection(turn_limit=1000), max_nodes=200_000_000)
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)


def test_the_fill_polls_its_control(monkeypatch):
    """The fill walk returns at its first poll when the control says stop, raising KeyboardInterrupt."""
    rules = Rules.two_player_selection(turn_limit=2)  # more histories than one poll's 65,536
    size = count_tree(rules)
    monkeypatch.setattr(builder, "_control", lambda max_nodes: np.array([1, 2**62], np.int64))
    with pytest.raises(KeyboardInterrupt):
        builder.fill_tree(rules, size)


def test_ctrl_c_where_the_main_thread_waits_stops_the_count():
    """Ctrl-C raised where the main thread waits for the compiled walk (here by the progress report,
    which runs there) sets the control, the walk returns and KeyboardInterrupt reaches the caller."""
    calls = []

    def progress(histories):
        calls.append(histories)
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        count_tree(Rules.two_player_selection(turn_limit=1000), max_nodes=200_000_000, progress=progress)
    assert len(calls) == 1


def _refuse(*args, **kwargs):
    raise AssertionError("counted although the size was known")


def _counted(monkeypatch):
    """count_tree recording its calls."""
    calls, original = [], builder.count_tree
    monkeypatch.setattr(builder, "count_tree", lambda *a, **k: calls.append(1) or original(*a, **k))
    return calls


@pytest.mark.parametrize("preset", ["two-player-selection", "two-player-standard"])
def test_turn_limit_4_is_refused_without_counting(preset, capsys, monkeypatch):
    """With 24 GiB available (the default budget), the table of known sizes refuses turn limit 4's
    history tree at once: the selection preset's exact size by its peak, the standard one's lower bound
    by the budget. (With the public tree's count allowed, ``auto`` would count it by the class walk for
    about 25 minutes: here that count is capped below turn limit 4's size, so the refusal is immediate.)"""
    import solvers.memory

    from coupsolve.plan import public as plan_public

    monkeypatch.setattr(solvers.memory, "available_bytes", lambda: 24 * 2**30)
    monkeypatch.setattr(plan_public, "AUTO_CLASS_MAX_HISTORIES", 1_000_000_000)
    monkeypatch.setattr(builder, "count_tree", _refuse)
    assert main(["solve", "--preset", preset, "--turn-limit", "4"]) == 2
    captured = capsys.readouterr()
    assert "counting" not in captured.out and "known size" in captured.out + captured.err
    err = captured.err.strip()
    assert len(err.splitlines()) == 1 and "24.00 GiB" in err and "try a lower --turn-limit" in err
    code = main(["info", "--preset", preset, "--turn-limit", "4"])
    out = capsys.readouterr().out
    assert code == 0 and "does NOT fit" in out if preset == "two-player-selection" else code == 2


def test_a_solve_counts_once_across_runs(capsys, monkeypatch):
    """The table knows turn limit 1, but a tree is built only from a count of this very code: the first
    solve counts (and caches the count), the second builds from the cached count."""
    calls = _counted(monkeypatch)
    argv = ["solve", "--turn-limit", "1", "--iterations", "2", "--no-progress"]
    assert main(argv) == 0
    assert calls == [1] and "tree (counted in" in capsys.readouterr().out
    assert main(argv) == 0
    assert calls == [1] and "tree (a cached count" in capsys.readouterr().out
    assert main(["info", "--turn-limit", "1", "--no-cache"]) == 0 and calls == [1, 1]  # bypassed


def test_a_proved_bound_refuses_a_smaller_budget_at_once(capsys, monkeypatch):
    calls = _counted(monkeypatch)
    bounty = ["--rule", "challenge_bounty=1"]  # not packaged: no shorter limit's size bounds it
    argv = ["info", "--turn-limit", "1000", "--max-memory", "64MiB", *bounty]
    assert main(argv) == 2 and calls == [1]
    assert "(counted)" in capsys.readouterr().err
    assert main(argv) == 2 and calls == [1]  # the cached bound answered
    captured = capsys.readouterr()
    assert "counting" not in captured.out and "(cached count)" in captured.err
    assert len(captured.err.strip().splitlines()) == 1
    before = open(sizecache.cache_path()).read()
    assert main(argv + ["--no-cache"]) == 2 and calls == [1, 1]  # counted afresh, nothing cached
    assert open(sizecache.cache_path()).read() == before
    assert main(["info", "--turn-limit", "1000", "--max-memory", "128MiB", *bounty]) == 2 and calls == [1, 1, 1]


def test_a_corrupt_cache_is_ignored_with_one_line(capsys, monkeypatch):
    import os

    calls = _counted(monkeypatch)
    os.makedirs(os.path.dirname(sizecache.cache_path()))
    with open(sizecache.cache_path(), "wb") as f:
        f.write(b"\x00half a file")
    assert main(["info", "--turn-limit", "1", "--rule", "challenge_bounty=1"]) == 0 and calls == [1]
    captured = capsys.readouterr()
    assert "tree (counted in" in captured.out
    assert len(captured.err.strip().splitlines()) == 1 and "ignoring the size cache" in captured.err
    assert main(["info", "--turn-limit", "1", "--rule", "challenge_bounty=1"]) == 0 and calls == [1]
    assert "a cached count" in capsys.readouterr().out  # the corrupt file was replaced by a good one
