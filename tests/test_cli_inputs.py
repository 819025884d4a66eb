"""The command line's inputs: one bad value per option of every command ends in one line naming it,
exit status 2, before anything is counted or built; every option's help shows its default."""

import argparse

import pytest

import coupsolve.trees.history.builder
import coupsolve.trees.history.tree
from coupsolve.cli import build_parser, main

# (argv, the words the one-line error must hold): one bad value for every option of every command
BAD = [
    (["solve", "--preset", "three"], "--preset"),
    (["solve", "--turn-limit", "0"], "--turn-limit"),
    (["solve", "--turn-limit", "99999"], "--turn-limit: must be at most"),
    (["solve", "--limit-payoff", "win"], "--limit-payoff"),
    (["solve", "--rule", "copies=0"], "copies"),
    (["solve", "--max-memory", "lots"], "--max-memory"),
    (["solve", "--algorithm", "mccfr"], "--algorithm"),
    (["solve", "--iterations", "0"], "--iterations"),
    (["solve", "--target-exploitability", "-1"], "--target-exploitability"),
    (["solve", "--target-exploitability", "nan"], "--target-exploitability"),
    (["solve", "--max-iterations", "0"], "--max-iterations"),
    (["solve", "--check-every", "x"], "--check-every"),
    (["solve", "--seed", "-1"], "--seed"),
    (["solve", "--threads", "0"], "--threads"),
    (["solve", "--pieces", "0"], "--pieces"),
    (["info", "--pieces", "-3"], "--pieces"),
    (["solve", "--ray", "local", "--representation", "history"], "--ray solves the public tree"),
    (["solve", "--ray-workers", "0"], "--ray-workers"),
    (["solve", "--precision", "float16"], "--precision"),
    (["solve", "--updates", "sometimes"], "--updates"),
    (["solve", "--out", "no/such/folder/s.npz"], "--out no/such/folder/s.npz: the folder"),
    (["solve", "--out", "s.txt"], "--out must name a .npz file"),
    (["solve", "--checkpoint", "no/such/folder/c.npz"], "--checkpoint"),
    (["solve", "--checkpoint-every", "0"], "--checkpoint-every"),
    (["solve", "--out", "run.npz", "--checkpoint", "run.npz"], "--out run.npz is also the checkpoint"),
    (["solve", "--resume", "missing.npz"], "--resume missing.npz: no such file"),
    (["solve", "--leaves", "missing.npz"], "--leaves missing.npz: no such file"),
    (["solve", "--leaves", "b.npz", "--continuations", "5"], "--continuations"),
    (["solve", "--leaves", "b.npz", "--rollouts", "0"], "--rollouts"),
    (["solve", "--leaves", "b.npz", "--rollouts", "exactly"], "--rollouts"),
    (["solve", "--plot", "rates.xyz"], "--plot rates.xyz: unknown image format"),
    (["solve", "--plot", "rates"], "--plot rates: no image format"),
    (["solve", "--plot", "no/such/folder/p.png"], "--plot"),
    (["solve", "--json", "no/such/folder/r.json"], "--json"),
    (["demo", "--turn-limit", "-3"], "--turn-limit"),
    (["analyse", "missing.npz"], "no such file"),
    (["analyse", "missing.npz", "--plot", "p.xyz"], "--plot"),
    (["analyse", "missing.npz", "--json", "no/such/folder/r.json"], "--json"),
    (["info", "--preset", "x"], "--preset"),
    (["info", "--turn-limit", "two"], "--turn-limit"),
    (["info", "--limit-payoff", "x"], "--limit-payoff"),
    (["info", "--rule", "bogus=1"], "--rule bogus"),
    (["info", "--max-memory", "0"], "--max-memory"),
    (["info", "--representation", "flat"], "--representation"),
    (["solve", "--representation", "vectors"], "--representation"),
    (["play", "missing.npz"], "no such file"),
    (["play", "missing.npz", "--seat", "6"], "--seat"),
    (["play", "missing.npz", "--seed", "x"], "--seed"),
    (["play", "missing.npz", "--search", "5"], "--search"),
    (["play", "missing.npz", "--search-iterations", "0"], "--search-iterations"),
    (["play", "missing.npz", "--search-honest", "1.5"], "--search-honest"),
    (["play", "missing.npz", "--search-trust", "2"], "--search-trust"),
    (["analyse", "missing.npz", "--games", "0"], "--games"),
    (["analyse", "missing.npz", "--seed", "-1"], "--seed"),
    (["train", "--players", "7"], "--players"),
    (["train", "--preset", "x"], "--preset"),
    (["train", "--turn-limit", "0"], "--turn-limit"),
    (["train", "--limit-payoff", "x"], "--limit-payoff"),
    (["train", "--iterations", "5", "--rule", "bogus=1"], "--rule bogus"),
    (["train", "--max-memory", "lots"], "--max-memory"),
    (["train", "--sampling", "x"], "--sampling"),
    (["train", "--abstraction", "x"], "--abstraction"),
    (["train", "--regret", "x"], "--regret"),
    (["train", "--average", "x"], "--average"),
    (["train", "--seed", "-1"], "--seed"),
    (["train", "--iterations", "0"], "--iterations"),
    (["train", "--minutes", "0"], "--minutes"),
    (["train", "--max-infosets", "0"], "--max-infosets"),
    (["train", "--threads", "0"], "--threads"),
    (["train", "--iterations", "5", "--threads", "2", "--sampling", "outcome"], "--threads runs external"),
    (["train", "--iterations", "5", "--out", "s.txt"], "--out must name a .npz file"),
    (["train", "--iterations", "5", "--checkpoint", "no/such/folder/c.npz"], "--checkpoint"),
    (["train", "--checkpoint-minutes", "0"], "--checkpoint-minutes"),
    (["train", "--iterations", "5", "--resume", "missing.npz"], "--resume missing.npz: no such file"),
    (["train", "--games", "0"], "--games"),
    (["train", "--iterations", "5", "--field", "honest=0.7,random=0.3"], "--field"),
    (["train", "--iterations", "5", "--plot", "rates.xyz"], "--plot rates.xyz"),
    (["train", "--iterations", "5", "--json", "no/such/folder/r.json"], "--json"),
    (["train", "--iterations", "5", "--warm-start", "-1"], "--warm-start"),
    (["match", "missing.npz"], "no such file"),
    (["match", "missing.npz", "--against", "nobody"], "--against nobody"),
    (["match", "missing.npz", "--games", "0"], "--games"),
    (["match", "missing.npz", "--seed", "-1"], "--seed"),
    (["match", "missing.npz", "--pilot", "-3"], "--pilot"),
    (["match", "missing.npz", "--search", "-1"], "--search"),
    (["match", "missing.npz", "--search-iterations", "x"], "--search-iterations"),
    (["match", "missing.npz", "--search-honest", "x"], "--search-honest"),
    (["match", "missing.npz", "--search-trust", "-1"], "--search-trust"),
    (["match", "missing.npz", "--json", "no/such/folder/r.json"], "--json"),
    (["random", "--players", "1"], "--players"),
    (["random", "--players", "99"], "--players"),
    (["random", "--setup", "x"], "--setup"),
    (["random", "--turn-limit", "0"], "--turn-limit"),
    (["random", "--seed", "-2"], "--seed"),
]
# Values past any use (issue 48: each ran for ever or claimed more than any machine has), numbers of
# thousands of digits, and options that contradict each other or do nothing where they are given.
HUGE = "9" * 5000
BAD += [
    (["train", "--games", str(2**63)], "--games: must be at most"),
    (["analyse", "missing.npz", "--games", str(2**63)], "--games: must be at most"),
    (["match", "missing.npz", "--games", str(2**63)], "--games: must be at most"),
    (["info", "--max-memory", "99999999TB"], "--max-memory: must be at most 1PiB"),
    (["solve", "--max-memory", "1KB"], "--max-memory: must be at least 1MiB"),
    (["info", "--max-memory", "1" + "0" * 400 + "GB"], "--max-memory"),
    (["train", "--minutes", "1e308"], "--minutes: must be at most"),
    (["train", "--checkpoint-minutes", "1e308"], "--checkpoint-minutes: must be at most"),
    (["train", "--warm-start", "1e308"], "--warm-start"),
    (["train", "--explore", "0"], "--explore"),
    (["train", "--explore", "1.5"], "--explore"),
    (["solve", "--pieces", str(2**63)], "--pieces: must be at most"),
    (["solve", "--threads", str(2**40)], "--threads: must be at most"),
    (["solve", "--iterations", HUGE], "--iterations: expected a whole number of at most 30 digits"),
    (["solve", "--target-exploitability", HUGE], "--target-exploitability: expected a number of at most"),
    (["train", "--seed", str(2**64)], "--seed: must be at most"),
    (["solve", "--seed", HUGE], "--seed"),
    (["solve", "--rule", "copies=\u00b2".encode().decode("unicode_escape")], "--rule copies="),
    (["solve", "--rule", "copies=" + HUGE], "--rule copies: 5,000 digits"),
    (["solve", "--iterations", "5", "--max-iterations", "1"], "--max-iterations caps"),
    (["solve", "--checkpoint-every", "3"], "--checkpoint-every does nothing without --checkpoint"),
    (["train", "--checkpoint-minutes", "3"], "--checkpoint-minutes does nothing without --checkpoint"),
    (["solve", "--ray-workers", "3"], "--ray-workers does nothing without --ray"),
    (["solve", "--pieces", "3", "--representation", "history"], "--pieces cuts the public tree"),
    (["info", "--pieces", "3", "--representation", "history"], "--pieces cuts the public tree"),
    (["solve", "--force"], "--force does nothing without --out"),
    (["train", "--force"], "--force does nothing without --out"),
    (["solve", "--rule", "copies=3", "--rule", "copies=2"], "--rule copies is given more than once"),
    (["solve", "--resume", "c.npz", "--seed", "3"], "--resume continues the checkpoint's own"),
    (["serve", "--port", "70000"], "--port"),
    (["serve", "--search", "x"], "--search"),
    (["serve", "--search-iterations", "-3"], "--search-iterations"),
    (["serve", "--search-honest", "-0.1"], "--search-honest"),
    (["serve", "--search-trust", "nan"], "--search-trust"),
    (["solve", "--representation", "pieces", "--algorithm", "mmd-qre"],
     "--algorithm mmd-qre solves the history tree or the whole public tree (MMD has no representation "
     "in pieces): drop --representation pieces"),
    (["solve", "--ray", "local", "--algorithm", "mmd"], "--algorithm mmd solves the history tree or the "
     "whole public tree (MMD has no representation in pieces): drop --ray"),
    (["solve", "--selection", "--turn-limit", "3"], "up to turn limit 2; got turn limit 3"),
]
FLAGS = {"-h", "--help", "--version", "--force", "--no-progress", "--no-cache",
         "--sampled", "--selection", "--explain"}  # options that take no value


