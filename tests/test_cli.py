"""The command line, end to end in a subprocess."""

import subprocess
import sys


def run(*args):
    return subprocess.run([sys.executable, "-m", "coupsolve.cli", *args], capture_output=True, text=True,
                          timeout=300)


def test_random_game_log_ends_with_a_result():
    out = run("random", "--setup", "standard", "--players", "3", "--seed", "3")
    assert out.returncode == 0, out.stderr
    assert "game over" in out.stdout and "returns:" in out.stdout
    assert out.stdout.count("Deal ") >= 3  # one deal per seat


def test_bad_options_fail_with_a_message():
    out = run("random", "--players", "9", "--setup", "standard")
    assert out.returncode == 2
    assert "players" in out.stderr and "Traceback" not in out.stderr
