"""What the command line reports and refuses: strategy files used only for what they record, the full
JSON of solve and analyse, the target's cap and warning, the card choice's best-response values, rarely
made claims marked, an honest plot, and logs that show forced steps."""

import io
import json
import sys

import matplotlib.figure
import pytest

from coupsolve import Rules
from coupsolve.cli import main, random_game_log
from coupsolve.plan.options import ALGORITHM
from solvers import npz as _npz

KIND = "coupsolve.solvers.SolveResult"
PROVENANCE = {"algorithm", "iterations", "exploitability", "rules", "version", "seed", "game_id",
              "precision", "updates", "threads", "analysis"}


def _run(argv, capsys):
    try:
        code = main(argv)
    except SystemExit as e:
        code = e.code
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture(scope="module")
def solved(tmp_path_factory):
    folder = tmp_path_factory.mktemp("reports")
    path = folder / "s.npz"
    assert main(["solve", "--turn-limit", "1", "--iterations", "50", "--out", str(path), "--json",
                 str(folder / "solve.json"), "--no-progress"]) == 0
    return path, json.loads((folder / "solve.json").read_text())


def _rewrite(src, dst, **changes):
    meta, arrays = _npz.load(src, KIND)
    meta.update(changes)
    meta.pop("kind")
    meta.pop("version")
    _npz.save(dst, KIND, meta, arrays)
    return dst


def test_solve_json_has_the_analysis_and_provenance(solved):
    _, data = solved
    assert PROVENANCE <= set(data)
    assert data["iterations"] == 50 and data["algorithm"] == ALGORITHM and data["seed"] == 0
    assert {"claims", "by_turn", "choice_best_response", "reach_threshold"} <= set(data["analysis"])


def test_analyse_json_has_the_same_report(solved, capsys):
    path, solve = solved
    code, out, _ = _run(["analyse", str(path), "--json"], capsys)
    assert code == 0
    data = json.loads(out.strip().splitlines()[-1])
    assert PROVENANCE <= set(data)
    assert data["exploitability"] == pytest.approx(solve["exploitability"])
    assert data["analysis"]["claims"] == solve["analysis"]["claims"]


def test_a_file_naming_other_rules_is_refused(solved, tmp_path, capsys):
    """The draw payoff's strategy relabelled as the influence payoff's: same shape, other tree."""
    path, _ = solved
    meta, _ = _npz.load(path, KIND)
    other = _rewrite(path, tmp_path / "o.npz",
                     game_id=meta["game_id"].replace("limit_payoff=draw", "limit_payoff=influence"))
    for command in ("analyse", "play"):
        code, _, err = _run([command, str(other)], capsys)
        assert code == 2 and "another tree" in err and len(err.strip().splitlines()) == 1


def test_a_file_of_another_version_is_refused(solved, tmp_path, capsys, monkeypatch):
    path, _ = solved
    import solvers.npz as npz

    monkeypatch.setattr(npz, "library_version", lambda: "0.0.1")
    old = _rewrite(path, tmp_path / "old.npz")
    monkeypatch.undo()
    code, _, err = _run(["analyse", str(old)], capsys)
    assert code == 2 and "coupsolve 0.0.1" in err


def test_play_checks_the_policy_before_the_first_move(solved, tmp_path, capsys, monkeypatch):
    path, _ = solved
    meta, arrays = _npz.load(path, KIND)
    arrays["average_policy"] = arrays["average_policy"] * 2.0
    meta.pop("kind"), meta.pop("version")
    bad = tmp_path / "bad.npz"
    _npz.save(bad, KIND, meta, arrays)
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    code, out, err = _run(["play", str(bad)], capsys)
    assert code == 2 and "sum to" in err and "You are" not in out


def test_target_alone_is_capped_and_warned_up_front(capsys):
    code, out, _ = _run(["solve", "--turn-limit", "1", "--target-exploitability", "1e-9", "--precision",
                         "float32", "--max-iterations", "30", "--algorithm", "cfr+", "--no-progress"], capsys)
    assert code == 0
    assert out.index("warning: --target-exploitability 1e-09") < out.index("counting")
    assert "at most 30 iterations" in out and "cfr+: 30 iterations" in out


