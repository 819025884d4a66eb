"""The count by parts (coupsolve.trees.classwalk.count) is the level-by-level count, split below a public level."""

import numpy as np
import pytest

from coupsolve.trees.classwalk.build import level_walk_bytes
from coupsolve.trees.classwalk.count import count_class_tree
from coupsolve.rules import Rules

from coup_helpers import SMALL_RULES

TL1 = Rules.two_player_selection(turn_limit=1)
_SKIP = ("seconds", "work_bytes", "parts")


def _same(a, b):
    for name in a._fields:
        if name in _SKIP:
            continue
        x, y = getattr(a, name), getattr(b, name)
        assert (np.array_equal(x, y) if isinstance(x, np.ndarray) else x == y), name


def _check_parts(whole, size, depth):
    """The parts cover the level they are cut at, once each, and hold everything below it."""
    parts = size.parts
    assert [p.first for p in parts] == sorted(p.first for p in parts)
    assert parts[0].first == 0
    assert all(a.first + a.roots == b.first for a, b in zip(parts, parts[1:]))
    assert parts[-1].first + parts[-1].roots == whole.level_nodes[depth]
    assert sum(p.nodes for p in parts) == whole.level_nodes[depth:].sum()
    assert sum(p.entries for p in parts) == whole.level_entries[depth:].sum()
    assert sum(p.infosets for p in parts) <= whole.infosets
    assert max(p.levels for p in parts) == len(whole.level_nodes) - depth
    assert all(p.matrices >= 1 and p.cells >= p.matrices for p in parts)


@pytest.mark.parametrize("rules", [TL1, SMALL_RULES[3], pytest.param(SMALL_RULES[4], marks=pytest.mark.slow),
                                   SMALL_RULES[5]], ids=str)  # [4]: a turn-limit-2 tree, 60 s
def test_count_by_parts_is_the_count(rules):
    whole = count_class_tree(rules)
    # the estimate of a level-by-level walk from its levels' sizes is within what the walk allocated
    assert 0 < level_walk_bytes(whole.level_nodes, whole.level_entries) <= whole.work_bytes
    for depth, parts, workers in [(2, 1, 1), (5, 9, 2), (len(whole.level_nodes) - 1, 4, 2)]:
        seen, stages = [], []
        size = count_class_tree(rules, lambda *a: stages.append(a), split_depth=depth, parts=parts,
                                workers=workers, on_part=seen.append)
        _same(whole, size)
        # a build walks level by level whatever counted it: a count by parts says what that walk needs
        assert size.work_bytes >= level_walk_bytes(whole.level_nodes, whole.level_entries)
        assert 1 <= len(size.parts) <= parts and sorted(seen) == sorted(size.parts)
        _check_parts(whole, size, depth)
        assert stages[-1] == (f"parts below level {depth}", len(seen), len(seen))


def test_auto_cuts_at_the_first_level_of_enough_nodes_per_part():
    from coupsolve.trees.classwalk.count import AUTO_NODES_PER_PART

    whole = count_class_tree(TL1)
    depth = int(np.argmax(whole.level_nodes >= AUTO_NODES_PER_PART * 2))
    assert whole.level_nodes[depth] >= AUTO_NODES_PER_PART * 2 and depth > 0
    size = count_class_tree(TL1, split_depth="auto", parts=2, workers=2)
    _same(whole, size)
    _check_parts(whole, size, depth)
    assert count_class_tree(TL1, split_depth="auto", parts=10**6).parts == ()


def test_a_cut_below_the_tree_walks_it_whole_and_bad_figures_are_refused():
    whole = count_class_tree(TL1)
    deep = count_class_tree(TL1, split_depth=len(whole.level_nodes), parts=3)
    _same(whole, deep)
    assert deep.parts == ()
    for bad in (dict(split_depth=0), dict(split_depth="deep"), dict(split_depth=2, parts=0),
                dict(split_depth=2, workers=0)):
        with pytest.raises(ValueError, match="at least 1"):
            count_class_tree(TL1, **bad)


def test_some_parts_are_counted_as_the_count_by_parts_counts_them():
    """``count_some_parts`` (a sample of a tree too large to count whole) cuts where the count by
    parts cuts, and each sampled part's figures are that count's for the same part."""
    from coupsolve.trees.classwalk.count import count_some_parts

    size = count_class_tree(TL1, split_depth=5, parts=9, workers=2)
    mine = {p.first: p for p in size.parts}
    n = len(size.parts)
    assert n >= 3
    bounds, cut_entries, sizes = count_some_parts(TL1, 5, 9, [n - 1, 0, n // 2, 0], workers=2)
    assert list(bounds[:-1]) == sorted(mine) and bounds[-1] == sum(p.roots for p in size.parts)
    assert sorted(p.first for p in sizes) == [bounds[0], bounds[n // 2], bounds[n - 1]]
    for p in sizes:
        assert p._replace(seconds=0, work_bytes=0) == mine[p.first]._replace(seconds=0, work_bytes=0)
    whole = count_class_tree(TL1)
    assert cut_entries == whole.level_entries[5]
    with pytest.raises(ValueError, match=f"parts are numbered 0 .. {n - 1}"):
        count_some_parts(TL1, 5, 9, [n])


def test_an_interrupt_stops_the_count():
    def stop(_):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        count_class_tree(TL1, split_depth=3, parts=6, workers=2, on_part=stop)


@pytest.mark.slow
def test_count_by_parts_at_turn_limit_2():
    rules = Rules.two_player_selection(turn_limit=2, limit_payoff="influence")
    whole = count_class_tree(rules)
    size = count_class_tree(rules, split_depth=9, parts=40, workers=2)
    _same(whole, size)
    _check_parts(whole, size, 9)


def test_the_command_line_counts_by_parts_on_its_threads(monkeypatch, capsys):
    """``coupsolve info --representation public`` counts the class walk's tree by parts (the same
    figures as the level-by-level count)."""
    import coupsolve.trees.classwalk.count as classcount
    from coupsolve.plan import public as plan_public
    from coupsolve.cli import main

    seen = []
    real = classcount.count_by_parts
    monkeypatch.setattr(plan_public, "COUNT_PARTS", 2)
    monkeypatch.setattr(classcount, "count_by_parts",
                        lambda *a, **k: seen.append((a, k, real(*a, **k))) or seen[-1][2])
    assert main(["info", "--turn-limit", "1", "--representation", "public"]) == 0
    (args, _, size), = seen
    assert args[1:3] == ("auto", 2) and args[3] >= 1 and len(size.parts) == 2
    _same(count_class_tree(TL1), size)
    assert size.describe().split("; count")[0] in capsys.readouterr().out


def test_a_key_found_twice_is_refused():
    from coupsolve.trees.classwalk.build import _check_keys

    _check_keys(np.array([5, 1, 3], np.uint64))
    with pytest.raises(ValueError, match="one information-set key twice"):
        _check_keys(np.array([5, 1, 3, 1], np.uint64))