def _run(argv, capsys):
    try:
        code = main(argv)
    except SystemExit as e:
        code = e.code
    return code, capsys.readouterr().err


@pytest.fixture
def nothing_built(monkeypatch):
    """Counting or building anything fails the test: the inputs are checked first."""
    def refuse(*args, **kwargs):
        raise AssertionError("counted or built before the inputs were checked")

    monkeypatch.setattr(coupsolve.trees.history.builder, "count_tree", refuse)
    monkeypatch.setattr(coupsolve.trees.history.tree, "build_coup_tree", refuse)


@pytest.mark.parametrize("argv,words", BAD, ids=[" ".join(a) for a, _ in BAD])
def test_each_bad_value_is_one_line_naming_it(argv, words, capsys, nothing_built, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, err = _run(argv, capsys)
    assert code == 2, err
    assert words in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err


def _subparsers():
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return action.choices


#: Options that take any value (an address is checked when it is served on)
FREE = {("serve", "--host")}


def test_the_table_covers_every_option():
    covered = {(argv[0], word) for argv, _ in BAD for word in argv if word.startswith("--")} | FREE
    for name, sub in _subparsers().items():
        if name in ("analyze", "demo"):  # the same options as analyse and solve
            continue
        for action in sub._actions:
            for option in action.option_strings:
                if option.startswith("--") and option not in FLAGS:
                    assert (name, option) in covered, f"{name} {option} has no bad value in the table"


def test_every_option_shows_its_default():
    for name, sub in _subparsers().items():
        formatter = sub._get_formatter()
        for action in sub._actions:
            if action.option_strings and action.option_strings[0] not in ("-h", "--help"):
                text = formatter._get_help_string(action)
                assert "default" in text, f"{name} {action.option_strings[0]}: {text!r}"
        assert "default" in sub.format_help()


def test_every_help_formats_and_the_hint_of_every_error_works(capsys):
    """``coupsolve --help`` crashed (argparse %-formatted "95% intervals"), and every error's hint
    "(see coupsolve --help)" pointed at it: every help formats, and exits 0."""
    parser = build_parser()
    assert "match" in parser.format_help() and "95% intervals" in parser.format_help()
    for name, sub in _subparsers().items():
        assert sub.format_help()
    for argv in (["--help"], ["match", "--help"], ["solve", "--help"]):
        code, _ = _run(argv, capsys)
        assert code == 0
