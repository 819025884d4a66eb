"""``coupsolve train`` and the train files in ``analyse`` and ``play`` (run in this process: fast)."""

import io
import json
import shlex

import numpy as np
import pytest

from coupsolve.cli import main
from coupsolve.sampling.keys import KEY_VERSION
from solvers import npz as _npz
from solvers.mccfr.solver import CHECKPOINT_KIND as _KIND

# one worker compiles the sampling kernels (MCCFR) once, not both at the same time
pytestmark = pytest.mark.xdist_group("sampling")

TINY = ["train", "--no-progress", "--turn-limit", "1"]


def cli(capsys, *args, stdin=None, monkeypatch=None):
    """``(status, stdout, stderr)`` of the command line; argparse's errors give status 2 too."""
    if stdin is not None:
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    try:
        status = main([str(a) for a in args])
    except SystemExit as e:
        status = e.code
    out = capsys.readouterr()
    return status, out.out, out.err


def _train(capsys, path, *more):
    status, out, err = cli(capsys, *TINY, "--iterations", 300, "--out", path, "--games", 200, *more)
    assert status == 0, err
    return out


def test_train_writes_a_strategy_that_analyse_and_play_read(capsys, tmp_path, monkeypatch):
    path = tmp_path / "s.npz"
    out = _train(capsys, path, "--seed", 5, "--json")
    report = json.loads(out.strip().splitlines()[-1])
    assert report["iterations"] == 300 and report["seed"] == 5 and report["rules"]["turn_limit"] == 1
    assert report["sampling"] == "external" and report["abstraction"] == "exact"
    meta, arrays = _npz.load(path, _KIND)
    assert meta["rules"]["setup"] == "selection" and meta["seed"] == 5 and meta["trained"]
    assert meta["command"] == shlex.join(["coupsolve", *TINY, "--iterations", "300", "--out", str(path),
                                          "--games", "200", "--seed", "5", "--json"])  # how to make it again
    assert meta["abstraction"] == "exact" and meta["sampling"] == "external"
    assert arrays["key"].shape[0] == meta["infosets"] > 0 and 0.0 <= meta["seconds"] < 60.0
    # analyse with the same games and seed prints the same table as train did (train's table: its seed)
    status, again, human = cli(capsys, "analyse", path, "--games", 200, "--seed", 5, "--json")
    assert status == 0, human
    assert json.loads(again.strip().splitlines()[-1])["analysis"] == report["analysis"]
    status, other, _ = cli(capsys, "analyse", path, "--games", 200, "--seed", 6, "--json")
    assert json.loads(other.strip().splitlines()[-1])["analysis"]["claims"] != report["analysis"]["claims"]
    assert "200 sampled games (seed 5)" in human and "Wilson" in human  # the table: on stderr with --json
    status, text, err = cli(capsys, "play", path, "--seat", 1, "--seed", 2, stdin="nonsense\n" + "0\n" * 30,
                            monkeypatch=monkeypatch)
    assert status == 0, err
    assert "is not one of" in text and any(w in text for w in ("You win.", "You lose.", "A draw"))
    assert "p0 chose a card" in text  # the bot's choice, hidden from you


@pytest.mark.slow
def test_three_players_train_analyse_and_play(capsys, tmp_path, monkeypatch):
    path = tmp_path / "three.npz"
    status, out, err = cli(capsys, *TINY[:-2], "--turn-limit", 3, "--players", 3, "--iterations", 20, "--out",
                           path, "--games", 50)
    assert status == 0, err
    assert "players=3" in out and "sampled games" in out
    status, text, err = cli(capsys, "play", path, "--seat", 2, stdin="0\n" * 200, monkeypatch=monkeypatch)
    assert status == 0, err
    assert "2 bots playing the strategy" in text and "- (you)" in text and "your move" in text
    status, _, err = cli(capsys, "play", path, "--seat", 3)
    assert status == 2 and "seats 0 to 2" in err


