"""Docstrings and comments say what and why; measured figures live in docs/research and benchmarks.

The game-agnostic ``solvers`` package names no game of this repository, and no library docstring or
comment quotes a measured time (figures that go stale with each optimisation:
docs/research/design-measurements.md keeps them).
"""

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# a time measured: "35 ms", "0.6 us", "368 s", "27 minutes" (design constants such as "about 0.1 s" of a
# chunk or a report "every 5 s" are not measurements: they are listed in ALLOWED)
TIMING = re.compile(r"\b\d[\d,]*(\.\d+)? ?(ms|us|ns|s|seconds|minutes|hours)\b")
ALLOWED = ("about 0.1 s", "5 seconds", "0 seconds", "every ")


def _prose(path):
    """``(line, text)`` of every comment and docstring of the module at ``path``."""
    source = path.read_text(encoding="utf-8")
    out = [(tok.start[0], tok.string) for tok in tokenize.generate_tokens(io.StringIO(source).readline)
           if tok.type == tokenize.COMMENT]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node, clean=False)
            if doc:
                out.append((node.body[0].lineno, doc))
    return out


def _modules(*packages, skip=()):
    return [p for pkg in packages for p in sorted((ROOT / pkg).rglob("*.py"))
            if not any(part in skip for part in p.relative_to(ROOT).parts)]


def test_the_game_agnostic_solvers_name_no_game_of_this_repository():
    found = [f"{p.relative_to(ROOT)}:{line}" for p in _modules("solvers") for line, text in _prose(p)
             if re.search(r"\bcoup(solve)?\b", text, re.I)]
    assert not found, f"solvers/ docstrings or comments name Coup: {found}"


@pytest.mark.parametrize("package", ["solvers", "coupsolve"])
def test_no_docstring_or_comment_quotes_a_measured_time(package):
    found = []
    for path in _modules(package):
        for line, text in _prose(path):
            for match in TIMING.finditer(text):
                around = text[max(0, match.start() - 6):match.end()]
                if not any(ok in around for ok in ALLOWED):
                    found.append(f"{path.relative_to(ROOT)}:{line}: {match.group(0)}")
    assert not found, f"measured times in docstrings or comments (move them to docs/research): {found}"
