"""Tree sizes known without counting (coupsolve.trees.sizecache): every entry of the packaged table recounted,
the cache of counts keyed by the exact rules and this very code, written atomically, a bad file ignored
with one line."""

import json
import os
import pathlib
from importlib import resources

import pytest

from coupsolve import Rules, count_tree, load_game
from coupsolve.trees import sizecache
from coupsolve.trees.history.size import TreeTooLarge

TABLE = json.loads((resources.files("coupsolve.trees") / "known_sizes.json").read_text(encoding="utf-8"))
CHEAP = 20_000_000  # histories a default-run recount may walk (turn limit 2: seconds)
PRESETS = [Rules.two_player_selection, lambda **kw: Rules.standard(players=2, **kw)]


def _entries():
    for game_id, entry in sorted(TABLE["sizes"].items()):
        slow = entry.get("nodes", entry.get("at_least")) > CHEAP
        rules = load_game(game_id).rules
        yield pytest.param(game_id, entry, id=str(rules), marks=[pytest.mark.slow] if slow else [])


@pytest.mark.parametrize("game_id,entry", list(_entries()))
def test_each_known_size_is_recounted(game_id, entry):
    rules = load_game(game_id).rules
    assert rules.game_string() == game_id  # the key is these rules' game id as this version writes it
    if "at_least" in entry:  # a lower bound: a count on a budget just below it stops
        with pytest.raises(TreeTooLarge):
            count_tree(rules, max_nodes=entry["at_least"] - 1)
        return
    counted = sizecache.entry_of(count_tree(rules))
    assert {k: v for k, v in counted.items() if k != "seconds"} == {k: v for k, v in entry.items()
                                                                    if k != "seconds"}


def test_the_table_covers_the_presets_and_the_payoff_keeps_the_shape():
    assert TABLE["stamp"] == {"layout": sizecache.COUNT_LAYOUT}
    for make in PRESETS:
        for turn_limit in (1, 2, 3, 4):
            sizes = [sizecache.lookup(make(turn_limit=turn_limit, limit_payoff=p)) for p in ("draw", "influence")]
            assert all(k is not None and k.source == sizecache.KNOWN for k in sizes)
            assert sizes[0].at_least == sizes[1].at_least
    # the card-selection preset at turn limit 4, as counted in issue 11
    tl4 = sizecache.lookup(Rules.two_player_selection(turn_limit=4)).size
    assert (tl4.nodes, tl4.decision_nodes) == (3_049_696_500, 1_001_496_498)


def test_a_count_is_cached_for_its_rules_and_serves_both_limit_payoffs(tmp_path):
    rules = Rules.two_player_selection(turn_limit=1, challenge_bounty=1)
    assert sizecache.lookup(rules) is None
    size = count_tree(rules)
    sizecache.remember(rules, size)
    again = sizecache.lookup(rules)
    assert again.source == sizecache.CACHED and again.size.rules == rules
    assert sizecache.entry_of(again.size) == sizecache.entry_of(size)
    other = sizecache.lookup(rules.replace(limit_payoff="influence"))  # other rules, same shape
    assert other.source == sizecache.CACHED and other.size.rules == rules.replace(limit_payoff="influence")
    assert sizecache.entry_of(other.size) == sizecache.entry_of(size)
    assert sizecache.lookup(rules.replace(challenge_bounty=2)) is None  # another shape
    text = open(sizecache.cache_path(), encoding="utf-8").read()
    assert list(json.loads(text)["sizes"]) == [rules.game_string()]
    assert str(tmp_path) not in text and "/" not in text.replace(rules.game_string(), "")  # no paths


def test_bounds_grow_and_never_replace_a_count():
    rules = Rules.two_player_selection(turn_limit=1, challenge_bounty=1)
    sizecache.remember(rules, at_least=1000)
    sizecache.remember(rules, at_least=500)
    assert sizecache.lookup(rules) == (None, 1000, sizecache.CACHED)
    sizecache.remember(rules, count_tree(rules))
    sizecache.remember(rules, at_least=10**9)
    assert sizecache.lookup(rules).size is not None


@pytest.mark.parametrize("content", ["{not json", json.dumps([1, 2]), json.dumps({"format": "other"}),
                                     json.dumps({"format": sizecache.FORMAT, "stamp": "x", "sizes": 3})])
def test_a_corrupt_or_foreign_cache_is_ignored_with_one_line(content, capsys):
    import os

    rules = Rules.two_player_selection(turn_limit=1, challenge_bounty=1)
    os.makedirs(os.path.dirname(sizecache.cache_path()))
    with open(sizecache.cache_path(), "w", encoding="utf-8") as f:
        f.write(content)
    assert sizecache.lookup(rules) is None
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "ignoring the size cache" in err
    sizecache.remember(rules, at_least=7)  # written over
    assert sizecache.lookup(rules).at_least == 7


