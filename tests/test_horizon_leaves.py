"""``examples/horizon_leaves.py``: the verdict of each rate between the last two depths that reach its turn."""

import importlib.util
import json
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture
def script(tmp_path, monkeypatch):
    spec = importlib.util.spec_from_file_location("horizon_leaves", os.path.join(ROOT, "examples", "horizon_leaves.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setattr(module, "OUT", str(tmp_path))
    return module


def report(k, rates, **leaves):
    """A solve's ``--json`` report of turn limit ``k``: ``rates[turn][claim] = (made, bluff, challenged)``."""
    by_turn = {str(t): [{"claim": c, "made": m, "bluff": b, "challenged": ch} for c, (m, b, ch) in rows.items()]
               for t, rows in rates.items()}
    return {"rules": {"turn_limit": k}, "analysis": {"by_turn": by_turn}, "algorithm": "hs-dcfr", "iterations": 10,
            "exploitability": 1e-3, "leaves": {"blueprint": "/somewhere/bp.npz", "continuations": 2, "rollouts": 4,
                                               "largest_stderr": 0.5, "leaf_states": 7, **leaves}}


def test_verdicts_by_turn(script, tmp_path):
    for k in (1, 2, 3):  # the draw payoff's reports, read beside the output
        (tmp_path / f"tl{k}_draw.json").write_text(json.dumps(report(k, {1: {"Tax": (1.0, 0.1, 0.2)}})))
    paths = []
    for k, rates in ((1, {1: {"Tax": (0.9, 0.20, 0.10)}}),
                     (2, {1: {"Tax": (0.9, 0.30, 0.10), "Steal": (0.5, 0.4, 0.4)},
                          2: {"Tax": (0.5, 0.10, 0.30)}}),
                     (3, {1: {"Tax": (0.9, 0.34, 0.20), "Steal": (0.005, 0.4, 0.4)},
                          2: {"Tax": (0.5, 0.12, 0.31)}})):
        path = tmp_path / f"in{k}.json"
        path.write_text(json.dumps(report(k, rates)))
        paths.append(str(path))
    script.main(paths)
    text = (tmp_path / "horizon_leaves.md").read_text()
    turn1 = text[text.index("## Bluff rate, turn 1"):text.index("## Challenge rate, turn 1")]
    assert "| Tax | 10.0% | 10.0% | 10.0% | 20.0% | 30.0% | 34.0% | stable (4.0 points) |" in turn1
    assert "| Steal |" in turn1 and "rare |" in turn1.split("| Steal |")[1].splitlines()[0]  # 0.005 a game at depth 3
    challenge1 = text[text.index("## Challenge rate, turn 1"):text.index("## Bluff rate, turn 2")]
    assert "still moving (10.0 points)" in challenge1
    turn2 = text[text.index("## Bluff rate, turn 2"):]
    assert "draw TL2 | draw TL3 | leaves, depth 2 | leaves, depth 3 |" in turn2  # turn 2: depths 2 and 3 only
    assert "stable (2.0 points)" in turn2
    copied = json.loads((tmp_path / "dl3_blueprint.json").read_text())
    assert copied["leaves"]["blueprint"] == "bp.npz"  # the blueprint's folder is not written out


def test_again_reports_how_far_one_depths_solves_are(script, tmp_path):
    """Another solve of a depth (another seed, rollout count, blueprint or solver) widens no verdict's
    move between depths, but each verdict says how far one depth's solves are apart, and a table lists
    every solve's turn-1 rates with what it changed."""
    for k in (2, 3):
        (tmp_path / f"tl{k}_draw.json").write_text(json.dumps(report(k, {1: {"Tax": (1.0, 0.1, 0.2)}})))
    main = {2: (0.8, 0.20, 0.03), 3: (1.0, 0.30, 0.01)}
    paths = []
    for k, row in main.items():
        paths.append(tmp_path / f"in{k}.json")
        paths[-1].write_text(json.dumps(report(k, {1: {"Tax": row}})))
    other = report(2, {1: {"Tax": (0.9, 0.22, 0.13)}}, rollouts=128)
    other["seed"], other["algorithm"] = 1, "mmd"
    (tmp_path / "again.json").write_text(json.dumps(other))
    script.main([str(p) for p in paths], [str(tmp_path / "again.json")])
    text = (tmp_path / "horizon_leaves.md").read_text()
    bluff = text[text.index("## Bluff rate, turn 1"):text.index("## Challenge rate, turn 1")]
    assert "still moving (10.0 points); one depth's solves 2.0 apart |" in bluff
    challenge = text[text.index("## Challenge rate, turn 1"):]
    assert "stable (2.0 points); one depth's solves 10.0 apart |" in challenge
    solves = text[text.index("## Turn-1 rates of every solve"):]
    assert "| 2 | seed 1, 128 rollouts, solver mmd | 1.0e-03 | 0.900 | 22.0% | 13.0% |" in solves
    assert "| 3 | the first |" in solves
    assert json.loads((tmp_path / "dl2_again1.json").read_text())["seed"] == 1
    script.main([str(p) for p in paths])  # no other solve this time: none is left beside the report
    assert not list(tmp_path.glob("dl*_again*.json"))
    assert "every solve" not in (tmp_path / "horizon_leaves.md").read_text()
    with pytest.raises(SystemExit, match="depth 4"):
        script.main([str(p) for p in paths], [str(tmp_path / "in2.json"), str(_depth(tmp_path, 4))])


def test_with_exact_leaves_only_the_exact_solves_count_in_the_spread(script, tmp_path):
    """A depth whose main solve has exact leaves: its solves with rollout leaves are listed, but the
    spread is that of the solves of the same exact game (another solver) only."""
    for k in (2, 3):
        (tmp_path / f"tl{k}_draw.json").write_text(json.dumps(report(k, {1: {"Tax": (1.0, 0.1, 0.2)}})))
    paths = []
    for k, row in ((2, (0.9, 0.12, 0.08)), (3, (0.9, 0.22, 0.0))):
        paths.append(tmp_path / f"in{k}.json")
        paths[-1].write_text(json.dumps(report(k, {1: {"Tax": row}}, rollouts=0)))
    again = []
    for name, row, rollouts, algorithm in (("cfrp", (0.9, 0.13, 0.07), 0, "cfr+"),
                                            ("noisy", (0.9, 0.40, 0.30), 32, "hs-dcfr"),
                                            ("further", (0.9, 0.125, 0.075), 0, "hs-dcfr")):
        r = report(3, {1: {"Tax": row}}, rollouts=rollouts)
        r["algorithm"] = algorithm
        if name == "further":
            r["exploitability"], r["iterations"] = 1e-4, 300
        r["rules"]["turn_limit"] = 2
        again.append(tmp_path / f"{name}.json")
        again[-1].write_text(json.dumps(r))
    script.main([str(p) for p in paths], [str(p) for p in again])
    text = (tmp_path / "horizon_leaves.md").read_text()
    bluff = text[text.index("## Bluff rate, turn 1"):text.index("## Challenge rate, turn 1")]
    assert "still moving (10.0 points); one depth's solves 1.0 apart |" in bluff
    solves = text[text.index("## Turn-1 rates of every solve"):]
    assert "| 2 | 32 rollouts |" in solves and "| 2 | solved further (300 iterations) | 1.0e-04 |" in solves


def _depth(tmp_path, k):
    path = tmp_path / f"depth{k}.json"
    path.write_text(json.dumps(report(k, {1: {"Tax": (1.0, 0.1, 0.1)}})))
    return path


def test_a_solve_far_from_equilibrium_is_listed_not_counted(script, tmp_path):
    for k in (2, 3):
        (tmp_path / f"tl{k}_draw.json").write_text(json.dumps(report(k, {1: {"Tax": (1.0, 0.1, 0.2)}})))
    paths = [_depth(tmp_path, 2), _depth(tmp_path, 3)]
    far = report(2, {1: {"Tax": (1.0, 0.9, 0.9)}})
    far["exploitability"] = 10 * script.NEAR
    (tmp_path / "far.json").write_text(json.dumps(far))
    script.main([str(p) for p in paths], [str(tmp_path / "far.json")])
    text = (tmp_path / "horizon_leaves.md").read_text()
    verdicts = text.split("## Turn-1 rates of every solve")[0]
    assert "stable (0.0 points) |" in verdicts and "one depth's solves" not in verdicts
    assert "| 2 | the same settings (not near equilibrium: left out of the verdicts) |" in text


def test_exact_leaf_values_are_named_as_such(script, tmp_path):
    """A main solve with exact leaf values (`--rollouts exact`, recorded as 0) is said to be exact,
    by depth; another solve of its depth by rollouts is listed with its rollout count."""
    for k in (2, 3):
        (tmp_path / f"tl{k}_draw.json").write_text(json.dumps(report(k, {1: {"Tax": (1.0, 0.1, 0.2)}})))
    paths = []
    for k, rollouts in ((2, 0), (3, 128)):
        paths.append(tmp_path / f"in{k}.json")
        paths[-1].write_text(json.dumps(report(k, {1: {"Tax": (0.9, 0.2, 0.1)}}, rollouts=rollouts)))
    (tmp_path / "again.json").write_text(json.dumps(report(2, {1: {"Tax": (0.9, 0.25, 0.1)}}, rollouts=128)))
    script.main([str(p) for p in paths], [str(tmp_path / "again.json")])
    text = (tmp_path / "horizon_leaves.md").read_text()
    assert "(depth 2: exact leaf values; depth 3: 128 rollouts)" in text
    assert "main solves at depth 2 are exact" in text
    assert "| 2 | 128 rollouts |" in text[text.index("## Turn-1 rates of every solve"):]
