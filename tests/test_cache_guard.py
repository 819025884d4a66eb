"""The numba cache guard clears a package's compiled cache exactly when its sources change."""

from solvers._cache_guard import STAMP, guard


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
