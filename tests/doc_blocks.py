"""Run the code blocks of a Markdown page as a reader would, each within a time limit.

``python`` blocks run in order in one fresh interpreter (each sees the names the earlier ones made),
``sh`` blocks in ``bash -e``, with ``coupsolve`` the command line of this checkout and standard input
answering ``0`` (the first choice) to every question ``coupsolve play`` asks. Blocks of any other
language (``text``: output shown, ``py``: a block that needs a cluster, tested apart) are not run. The
limit holds inside compiled code too: a watchdog thread (``faulthandler``) ends the interpreter and
prints where it was.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FENCE = re.compile(r"^```(\w+)[^\n]*\n(.*?)^```", re.S | re.M)

RUNNER = textwrap.dedent("""
    import faulthandler, json, sys, time
    blocks, limit = json.load(open(sys.argv[1])), float(sys.argv[2])
    names = {"__name__": "__main__"}
    for i, code in enumerate(blocks):
        print(f"python block {i + 1} starts: {code.splitlines()[0]}", file=sys.stderr, flush=True)
        start = time.perf_counter()
        faulthandler.dump_traceback_later(limit, exit=True)
        exec(compile(code, f"<python block {i + 1}>", "exec"), names)
        faulthandler.cancel_dump_traceback_later()
        print(f"python block {i + 1}: {time.perf_counter() - start:.1f} s", file=sys.stderr)
""")


def blocks(path, language):
    """The code of every ``language`` block of the Markdown file ``path``, in order."""
    return [code for lang, code in FENCE.findall(Path(path).read_text(encoding="utf-8")) if lang == language]


def environment(tmp_path):
    """An environment whose ``coupsolve`` is this checkout's command line, its caches in ``tmp_path``."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    script = bin_dir / "coupsolve"
    script.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m coupsolve "$@"\n')
    script.chmod(0o755)
    env = dict(os.environ)
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    env["COUPSOLVE_CACHE_DIR"] = str(tmp_path / "cache")
    env["MPLBACKEND"] = "Agg"
    return env


def _run(command, tmp_path, limit, stdin=None):
    """Run ``command`` in its own process group in ``tmp_path``; kill the group after ``limit`` s."""
    with subprocess.Popen(command, cwd=tmp_path, env=environment(tmp_path), stdin=stdin, text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True) as proc:
        try:
            out, err = proc.communicate(timeout=limit)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
            raise AssertionError(f"{command[-1][:200]!r} did not finish in {limit} s:\n{err[-3000:]}")
    return proc.returncode, out, err


def run_python_blocks(code_blocks, tmp_path, limit):
    """Run the blocks in one interpreter in ``tmp_path``, each within ``limit`` seconds; return stderr."""
    listing = tmp_path / "blocks.json"
    listing.write_text(json.dumps(code_blocks))
    runner = tmp_path / "run_blocks.py"
    runner.write_text(RUNNER)
    rc, out, err = _run([sys.executable, str(runner), str(listing), str(limit)], tmp_path,
                        limit * len(code_blocks) + 60)
    progress = "\n".join(line for line in err.splitlines() if line.startswith("python block"))
    assert rc == 0, (f"a python block failed or ran over {limit} s (exit {rc}):\n{progress}\n"
                     f"{out[-2000:]}\n{err[-4000:]}")
    return err


def run_sh_block(code, tmp_path, limit):
    """Run one ``sh`` block with ``bash -e`` in ``tmp_path`` within ``limit`` seconds; return stdout."""
    answers = tmp_path / "answers.txt"
    answers.write_text("0\n" * 10_000)
    with open(answers) as stdin:
        rc, out, err = _run(["bash", "-e", "-c", code], tmp_path, limit, stdin=stdin)
    assert rc == 0, f"sh block failed (exit {rc}):\n{code}\n{out[-2000:]}\n{err[-3000:]}"
    return out
