"""The numba cache guard clears a package's compiled cache exactly when its sources change."""

import os
import subprocess
import sys
import textwrap

from solvers.cache_guard import STAMP, guard


def test_guard_clears_the_cache_only_when_sources_change(tmp_path):
    pkg = tmp_path / "pkg"
    cache = pkg / "__pycache__"
    cache.mkdir(parents=True)
    (pkg / "engine.py").write_text("X = 1\n")
    (cache / "tree._walk-1.py311.nbi").write_text("old")
    assert guard(str(pkg)) is True  # no stamp yet: cleared
    assert not (cache / "tree._walk-1.py311.nbi").exists() and (cache / STAMP).exists()
    (cache / "tree._walk-1.py311.nbi").write_text("fresh")
    assert guard(str(pkg)) is False  # unchanged sources: the cache is kept
    assert (cache / "tree._walk-1.py311.nbi").exists()
    (pkg / "engine.py").write_text("X = 2\n")  # another module changed
    assert guard(str(pkg)) is True
    assert not (cache / "tree._walk-1.py311.nbi").exists()


def test_guard_looks_into_subpackages_and_the_other_folders(tmp_path):
    pkg, other = tmp_path / "pkg", tmp_path / "other"
    (pkg / "sub" / "__pycache__").mkdir(parents=True)
    other.mkdir()
    (pkg / "sub" / "rules.py").write_text("X = 1\n")
    (other / "kernels.py").write_text("Y = 1\n")
    assert guard(str(pkg), str(other)) is True
    nested = pkg / "sub" / "__pycache__" / "rules.f-1.py311.nbi"
    nested.write_text("compiled")
    assert guard(str(pkg), str(other)) is False
    (other / "kernels.py").write_text("Y = 2\n")
    assert guard(str(pkg), str(other)) is True and not nested.exists()  # subpackage caches cleared too
    nested.write_text("compiled")
    (pkg / "sub" / "rules.py").write_text("X = 2\n")
    assert guard(str(pkg), str(other)) is True and not nested.exists()


# A package whose kernel inlines functions of a sibling module, of a subpackage and of another
# package: numba keys the kernel's cache on kernel.py alone, so only the guard notices their changes.
KERNEL = """
from numba import njit
from other.far import far
from .near import near
from .sub.deep import deep

@njit(cache=True)
def run():
    return near() + deep() + far()
"""
INIT = """
import os
if not os.environ.get("NO_GUARD"):
    from solvers.cache_guard import guard
    here = os.path.dirname(__file__)
    guard(here, os.path.join(os.path.dirname(here), "other"))
"""


def _helper(value, name):
    return f"from numba import njit\n\n@njit(cache=True, inline='always')\ndef {name}():\n    return {value}\n"


def _run(root, guarded=True):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(root), os.getcwd()]))
    env.pop("NUMBA_CACHE_DIR", None)
    env.pop("NUMBA_DISABLE_JIT", None)
    if not guarded:
        env["NO_GUARD"] = "1"
    out = subprocess.run([sys.executable, "-c", "import pkg.kernel as k; print(k.run())"], env=env,
                         capture_output=True, text=True, check=True)
    return int(out.stdout.split()[-1])


def test_a_changed_inlined_module_is_recompiled(tmp_path):
    pkg, other = tmp_path / "pkg", tmp_path / "other"
    (pkg / "sub").mkdir(parents=True)
    other.mkdir()
    (pkg / "__init__.py").write_text(textwrap.dedent(INIT))
    (pkg / "kernel.py").write_text(KERNEL)
    (pkg / "sub" / "__init__.py").write_text("")
    (other / "__init__.py").write_text("")
    files = {"near": pkg / "near.py", "deep": pkg / "sub" / "deep.py", "far": other / "far.py"}
    for name, path in files.items():
        path.write_text(_helper(1, name))
    assert _run(tmp_path) == 3
    files["near"].write_text(_helper(10, "near"))
    assert _run(tmp_path, guarded=False) == 3  # the stale cache numba alone would keep
    assert _run(tmp_path) == 12
    files["deep"].write_text(_helper(100, "deep"))
    assert _run(tmp_path) == 111
    files["far"].write_text(_helper(1000, "far"))
    assert _run(tmp_path) == 1110


def test_an_edit_in_another_subpackage_is_picked_up(tmp_path):
    """The layout of coupsolve: a tree builder's kernel (``pkg.trees.walk``) inlines the engine
    (``pkg.engine.rule``), a sibling subpackage; an edit of the engine recompiles the builder."""
    pkg = tmp_path / "pkg"
    for sub in ("trees", "engine"):
        (pkg / sub).mkdir(parents=True)
        (pkg / sub / "__init__.py").write_text("")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text(textwrap.dedent(INIT))
    (pkg / "kernel.py").write_text("from pkg.trees.walk import run\n")
    (pkg / "trees" / "walk.py").write_text(
        "from numba import njit\nfrom pkg.engine.rule import rule\n\n"
        "@njit(cache=True)\ndef run():\n    return rule()\n")
    rule = pkg / "engine" / "rule.py"
    rule.write_text(_helper(1, "rule"))
    assert _run(tmp_path) == 1
    rule.write_text(_helper(7, "rule"))
    assert _run(tmp_path, guarded=False) == 1  # numba alone keys the kernel on walk.py
    assert _run(tmp_path) == 7
