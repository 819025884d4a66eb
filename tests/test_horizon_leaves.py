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
