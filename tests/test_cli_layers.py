"""The command line parses, calls the library and prints; the library never reaches back into it.

Read from the sources (``ast``), so that an import made inside a function counts as well:

- no library module imports ``coupsolve.cli`` (only the entry point ``coupsolve/__main__.py`` does),
  and a library user reads a strategy file, plans a solve and analyses without importing it;
- the command line's modules import each other without a circle;
- every function a command-line module defines is a command, parsing, a check of the options or
  outputs, or printing: each is named here with its role, so a new one is a conscious choice (a
  tree, a builder, a precision, a file format or an analysis chosen there fails this test); the
  command line defines no class but its error and argparse's two subclasses, and no numeric constant
  outside the parser's defaults (the planner's thresholds and paces are the library's).
"""

from __future__ import annotations

import ast
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1] / "coupsolve"
CLI = ROOT / "cli"

#: Every function of the command line, by module, with its role.
ROLES = {
    "__init__": {"_cmd_random": "command", "build_parser": "parsing", "main": "command"},
    "args": None,  # the parser: argparse types and the rules made from the options (all parsing)
    "values": None,  # argparse types of the options' values and their bounds (all parsing)
    "checks": {"_folder": "check", "check_npz_target": "check", "plot_formats": "check",
               "check_plot_target": "check", "check_json_target": "check", "check_outputs": "check",
               "stopping_rule": "parsing", "target_warning": "printing", "payoff_range": "parsing",
               "save_output": "check"},
    "match": {"_opponent": "parsing", "cmd_match": "command"},
    "report": {"provenance": "printing", "title": "printing", "present": "printing",
               "write_json": "printing", "rules_title": "printing", "turn_limit_note": "printing",
               "leaves_note": "printing"},
    "leaves": {"add_leaves_args": "parsing", "leaves_conflict": "parsing", "say_leaves": "printing"},
    "search": {"add_search_args": "parsing", "search_settings": "parsing", "searching": "parsing"},
    "solve": {"plan_options": "parsing", "printer": "printing", "cmd_info": "command",
              "_ray_backend": "parsing", "_built_line": "printing", "cmd_solve": "command",
              "_build": "command"},
    "strategy": {"cmd_analyse": "command", "_public_view": "printing", "cmd_play": "command", "_thinking": "printing",
                 "_say_thinking": "printing", "_ask": "parsing"},
    "serve": {"_say": "printing", "cmd_serve": "command"},
    "train": {"present_sampled": "printing", "cmd_train": "command"},
    "__main__": {},
}


def _tree(path):
    return ast.parse(path.read_text(encoding="utf-8"), str(path))


def _module_name(path):
    rel = path.relative_to(ROOT.parent).with_suffix("")
    parts = list(rel.parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path):
    """Every module ``path`` imports, anywhere in it (absolute names)."""
    package = _module_name(path) if path.name == "__init__.py" else _module_name(path).rpartition(".")[0]
    found = set()
    for node in ast.walk(_tree(path)):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[:len(anchor) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            found.add(base)
            found.update(f"{base}.{a.name}" for a in node.names)
    return found


def test_no_library_module_imports_the_command_line():
    offenders = []
    for path in ROOT.rglob("*.py"):
        if CLI in path.parents or path == ROOT / "__main__.py":
            continue
        bad = sorted(m for m in _imports(path) if m == "coupsolve.cli" or m.startswith("coupsolve.cli."))
        if bad:
            offenders.append(f"{path.relative_to(ROOT.parent)}: {', '.join(bad)}")
    assert not offenders, offenders


def test_a_library_user_never_imports_the_command_line():
    code = ("import sys\n"
            "from coupsolve.strategy import load, Strategy, StrategyError\n"
            "from coupsolve.plan import choose, Options, Plan\n"
            "from coupsolve.analysis import analyse\n"
            "from coupsolve.openspiel.policy import HistoryTreePolicy, PublicTreePolicy\n"
            "from coupsolve.trees.builders import builders\n"
            "assert [b.name for b in builders()] == ['history', 'classbuild', 'publicbuild', 'classpieces']\n"
            "print(sorted(m for m in sys.modules if m.startswith('coupsolve.cli')))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_the_command_line_imports_no_circle():
    graph = {}
    for path in CLI.glob("*.py"):
        name = _module_name(path)
        graph[name] = {m for m in _imports(path) if m.startswith("coupsolve.cli.")
                       and (CLI / f"{m.rsplit('.', 1)[1]}.py").exists()} - {name}
    state = {}

    def visit(node, trail):
        if state.get(node) == "done":
            return
        assert state.get(node) != "open", f"import circle: {' -> '.join(trail + [node])}"
        state[node] = "open"
        for nxt in sorted(graph.get(node, ())):
            visit(nxt, trail + [node])
        state[node] = "done"
    for node in sorted(graph):
        visit(node, [])


@pytest.mark.parametrize("path", sorted(CLI.glob("*.py")), ids=lambda p: p.stem)
def test_the_command_line_only_parses_calls_and_prints(path):
    tree = _tree(path)
    classes = {n.name for n in tree.body if isinstance(n, ast.ClassDef)}
    functions = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    assert path.stem in ROLES, f"a new command-line module {path.name}: name its functions' roles here"
    if path.stem in ("args", "values"):
        assert classes == ({"CliError", "_Parser", "_Help"} if path.stem == "args" else set())
        return
    assert not classes, f"{path.name} defines classes {sorted(classes)}: the library's"
    assert functions == set(ROLES[path.stem]), (
        f"{path.name}: functions {sorted(functions - set(ROLES[path.stem]))} are neither commands, "
        f"parsing nor printing named in ROLES (library logic belongs in the library)")
    numbers = [t.id for n in tree.body if isinstance(n, ast.Assign) and isinstance(n.value, ast.Constant)
               and isinstance(n.value.value, (int, float)) and not isinstance(n.value.value, bool)
               for t in n.targets if isinstance(t, ast.Name)]
    assert not numbers, f"{path.name} defines the numeric constants {numbers}: the library's"


def test_every_command_line_module_imports():
    import importlib

    for path in CLI.glob("*.py"):
        if path.stem != "__main__":
            importlib.import_module(_module_name(path))