def test_resume_is_the_uninterrupted_run(capsys, tmp_path):
    check, first, resumed, whole = (tmp_path / n for n in ("c.npz", "a.npz", "b.npz", "d.npz"))
    _train(capsys, first, "--iterations", 120, "--checkpoint", check)
    _train(capsys, resumed, "--iterations", 300, "--resume", check)
    _train(capsys, whole)
    (m1, a1), (m2, a2) = _npz.load(resumed, _KIND), _npz.load(whole, _KIND)
    assert m1["iterations"] == m2["iterations"] == 300
    assert set(a1) == set(a2)
    for name in a1:
        assert np.array_equal(a1[name], a2[name]), name  # bit for bit
    status, _, err = cli(capsys, "analyse", check)
    assert status == 2 and "training checkpoint" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("args, words", [
    (TINY + ["--iterations", "5", "--abstraction", "bogus"], "invalid choice"),
    (TINY + ["--minutes", "0"], "positive"),
    (TINY + ["--minutes", "-1"], "positive"),
    (TINY, "--iterations N, --minutes M"),
    (TINY + ["--iterations", "5", "--players", "3", "--preset", "two-player-selection"], "--preset standard"),
    (TINY + ["--iterations", "5", "--max-memory", "1MiB", "--max-infosets", "1000000"], "more than --max-memory"),
    (TINY + ["--iterations", "5", "--out", "x.txt"], ".npz"),
])
def test_bad_train_inputs_are_one_line(capsys, args, words):
    status, _, err = cli(capsys, *args)
    assert status == 2 and words in err and len(err.strip().splitlines()) == 1


def test_foreign_and_corrupt_files(capsys, tmp_path):
    path = tmp_path / "s.npz"
    _train(capsys, path, "--iterations", 20)
    meta, arrays = _npz.load(path, _KIND)
    other = tmp_path / "other.npz"
    _npz.save(other, _KIND, dict(meta, rules=dict(meta["rules"], turn_limit=2)), arrays)
    corrupt = tmp_path / "corrupt.npz"
    corrupt.write_bytes(path.read_bytes()[:200])
    plain = tmp_path / "plain.npz"
    np.savez(plain, x=np.zeros(3))
    for bad, words in ((other, "other rules"), (corrupt, "not a coupsolve strategy"),
                       (plain, "not a coupsolve strategy")):
        for command in ("analyse", "play", "match"):
            status, _, err = cli(capsys, command, bad)
            assert status == 2 and words in err and len(err.strip().splitlines()) == 1, (command, err)


def test_field_probe_train_records_the_field_and_resume_checks_it(capsys, tmp_path):
    path, ck = tmp_path / "f.npz", tmp_path / "f_ck.npz"
    field = ["--abstraction", "features", "--sampling", "probe", "--players", 3, "--turn-limit", 4]
    status, out, err = cli(capsys, *TINY[:-2], *field, "--field", "honest=0.5,random=0.1", "--iterations",
                           30, "--out", path, "--checkpoint", ck, "--games", 20, "--json")
    assert status == 0, err
    meta, _ = _npz.load(path, _KIND)
    assert meta["field"] == {"honest": 0.5, "random": 0.1} and meta["sampling"] == "probe"
    assert _npz.load(ck, _KIND)[0]["field"] == meta["field"]  # the checkpoint records it too
    assert meta["features_key"] == KEY_VERSION  # and the version of the features key
    old_meta, arrays = dict(meta, features_key=1), _npz.load(path, _KIND)[1]
    _npz.save(tmp_path / "old.npz", _KIND, old_meta, arrays)
    status, _, refused = cli(capsys, "analyse", tmp_path / "old.npz", "--games", 10)
    assert status == 2 and "version 1 of the features key" in refused, refused
    ck_meta, ck_arrays = _npz.load(ck, _KIND)
    _npz.save(tmp_path / "v2_ck.npz", _KIND, dict(ck_meta, features_key=2), ck_arrays)
    status, _, refused = cli(capsys, *TINY[:-2], *field, "--field", "honest=0.5,random=0.1", "--iterations", 40,
                             "--resume", tmp_path / "v2_ck.npz")
    assert status == 2 and "keyed by version 2 of the features key" in refused, refused
    assert "0.5 of seats honest" in err  # the strategy's description (human lines on stderr with --json)
    status, _, err = cli(capsys, *TINY[:-2], *field, "--field", "honest=0.2", "--iterations", 40,
                         "--resume", ck)
    assert status == 2 and "a run with field" in err, err
    status, _, err = cli(capsys, *TINY[:-2], *field, "--field", "honest=0.5,random=0.1", "--iterations", 40,
                         "--resume", ck, "--games", 10)
    assert status == 0 and "resumed at iteration 30" in err + _, err
    # refused before any work: a field outside the features game, bad shares, probe with exact keys
    for more, words in ((["--field", "honest=0.5"], "features game only"),
                        (["--field", "honest=0.7,random=0.3"], "must be below 1"),
                        (["--field", "dishonest=0.1"], "the bots are honest and random"),
                        (["--sampling", "probe"], "--sampling probe is bound to the features"),
                        (["--warm-start", "5"], "--warm-start is probing's"),
                        (["--explore", "0.1"], "--explore is probing's"),
                        (["--warm-start", "-1"], "give a regret from 0")):
        status, _, err = cli(capsys, *TINY, "--iterations", 5, *more)
        assert status in (1, 2) and words in err, (more, err)
    # a warm start, and a probing path on the strategy, are recorded, described and checked on --resume
    # like the field
    warm = tmp_path / "w.npz"
    for option, value, key, words, other in (
            ("--warm-start", 20, "warm_start", "warm-started at the honest bot's moves (regret 20)", "0.0"),
            ("--explore", 0.25, "explore", "the path on the strategy (0.25 of its moves uniform)", "1.0")):
        status, _, err = cli(capsys, *TINY[:-2], *field, option, value, "--iterations", 10, "--out", warm,
                             "--checkpoint", ck, "--games", 10, "--force")
        assert status == 0 and words in _ + err, err
        assert _npz.load(warm, _KIND)[0][key] == value
        status, _, err = cli(capsys, *TINY[:-2], *field, "--iterations", 20, "--resume", ck)
        assert status == 2 and f"a run with {key} {float(value)}, not {other}" in err, err


