"""Counting on a budget and stopping long compiled passes: a tree too big for memory is refused as soon
as the count passes the budget ("more than N"), and Ctrl-C stops the count and the fill."""

import os
import signal
import threading

import numpy as np
import pytest

import coupsolve.builder as builder
from coupsolve import Rules, count_tree
from coupsolve.cli import main
from coupsolve.treesize import MIN_BYTES_PER_HISTORY, TreeTooLarge


def test_count_stops_at_its_budget():
    with pytest.raises(TreeTooLarge, match="more than 200,000 histories") as info:
        count_tree(Rules.two_player_selection(turn_limit=1000), max_nodes=200_000)
    assert 200_000 < info.value.at_least <= 200_000 + 65_536  # polled every 65,536 histories


def test_info_of_a_huge_turn_limit_returns_with_more_than(capsys):
    assert main(["info", "--turn-limit", "1000", "--max-memory", "64MiB"]) == 2
    captured = capsys.readouterr()
    assert "counting the histories" in captured.out  # said before the long step
    err = captured.err.strip()
    assert len(err.splitlines()) == 1 and "more than" in err and "--max-memory" in err
    assert f"at least {MIN_BYTES_PER_HISTORY} bytes a history" in err


def test_info_counts_once_and_reports_the_estimates(capsys, monkeypatch):
    calls = []
    original = builder.count_tree
    monkeypatch.setattr(builder, "count_tree", lambda *a, **k: calls.append(1) or original(*a, **k))
    assert main(["info", "--turn-limit", "1"]) == 0
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
