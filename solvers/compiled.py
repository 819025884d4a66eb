"""Whether numba kernels will start without compiling, so that a user-facing command can say
"compiling, first run only" before a long first compile instead of waiting without a word.

A representation (:mod:`solvers.cfr.representation`) names the dispatchers its first iteration and
exploitability check call in a ``KERNELS`` class attribute; :func:`kernels_ready` asks about those of
the representation a tree is solved on.
"""

from __future__ import annotations

import os

__all__ = ["kernel_ready", "kernels_ready"]


def kernel_ready(kernel) -> bool:
    """Whether the numba dispatcher ``kernel`` is compiled in this process or in numba's disk cache, so
    that a first call starts without compiling (the command line says "compiling, first run only"
    otherwise)."""
    if getattr(kernel, "signatures", True):
        return True
    cache = getattr(getattr(kernel, "_cache", None), "_cache_file", None)
    return cache is not None and os.path.exists(getattr(cache, "_index_path", ""))


def kernels_ready(tree, spec=None) -> bool:
    """Whether every kernel of the representation ``tree`` is solved on (for ``spec``'s family) is
    ready (:func:`kernel_ready`); True for a representation that names none."""
    from solvers.cfr.representation import representation_for

    return all(kernel_ready(k) for k in getattr(representation_for(tree, spec), "KERNELS", ()))