def _dump_signed(data, path):
    """Write ``data`` with its entries' checks made to match (a malformed entry that passes its check:
    the entry's own validation is what is tested)."""
    data["checks"] = {k: sizecache._check(k, v, data["stamp"]) for k, v in data["sizes"].items()}
    json.dump(data, open(path, "w", encoding="utf-8"))


def test_a_malformed_entry_or_another_stamp_is_not_used(capsys):
    rules = Rules.two_player_selection(turn_limit=1, challenge_bounty=1)
    sizecache.remember(rules, count_tree(rules))
    path = sizecache.cache_path()
    data = json.load(open(path, encoding="utf-8"))
    data["sizes"][rules.game_string()]["levels"][0] += 1  # the levels no longer add up
    _dump_signed(data, path)
    assert sizecache.lookup(rules) is None
    assert "ignoring the entry" in capsys.readouterr().err
    data["stamp"]["sources"] = "another checkout"
    json.dump(data, open(path, "w", encoding="utf-8"))
    assert sizecache.lookup(rules) is None and capsys.readouterr().err == ""  # silently another code's


def test_the_cache_folder_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.delenv("COUPSOLVE_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert sizecache.cache_path() == str(tmp_path / "xdg" / "coupsolve" / "tree-sizes.json")
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert sizecache.cache_path() == str(tmp_path / "home" / ".cache" / "coupsolve" / "tree-sizes.json")


def test_a_public_count_by_parts_is_cached_whole_and_checked(capsys):
    from coupsolve.trees.classwalk.count import count_class_tree

    rules = Rules.two_player_selection(turn_limit=2)
    size = count_class_tree(rules, split_depth="auto", parts=8)
    assert size.parts and sizecache.lookup_public(rules, 8) is None
    sizecache.remember_public(rules, 8, size)
    back = sizecache.lookup_public(rules, 8)
    assert sizecache.public_entry(back) == sizecache.public_entry(size)
    assert back.parts == size.parts and back.peak_bytes("float32") == size.peak_bytes("float32")
    assert sizecache.lookup_public(rules, 9) is None  # other parts: another cut
    influence = sizecache.lookup_public(rules.replace(limit_payoff="influence"), 8)  # the same shape
    assert influence.rules.limit_payoff == "influence"
    assert sizecache.public_entry(influence) == sizecache.public_entry(size)
    assert sizecache.lookup_public(rules.replace(turn_limit=1), 8) is None
    assert sizecache.lookup_public(rules, 8, cache=False) is None
    assert sizecache.lookup(rules) is None or sizecache.lookup(rules).source == sizecache.KNOWN
    path = sizecache.cache_path()
    data = json.load(open(path, encoding="utf-8"))
    (key,) = data["sizes"]
    data["sizes"][key]["level_nodes"][0] += 1  # the levels no longer add up to the nodes
    _dump_signed(data, path)
    assert sizecache.lookup_public(rules, 8) is None
    assert "ignoring the public count" in capsys.readouterr().err
    del data["sizes"][key]["parts"]
    _dump_signed(data, path)
    assert sizecache.lookup_public(rules, 8) is None and "malformed" in capsys.readouterr().err


def test_a_count_is_kept_across_edits_it_does_not_read(tmp_path):
    """The cache's stamp digests what a count reads (the engine, the tree builders, the rules): an edit
    of the command line keeps the counts, an edit of the engine drops them."""
    import shutil
    import subprocess
    import sys

    root = pathlib.Path(__file__).resolve().parent.parent
    for pkg in ("coupsolve", "solvers"):
        shutil.copytree(root / pkg, tmp_path / pkg, ignore=shutil.ignore_patterns("__pycache__"))

    def stamp():
        out = subprocess.run([sys.executable, "-c", "from coupsolve.trees import sizecache; "
                              "print(sizecache._stamp()['sources'])"], capture_output=True, text=True,
                             check=True, cwd=tmp_path, env=dict(os.environ, PYTHONPATH=str(tmp_path)))
        return out.stdout.strip()

    first = stamp()
    with open(tmp_path / "coupsolve" / "cli" / "args.py", "a") as f:
        f.write("# an edit of the help text\n")
    assert stamp() == first
    with open(tmp_path / "coupsolve" / "engine" / "core.py", "a") as f:
        f.write("# an edit of the engine\n")
    assert stamp() != first


def test_the_limit_payoff_does_not_change_a_count_by_parts():
    """Why one count serves both payoffs: counted under each, every number but the time is equal."""
    from coupsolve.trees.classwalk.count import count_class_tree

    rules = Rules.two_player_selection(turn_limit=1)
    draw, influence = (sizecache.public_entry(count_class_tree(rules.replace(limit_payoff=p),
                                                               split_depth="auto", parts=4))
                       for p in ("draw", "influence"))
    assert draw["nodes"] > 0 and draw.pop("seconds") >= 0 and influence.pop("seconds") >= 0
    assert draw == influence
