"""The command line's start: ``--help`` imports none of the heavy libraries, and a Ctrl-C while it
imports them is one line ``coupsolve: interrupted`` with status 130 (issue 48: every command spent 3-5 s
importing, and a Ctrl-C then was a KeyboardInterrupt traceback in 15 of 16 tries)."""

import os
import signal
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COMMANDS = ("solve", "demo", "train", "analyse", "info", "play", "match", "random", "serve")
#: What no --help needs; pyspiel is imported with the package, which registers python_coup (28 ms).
HEAVY = ("numba", "llvmlite", "matplotlib", "ray", "scipy", "solvers.cfr.solver", "coupsolve.engine.dispatch")


def _env():
    return {**os.environ, "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")}


def _loaded_after(code):
    script = textwrap.dedent(code) + textwrap.dedent(f"""
        print(",".join(m for m in {HEAVY!r} if m in sys.modules))
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=_env(),
                          timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""


def test_building_the_parser_imports_nothing_heavy():
    assert _loaded_after("""
        import sys
        from coupsolve.cli import build_parser
        build_parser()
    """) == ""


@pytest.mark.parametrize("command", (None,) + COMMANDS)
def test_help_imports_nothing_heavy(command):
    argv = ["--help"] if command is None else [command, "--help"]
    assert _loaded_after(f"""
        import contextlib, io, sys
        from coupsolve.cli import main
        with contextlib.redirect_stdout(io.StringIO()) as out:
            try:
                main({argv!r})
            except SystemExit as e:
                assert e.code == 0, e.code
        assert "usage: coupsolve" in out.getvalue()
    """) == ""


def test_the_package_imports_its_heavy_parts_on_first_use():
    assert _loaded_after("""
        import sys
        import coupsolve, pyspiel
        assert pyspiel.load_game("python_coup(turn_limit=1)").rules == coupsolve.Rules(turn_limit=1)
    """) == ""  # the game registered, its first state not made yet
    assert "numba" in _loaded_after("""
        import sys
        import coupsolve
        coupsolve.count_tree
    """)


def _interrupted(argv, delay):
    """Run ``argv`` under ``-X importtime``, send Ctrl-C ``delay`` seconds after coupsolve's own start-up
    handling is imported (its import line on stderr), and return (status, stderr without import lines)."""
    # Ctrl-C at its default, as a terminal starts a command: a process that inherits it ignored (as a
    # test worker may, after another test's library set it so) keeps it ignored, rightly
    proc = subprocess.Popen([sys.executable, "-X", "importtime"] + argv, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, env=_env(), cwd=ROOT,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    seen = []
    for line in proc.stderr:
        seen.append(line)
        if line.split("|")[-1].strip() == "coupsolve.start":
            break
    else:
        pytest.fail("coupsolve.start was never imported:\n" + "".join(seen))
    if delay:
        import time
        time.sleep(delay)
    proc.send_signal(signal.SIGINT)
    rest = proc.stderr.read()
    proc.wait(timeout=120)
    return proc.returncode, "".join(line for line in (seen + rest.splitlines(True))
                                    if not line.startswith("import time:"))


@pytest.mark.parametrize("door", ["module", "script"])
def test_ctrl_c_while_starting_is_one_line(door, tmp_path):
    if door == "module":
        argv = ["-m", "coupsolve"]
    else:  # what the console script's wrapper runs, under the script's name
        script = tmp_path / "coupsolve"
        script.write_text("import sys\nfrom coupsolve.cli import main\nsys.exit(main())\n")
        argv = [str(script)]
    argv += ["info", "--turn-limit", "1"]
    stopped = 0
    for delay in (0, 0.005, 0.02, 0.05, 0.1, 0.2, 0.3):
        status, err = _interrupted(argv, delay)
        assert "Traceback" not in err, (delay, err)
        # 0: finished first; -SIGINT: the signal came as the interpreter shut down (Python's own handler
        # gone), which a shell reports as 130 too
        assert status in (0, 130, -signal.SIGINT), (delay, status, err)
        if status == 130:
            assert err == "coupsolve: interrupted\n", (delay, err)
            stopped += 1
    assert stopped >= 3  # most delays fall in the imports
