"""The layout stays what docs/architecture.md says: packages by concern, one-way imports.

Read from the source with ``ast`` (nothing is imported): every ``import`` and ``from ... import`` of
``coupsolve`` and ``solvers``, absolute or relative, at any depth of a module.

- no import circle between modules (a function-level import counts: it is a circle all the same);
- no private name (``_x``) and no private module imported across a package boundary: what one
  package offers another is named without an underscore;
- ``solvers`` never imports ``coupsolve`` (it is game-agnostic), and no library module imports the
  command line (``coupsolve.cli``);
- only a package's face and a few cross-cutting modules sit directly in ``coupsolve/`` and
  ``solvers/``.
"""

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGES = ("coupsolve", "solvers")
#: The modules allowed directly in each package: its face and what every subpackage uses.
TOP_LEVEL = {
    "coupsolve": {"__init__", "__main__", "start", "rules", "names", "strategy", "plan"},
    "solvers": {"__init__", "cache_guard", "npz", "kinds", "memory", "policy", "atomics", "compiled",
                "options"},
}


def _modules(root=ROOT):
    """``{dotted name: path}`` of every module of the two packages under ``root``."""
    out = {}
    for pkg in PACKAGES:
        for path in sorted((root / pkg).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


def _package(name, mods):
    """The package a module belongs to (a package's face belongs to itself)."""
    return name if mods[name].name == "__init__.py" else name.rsplit(".", 1)[0]


def imports(root=ROOT):
    """``[(importer, imported module, name or None)]`` for every import of the two packages."""
    mods = _modules(root)
    out = []
    for name, path in mods.items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                out += [(name, a.name, None) for a in node.names if a.name.split(".")[0] in PACKAGES]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = _package(name, mods).split(".")[:len(_package(name, mods).split(".")) - node.level + 1]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                if target.split(".")[0] not in PACKAGES:
                    continue
                for a in node.names:
                    sub = f"{target}.{a.name}"
                    out.append((name, sub, None) if sub in mods else (name, target, a.name))
    return mods, out


def _cycles(edges):
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def _edges(mods, found):
    edges = {}
    for a, b, _ in found:
        if b in mods and b != a:
            edges.setdefault(a, set()).add(b)
    return edges


def test_no_import_circle():
    mods, found = imports()
    assert _cycles(_edges(mods, found)) == []


def test_no_private_name_or_module_across_packages():
    mods, found = imports()
    crossing = []
    for a, b, name in found:
        if b not in mods:
            continue
        private_module = any(p.startswith("_") and not p.startswith("__") for p in b.split("."))
        private_name = name is not None and name.startswith("_") and not name.startswith("__")
        here, there = _package(a, mods), _package(b, mods)
        if (private_module or private_name) and here != there and not there.startswith(here + "."):
            # a package's own private modules are its own, and so are its subpackages' to it
            if not (private_module and not private_name and b.rsplit(".", 1)[0] == here):
                crossing.append(f"{a} imports {b}{'.' + name if name else ''}")
    assert crossing == []


def test_solvers_is_game_agnostic_and_the_library_does_not_import_the_cli():
    mods, found = imports()
    assert [(a, b) for a, b, _ in found if a.startswith("solvers") and b.startswith("coupsolve")] == []
    assert [(a, b) for a, b, _ in found
            if b.startswith("coupsolve.cli") and not a.startswith("coupsolve.cli")
            and a != "coupsolve.__main__"] == []


@pytest.mark.parametrize("pkg", PACKAGES)
def test_only_faces_and_cross_cutting_modules_at_the_top(pkg):
    top = {p.stem for p in (ROOT / pkg).glob("*.py")}
    assert top <= TOP_LEVEL[pkg], f"{sorted(top - TOP_LEVEL[pkg])} belong in a subpackage"


def test_the_checks_can_fail(tmp_path):
    """A circle, a private name across packages and a module out of place are found."""
    for pkg in PACKAGES:
        (tmp_path / pkg / "a").mkdir(parents=True)
        (tmp_path / pkg / "__init__.py").write_text("")
        (tmp_path / pkg / "a" / "__init__.py").write_text("")
    (tmp_path / "coupsolve" / "a" / "x.py").write_text("from coupsolve.a import y\n")
    (tmp_path / "coupsolve" / "a" / "y.py").write_text("def f():\n    from coupsolve.a.x import g\n")
    (tmp_path / "solvers" / "a" / "z.py").write_text("from coupsolve.a.x import _hidden\n")
    mods, found = imports(tmp_path)
    assert _cycles(_edges(mods, found)) == [["coupsolve.a.x", "coupsolve.a.y"]]
    assert ("solvers.a.z", "coupsolve.a.x", "_hidden") in found


def test_no_face_name_is_also_a_submodule():
    """A name a package's face offers must not also name one of its modules: importing the module
    rebinds the package's attribute to it, and a kernel calling ``E.name`` would find the module
    (the engine's ``influence`` once did, in the module of losses)."""
    mods = _modules()
    clashes = []
    for name, path in mods.items():
        if path.name != "__init__.py":
            continue
        subs = {m.rsplit(".", 1)[1] for m in mods if "." in m and m.rsplit(".", 1)[0] == name}
        for node in ast.parse(path.read_text()).body:  # the face's own module-level names
            if isinstance(node, (ast.ImportFrom, ast.FunctionDef, ast.ClassDef, ast.Assign)):
                names = ([a.asname or a.name for a in node.names] if isinstance(node, ast.ImportFrom)
                         else [t.id for t in getattr(node, "targets", []) if isinstance(t, ast.Name)]
                         + ([node.name] if hasattr(node, "name") and not isinstance(node, ast.Assign) else []))
                module = getattr(node, "module", None) or ""
                clashes += [f"{name}.{n}" for n in names if n in subs and not module.endswith("." + n)
                            and module not in (f"{name}.{n}", name)]  # not the submodule itself
    assert clashes == []
