"""Parts of the full benchmark (`make bench`) that had stopped it: the probe's profile of a pass
(`python -m benchmarks.probe phases`) runs and times each phase of both players' passes; a probe that
fails still makes a row of the profile's table, not a crash; and the public-tree comparison takes its
own options at their defaults when `benchmarks.run` calls it."""

import json
import subprocess
import sys
from types import SimpleNamespace

import pytest

from benchmarks import public, scaling
from benchmarks.common import Stats

ROOT = scaling.ROOT


@pytest.mark.slow  # compiles timed copies of the passes: instrumentation, run by `make test-slow`
def test_the_phases_probe_times_every_phase_of_both_players():
    done = subprocess.run([sys.executable, "-m", "benchmarks.probe", "phases", "--game", "coup1", "--repeats", "1",
                           "--warm", "1"], cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads([line for line in done.stdout.splitlines() if line.startswith("{")][-1])
    assert set(result["seconds"]) == set(scaling.PHASES)
    assert all(len(times) == 2 and min(times) > 0 for times in result["seconds"].values())  # a repeat per player
    assert result["histories"] == 63973 and 0 < result["live_fraction"] <= 1


def test_a_failed_probe_is_a_row_of_the_profile(monkeypatch, capsys):
    monkeypatch.setattr(scaling, "probe", lambda *a, **k: {"error": "exit 1: boom"})
    written = {}
    monkeypatch.setattr(scaling, "write_csv", lambda name, rows, info: written.setdefault(name, rows))
    game = SimpleNamespace(is_coup=True, turn_limit=2, key="coup2")
    options = SimpleNamespace(quick=True, repeats=1, repeats_large=1)
    scaling.run_profile([game], options, {}, {("read", 1): Stats([10e9])})
    row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("| coup2"))
    assert "exit 1: boom" in row and written["profile"] == [dict(game="coup2", error="exit 1: boom")]


def test_the_public_comparison_takes_its_own_options_at_their_defaults_from_the_full_run():
    from argparse import Namespace

    options = public.with_defaults(Namespace(quick=True, precision="float32"))
    assert options.trees == public.DEFAULTS["trees"] and options.pieces == public.DEFAULTS["pieces"]
    assert options.precision == "float32"  # one given is kept