def test_match_plays_the_strategy_against_bots_and_files(capsys, tmp_path):
    from coupsolve.evaluation.aivat import match
    from coupsolve.evaluation.arena import play
    from coupsolve.openspiel.bots import RandomBot
    from coupsolve.strategy import load

    path, other = tmp_path / "s.npz", tmp_path / "other.npz"
    _train(capsys, path, "--iterations", 200)
    status, out, err = cli(capsys, "match", path, "--against", "random", "--against", path, "--games", 41,
                           "--seed", 3, "--pilot", 20, "--json")
    assert status == 0, err
    rows = json.loads(out.strip().splitlines()[-1])["rows"]
    assert [r["against"] for r in rows] == ["RandomBot", str(path)]
    assert all(r["games"] == 40 for r in rows)  # a multiple of the seats, so every seat equally often
    # the figures are the arena's, the strategy in one seat: the same games played directly agree
    loaded = load(path)
    game = loaded.game()
    policy = loaded.policy(game)
    direct = play(game, [policy, RandomBot(game)], 40, 3, names=["strategy", "opponent"])
    assert rows[0]["mean"] == pytest.approx(direct.mean[0]) and rows[0]["win_rate"] == direct.win_rate[0]
    reduced = match(game, policy, RandomBot(game), 40, 3, pilot=20)  # the pilot games change nothing
    assert np.array_equal(reduced.payoffs, direct.payoffs) and rows[0]["deals"] == 20
    assert rows[0]["reduced_mean"] == pytest.approx(reduced.adjusted_mean[0])
    for r in rows:
        assert r["pilot"] == 20 and r["variance_reduction"] >= 0
        low, high = r["reduced_mean"] - r["reduced_half_width"], r["reduced_mean"] + r["reduced_half_width"]
        assert r["verdict"] == ("beats it" if low > 0 else "loses to it" if high < 0 else
                                "no difference shown")
    assert "against RandomBot" in err  # the table goes to stderr when the JSON takes stdout
    again = json.loads(cli(capsys, "match", path, "--against", "random", "--games", 40, "--seed", 3,
                           "--pilot", 20, "--json")[1].splitlines()[-1])
    timeless = [{k: v for k, v in r.items() if k != "seconds"} for r in again["rows"]]  # wall time varies
    assert timeless == [{k: v for k, v in r.items() if k != "seconds"} for r in rows[:1]]
    _train(capsys, other, "--iterations", 20, "--turn-limit", 2)
    for against, words in ((other, "other rules"), ("blueprint", "other rules"), ("nonsense", "neither a bot")):
        status, _, err = cli(capsys, "match", path, "--against", against)
        assert status == 2 and words in err and len(err.strip().splitlines()) == 1, err


