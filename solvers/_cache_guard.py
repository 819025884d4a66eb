"""Keep numba's on-disk cache consistent across the modules of a package.

``numba.njit(cache=True)`` keys a compiled function on its own source file only. A kernel that calls
(and inlines) functions of another module, as the Coup tree builder does with the engine, is therefore
not recompiled when that other module changes, and silently runs the old code. :func:`guard` hashes
every ``.py`` file of a package and, when the hash differs from the one recorded beside the cache,
deletes the package's cache files, so that everything is compiled afresh from the current sources.
"""

from __future__ import annotations

import glob
import hashlib
import os

STAMP = "numba-sources.sha256"


def sources_digest(package_dir: str) -> str:
    h = hashlib.sha256()
    for name in sorted(os.listdir(package_dir)):
        if name.endswith(".py"):
            h.update(name.encode())
            with open(os.path.join(package_dir, name), "rb") as f:
                h.update(f.read())
    return h.hexdigest()


def guard(package_dir: str) -> bool:
    """Clear ``package_dir``'s numba cache if its sources changed since it was written; True if cleared."""
    cache_dir = os.path.join(package_dir, "__pycache__")
    digest = sources_digest(package_dir)
    stamp = os.path.join(cache_dir, STAMP)
    try:
        with open(stamp, encoding="ascii") as f:
            if f.read().strip() == digest:
                return False
    except OSError:
        pass
    try:
        os.makedirs(cache_dir, exist_ok=True)
        for path in glob.glob(os.path.join(cache_dir, "*.nbi")) + glob.glob(os.path.join(cache_dir, "*.nbc")):
            try:
                os.remove(path)
            except OSError:
                pass
        with open(stamp, "w", encoding="ascii") as f:
            f.write(digest)
    except OSError:
        return False  # a read-only installation: numba then compiles in memory
    return True