def test_card_choice_beside_its_best_response_value(solved, capsys):
    path, _ = solved
    code, out, _ = _run(["analyse", str(path)], capsys)
    assert code == 0
    assert "strategy" in out and "best response" in out and "regret" in out
    data = solved[1]["analysis"]
    for seat, values in data["choice_best_response"].items():
        # the chooser can always get close to the game value: no card is worth much less than it
        assert min(values.values()) > max(values.values()) - 0.05
        assert set(values) == set(data["choice_value"][seat])


def test_rare_claims_are_marked_and_never_made_is_not_never_bluffed(solved, capsys):
    path, _ = solved
    _, out, _ = _run(["analyse", str(path)], capsys)
    claims = {row["claim"]: row for row in solved[1]["analysis"]["claims"]}
    assert claims["Assassinate"]["made"] == 0.0
    assert "never made" in out and "less than 0.01 times a game" in out
    rare = [c for c, r in claims.items() if 0 < r["made"] < 0.01 and r["bluff"] is not None]
    assert rare and any(f"({100 * claims[c]['bluff']:.1f}%)" in out for c in rare)


def test_the_plot_is_labelled_and_titled_with_the_exploitability(solved, tmp_path, capsys, monkeypatch):
    path, _ = solved
    figures = []
    original = matplotlib.figure.Figure.savefig
    monkeypatch.setattr(matplotlib.figure.Figure, "savefig",
                        lambda self, *a, **k: figures.append(self) or original(self, *a, **k))
    assert _run(["analyse", str(path), "--plot", str(tmp_path / "p.png")], capsys)[0] == 0
    fig = figures[0]
    assert "exploitability" in fig._suptitle.get_text()
    for ax in fig.axes:
        assert ax.get_xlabel() and ax.get_ylabel()
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert not any("Treaty" in label for label in labels)  # no marked cards in this game
    assert any("never made" == t.get_text() for t in fig.axes[0].texts)


def test_random_log_shows_forced_steps_turns_and_rounds():
    text = "\n".join(line for seed in range(40)
                     for line in random_game_log(Rules.two_player_selection(turn_limit=30), seed))
    assert "-- turn 1 of 30" in text
    assert "forced: p" in text and "failed to prove" in text
    assert "proved: showed" in text
    assert "out of the game" in text
    assert "Pass (no challenge)" in text and "Pass (no block)" in text


def test_play_log_shows_the_turn_and_the_limit(solved, capsys, monkeypatch):
    path, _ = solved
    monkeypatch.setattr(sys, "stdin", io.StringIO("0\n" * 40))
    code, out, _ = _run(["play", str(path), "--seed", "3"], capsys)
    assert code == 0
    assert "-- turn 1 of 1" in out and "(turn 1 of 1)" in out


def test_the_plot_titles_the_rules_in_words_and_names_every_colour(solved, tmp_path, capsys, monkeypatch):
    """The plot's title was a Python repr ("Rules(setup=selection, ...)") and the bluff panel's colour
    had no legend entry (issue 48)."""
    path, _ = solved
    figures = []
    original = matplotlib.figure.Figure.savefig
    monkeypatch.setattr(matplotlib.figure.Figure, "savefig",
                        lambda self, *a, **k: figures.append(self) or original(self, *a, **k))
    assert _run(["analyse", str(path), "--plot", str(tmp_path / "p.png")], capsys)[0] == 0
    heading = figures[0]._suptitle.get_text()
    assert "Rules(" not in heading and "card selection, 2 players, turn limit 1" in heading
    for ax in figures[0].axes:
        colours = {tuple(p.get_facecolor()[:3]) for p in ax.patches}
        legend = ax.get_legend()
        named = set() if legend is None else {tuple(h.get_facecolor()[:3]) for h in legend.legend_handles}
        assert colours <= named, ax.get_title()


def test_a_short_game_says_what_its_turn_limit_means(solved, capsys):
    path, _ = solved
    code, out = _run(["analyse", str(path)], capsys)[:2]
    assert code == 0
    assert "turn limit 1: the game stops after 1 turn and is scored as a draw" in out
    assert "not of Coup played to the end" in out