def test_match_tells_draws_and_plays_the_games_asked(capsys, tmp_path):
    """``match --games 1`` played 2 games and no row told its draws (issue 48)."""
    path = tmp_path / "s.npz"
    _train(capsys, path, "--iterations", 20)
    status, _, err = cli(capsys, "match", path, "--games", 1)
    assert status == 2 and "--games 1" in err and len(err.strip().splitlines()) == 1
    status, out, err = cli(capsys, "match", path, "--games", 5, "--against", "random", "--pilot", 0, "--json")
    assert status == 0, err
    row = json.loads(out.strip().splitlines()[-1])["rows"][0]
    assert row["games"] == 4 and row["deals"] == 2 and 0.0 <= row["draw_rate"] <= 1.0
    assert "reduced_mean" not in row and "reduced" not in err  # --pilot 0: the plain estimate only
    assert "draw rate" in err and "--games 5 rounded down to a multiple of 2" in err


def test_resume_with_other_rules_names_the_options_that_differ(capsys, tmp_path):
    """A --resume of other rules printed a 330-character game string (issue 48)."""
    ck = tmp_path / "ck.npz"
    status, _, err = cli(capsys, *TINY, "--iterations", 20, "--checkpoint", ck, "--games", 4)
    assert status == 0, err
    status, _, err = cli(capsys, *TINY[:-2], "--turn-limit", 2, "--rule", "copies=3", "--iterations", 40,
                         "--resume", ck)
    assert status == 2 and len(err.strip().splitlines()) == 1, err
    assert "--turn-limit 1 (not 2)" in err and "python_coup(" not in err


def test_the_defaults_train_a_full_length_game_of_three_players(capsys):
    """``train --players 3 --minutes 1`` failed with its own defaults (external sampling over exact keys:
    the table full after 0 iterations, issue 48); the planner picks probing over features for it."""
    status, out, err = cli(capsys, "train", "--no-progress", "--players", 3, "--iterations", 3, "--games", 4,
                           "--max-infosets", 20_000)
    assert status == 0, err
    assert "probe sampling, features information sets (a game of more than two players" in out
    assert "3 iterations" in out


def test_the_training_plan_picks_what_fits_the_table():
    from coupsolve import Rules
    from coupsolve.plan.training import choose_training

    tl1 = Rules.two_player_selection(turn_limit=1)  # 2,412 information sets, a packaged size
    assert choose_training(tl1)[:2] == ("external", "exact")
    assert choose_training(tl1, room=1000)[:2] == ("probe", "features")  # more than the table holds
    assert choose_training(tl1, cache=False)[:2] == ("probe", "features")  # not known to fit
    assert choose_training(Rules.two_player_selection(turn_limit=4))[:2] == ("probe", "features")
    assert choose_training(Rules.standard(players=3))[:2] == ("probe", "features")
    assert "played to the end" in choose_training(Rules.standard(players=2)).why
    assert choose_training(tl1, sampling="outcome") == ("outcome", "exact", "as given")  # given: kept
    assert choose_training(Rules.standard(players=4), abstraction="exact")[:2] == ("external", "exact")


def test_a_resumed_run_keeps_its_recorded_options(capsys, tmp_path):
    from coupsolve import Rules
    from coupsolve.plan.training import choose_training

    check = tmp_path / "c.npz"
    status, _, err = cli(capsys, *TINY, "--iterations", 5, "--sampling", "outcome", "--checkpoint", check,
                         "--games", 4)
    assert status == 0, err
    plan = choose_training(Rules.two_player_selection(turn_limit=1), resume=str(check))
    assert plan[:2] == ("outcome", "exact") and "as" in plan.why
    status, out, err = cli(capsys, *TINY, "--iterations", 10, "--resume", check, "--games", 4)
    assert status == 0 and "outcome sampling" in out, err


def test_minutes_alone_stop_the_run(capsys):
    # --minutes without --iterations or --checkpoint: the stepping loop took min() of one number
    status, out, err = cli(capsys, *TINY, "--minutes", 0.01, "--games", 4)
    assert status == 0, err
    assert " iterations in " in out
