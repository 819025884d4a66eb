"""Keep numba's on-disk cache consistent across the modules of a package.

``numba.njit(cache=True)`` keys a compiled function on its own source file only. A kernel that calls
(and inlines) functions of another module, as a game engine's phase modules and a tree builder do,
is therefore not recompiled when that other module changes, and silently runs the old code.
:func:`guard` hashes every ``.py`` file under a package, its subpackages included, and under any other
source folders its kernels call into; when the hash differs from the one recorded beside the cache, it
deletes the package's numba cache files (in every ``__pycache__`` below it), so that everything is
compiled afresh from the current sources.
"""

from __future__ import annotations

import glob
import hashlib
import os

STAMP = "numba-sources.sha256"


def _sources(folder: str) -> list[str]:
    """Every ``.py`` file under ``folder`` (recursively; caches and hidden folders left out), sorted;
    ``folder`` itself when it is a file."""
    if os.path.isfile(folder):
        return [folder]
    out = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__" and not d.startswith("."))
        out += [os.path.join(root, name) for name in files if name.endswith(".py")]
    return sorted(out)


def sources_digest(package_dir: str, *also: str) -> str:
    """sha256 of the names and contents of every ``.py`` file under ``package_dir`` and the ``also`` folders
    (a file among them counts as itself)."""
    h = hashlib.sha256()
    for folder in (package_dir,) + also:
        for path in _sources(folder):
            h.update(os.path.relpath(path, os.path.dirname(folder)).encode())
            with open(path, "rb") as f:
                h.update(f.read())
    return h.hexdigest()


def guard(package_dir: str, *also: str) -> bool:
    """Clear ``package_dir``'s numba cache if its sources, or those under the ``also`` folders, changed
    since it was written; True if cleared.

    Parameters
    ----------
    package_dir : str
        The package folder whose compiled functions are cached (every ``__pycache__`` below it is cleared).
    *also : str
        Further source folders whose functions the package's kernels inline (their own caches are theirs
        to guard).
    """
    cache_dir = os.path.join(package_dir, "__pycache__")
    digest = sources_digest(package_dir, *also)
    stamp = os.path.join(cache_dir, STAMP)
    try:
        with open(stamp, encoding="ascii") as f:
            if f.read().strip() == digest:
                return False
    except OSError:
        pass
    try:
        os.makedirs(cache_dir, exist_ok=True)
        for root, _dirs, _files in os.walk(package_dir):
            if os.path.basename(root) != "__pycache__":
                continue
            for path in glob.glob(os.path.join(root, "*.nbi")) + glob.glob(os.path.join(root, "*.nbc")):
                try:
                    os.remove(path)
                except OSError:
                    pass
        with open(stamp, "w", encoding="ascii") as f:
            f.write(digest)
    except OSError:
        return False  # a read-only installation: numba then compiles in memory
    return True
