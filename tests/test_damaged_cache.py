"""A damaged size cache (coupsolve.trees.sizecache) never corrupts memory nor stops a command: every
edit is either noticed (its check no longer matches: the tree is counted afresh) or, forged with a
matching check, stopped by the builder's own bounds checks with one line; a file nested too deep,
too large or not a file at all is ignored with one line (issue 48)."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from coupsolve import Rules, count_tree
from coupsolve.cli import main
from coupsolve.trees import sizecache
from coupsolve.trees.history import builder
from coupsolve.trees.history.size import SizeMismatch


RULES = Rules.two_player_selection(turn_limit=1, challenge_bounty=1)  # not in the packaged table
RULE = ["--turn-limit", "1", "--rule", "challenge_bounty=1"]


@pytest.fixture(scope="module")
def size():
    return count_tree(RULES)


def _halved(s):
    levels = np.r_[1, s.levels[1:] // 2]
    return s._replace(levels=levels, nodes=int(levels.sum()))


# Sizes that are not the tree's: each must stop the build with SizeMismatch, never write past an array.
FORGED = {
    "levels halved, self-consistent": _halved,
    "decisions halved": lambda s: s._replace(decision_nodes=s.decision_nodes // 2),
    "decision children halved": lambda s: s._replace(decision_children=s.decision_children // 2),
    "one more history at the last level": lambda s: s._replace(levels=np.r_[s.levels[:-1], s.levels[-1] + 1],
                                                               nodes=s.nodes + 1),
    "levels cut short": lambda s: s._replace(levels=s.levels[:3], nodes=int(s.levels[:3].sum())),
    "levels moved between levels": lambda s: s._replace(levels=np.r_[s.levels[:2] * [1, 2],
                                                                     s.levels[2:3] - s.levels[1],
                                                                     s.levels[3:]]),
    "a negative level": lambda s: s._replace(levels=np.r_[s.levels[:-2], -s.levels[-2],
                                                          s.levels[-1] + 2 * s.levels[-2]]),
    "no levels": lambda s: s._replace(levels=np.zeros(0, np.int64), nodes=0),
    "one decision too many": lambda s: s._replace(decision_nodes=s.decision_nodes + 1),
}


@pytest.mark.parametrize("name", FORGED)
def test_a_size_that_is_not_the_trees_stops_the_build(name, size):
    with pytest.raises(SizeMismatch, match="is not"):
        builder.fill_tree(RULES, FORGED[name](size))


def test_the_true_size_builds(size):
    out, iset, counts, info = builder.fill_tree(RULES, size)
    assert int(counts[0]) == size.nodes and info["histories"] == size.nodes


def test_a_count_times_the_walk_not_the_compile(size):
    # the first count of the session compiled the walk first: its seconds are the count's alone
    assert size.seconds < 5.0


def _prime():
    sizecache.remember(RULES, count_tree(RULES))
    path = sizecache.cache_path()
    return path, json.load(open(path, encoding="utf-8"))


def _edit_entry(data, change, resign):
    key = RULES.game_string()
    change(data["sizes"][key])
    if resign:  # a forgery that knows the check
        data["checks"][key] = sizecache._check(key, data["sizes"][key], data["stamp"])
    return data


def _halve_levels(entry):
    entry["levels"] = [1] + [x // 2 for x in entry["levels"][1:]]
    entry["nodes"] = sum(entry["levels"])


# Edits of the cache file (on the primed cache of turn limit 1): each is a one-line warning at most.
EDITS = {
    "levels halved": lambda d: _edit_entry(d, _halve_levels, False),
    "decisions doubled": lambda d: _edit_entry(d, lambda e: e.update(decision_nodes=2 * e["decision_nodes"]),
                                               False),
    "a bound made exact": lambda d: _edit_entry(d, lambda e: e.clear() or e.update(at_least=10**30), False),
    "checks removed": lambda d: {k: v for k, v in d.items() if k != "checks"},
    "checks of another type": lambda d: dict(d, checks=[1, 2]),
}


@pytest.mark.parametrize("name", EDITS)
def test_an_edited_entry_is_noticed_and_counted_afresh(name, capsys):
    path, data = _prime()
    json.dump(EDITS[name](data), open(path, "w", encoding="utf-8"))
    assert main(["info", *RULE, "--representation", "history"]) == 0
    captured = capsys.readouterr()
    assert "a cached count" not in captured.out and "tree (counted in" in captured.out
    assert "do not match their check" in captured.err or captured.err == "", captured.err
    assert len(captured.err.strip().splitlines()) <= 1


def _deep(n):
    return "[" * n + "]" * n


# Cache files that are not a file of sizes: each ignored with one line.
FILES = {
    "nested 200,000 deep": lambda p: open(p, "w").write(_deep(200_000)),
    "nested inside the sizes": lambda p: open(p, "w").write(
        '{"format": "coupsolve tree sizes", "sizes": {"x": ' + _deep(100_000) + "}}"),
    "too large": lambda p: open(p, "w").write(" " * (sizecache.MAX_FILE_BYTES + 1) + "{}"),
    "a folder": lambda p: os.mkdir(p),
    "binary": lambda p: open(p, "wb").write(bytes(range(256))),
}


@pytest.mark.parametrize("name", FILES)
def test_a_hostile_cache_file_is_one_line(name, capsys):
    path = sizecache.cache_path()
    os.makedirs(os.path.dirname(path), exist_ok=True)
    FILES[name](path)
    assert sizecache.lookup(RULES) is None or sizecache.lookup(RULES).source == sizecache.KNOWN
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "ignoring the size cache" in err, err


def test_a_forged_entry_with_its_check_is_one_line_not_a_crash(tmp_path):
    """The issue's recipe: prime the cache with a solve, halve the levels keeping them self-consistent
    (and, worse than the issue's edit, forge the check too), solve again: one line, status 2, no
    signal (it was SIGSEGV, an endless run or munmap_chunk() aborts). In a subprocess, so a crash
    fails this test instead of killing the run."""
    env = dict(os.environ, COUPSOLVE_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=os.getcwd())
    argv = [sys.executable, "-m", "coupsolve", "solve", *RULE, "--iterations", "3", "--no-progress"]
    first = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    path = tmp_path / "cache" / "tree-sizes.json"
    data = json.loads(path.read_text())
    path.write_text(json.dumps(_edit_entry(data, _halve_levels, True)))
    second = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert second.returncode == 2, (second.returncode, second.stderr)
    assert "is not this tree's" in second.stderr and "Traceback" not in second.stderr
    assert len(second.stderr.strip().splitlines()) == 1, second.stderr


def test_the_check_covers_key_entry_and_stamp():
    entry = {"nodes": 1}
    base = sizecache._check("k", entry, {"s": 1})
    assert base != sizecache._check("k2", entry, {"s": 1}) != sizecache._check("k", {"nodes": 2}, {"s": 1})
    assert base != sizecache._check("k", entry, {"s": 2})
    assert len(base) == 32 and int(base, 16) >= 0  # a hex digest


@pytest.mark.parametrize("limit", ["5", "10000"])
def test_a_limit_longer_than_a_known_too_large_one_is_refused_at_once(limit, capsys, monkeypatch):
    """``info --turn-limit 5`` counted for 5 minutes before saying no, 10000 for longer: a game
    contains its shorter-limit tree, so turn limit 4's packaged size refuses it at once."""
    def refuse(*args, **kwargs):
        raise AssertionError("counted")

    monkeypatch.setattr(builder, "count_tree", refuse)
    assert main(["info", "--turn-limit", limit, "--max-memory", "16GiB"]) == 2
    err = capsys.readouterr().err
    assert "known size of turn limit 4" in err and len(err.strip().splitlines()) == 1
