"""Arrays made part by part, held until they are gathered in the order of the parts' numbers.

A build in pieces (:func:`coupsolve.trees.pieces.build.build_class_pieces`) makes, beside each part's
piece, arrays that a solve never reads: the entries' hands, the information sets' keys, action ids
and contexts (gigabytes at turn limit 4: docs/research/design-measurements.md). Its parts finish in any order, and these
arrays are wanted as one array each, in the parts' order. :class:`PartArrays` holds them in memory,
or on disk (``disk=True``): each array is appended to a file of its name as its part finishes, so
nothing of it stays resident, and :meth:`PartArrays.gather` writes each name's arrays in order into
a ``.npy`` file read with plain reads (not mapped: a mapped page read counts in the resident memory
of the process) and maps it back copy-on-write. The files are unlinked when the gathering is done
(the mappings keep them until they go); where that is not allowed they are removed at exit. A disk
that fails a write turns the holder back to memory, with a warning.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
import warnings

import numpy as np

__all__ = ["PartArrays"]


class PartArrays:
    """Named 1-D arrays added part by part and gathered in order (module docstring).

    Parameters
    ----------
    disk : bool
        Append them to files in a temporary folder instead of holding them.
    folder : str, optional
        Where to make that folder (the system's temporary folder by default).
    """

    def __init__(self, disk=False, folder=None):
        self._parts, self._dtypes, self._files = {}, {}, {}
        self._where = tempfile.mkdtemp(prefix="coupsolve-pieces-", dir=folder) if disk else None

    @property
    def on_disk(self):
        return self._where is not None

    def add(self, k, /, **arrays):
        """Keep part ``k``'s ``arrays`` (1-D, each name of one dtype throughout)."""
        rec = {}
        for name, a in arrays.items():
            a = np.ascontiguousarray(a)
            if self._dtypes.setdefault(name, a.dtype) != a.dtype:
                raise TypeError(f"PartArrays: {name} is {self._dtypes[name]}, not {a.dtype}")
            rec[name] = a
        if self.on_disk:
            try:
                rec = {name: self._append(name, a) for name, a in rec.items()}
            except OSError as e:  # ``rec`` still holds the arrays
                self._to_memory(e)
        self._parts[k] = rec

    def length(self, k, name):
        """The length of part ``k``'s array of ``name``."""
        a = self._parts[k][name]
        return a[1] if isinstance(a, tuple) else a.shape[0]

    def _append(self, name, a):
        f = self._files.get(name)
        if f is None:
            f = self._files[name] = open(os.path.join(self._where, name + ".part"), "wb")
        at = f.tell()
        a.tofile(f)
        return at, a.shape[0]

    def _read(self, name, at, n):
        self._files[name].flush()
        return np.fromfile(self._files[name].name, self._dtypes[name], count=n, offset=at)

    def _to_memory(self, error):
        warnings.warn(f"the pieces' hands, keys and contexts stay in memory: {error}", stacklevel=3)
        for rec in self._parts.values():
            for name, where in rec.items():
                rec[name] = self._read(name, *where)
        self.discard()

    def gather(self, name, order):
        """Part ``order[0]``'s array of ``name``, then part ``order[1]``'s, ..., as one array: in
        memory, or mapped copy-on-write from a file; each part's is dropped as it is read."""
        recs = [self._parts[k] for k in order]
        if not self.on_disk:
            return np.concatenate([r.pop(name) for r in recs])
        total = sum(r[name][1] for r in recs)
        path = os.path.join(self._where, name + ".npy")
        try:
            with open(path, "wb") as out:
                np.lib.format.write_array_header_1_0(out, {
                    "descr": np.lib.format.dtype_to_descr(self._dtypes[name]),
                    "fortran_order": False, "shape": (total,)})
                for r in recs:
                    self._read(name, *r.pop(name)).tofile(out)
            return np.asarray(np.load(path, mmap_mode="c"))
        except OSError as e:
            raise OSError(f"gathering the pieces' {name} in {self._where}: {e}") from e

    def read(self, name):
        """A gathered array of ``name`` read into memory (a plain read of its file, not mapped), or
        None when it is not on disk."""
        if not self.on_disk:
            return None
        return np.load(os.path.join(self._where, name + ".npy"))

    def discard(self):
        """Close and remove the files (the arrays gathered from them stay readable)."""
        for f in self._files.values():
            f.close()
        self._files = {}
        if self._where is not None:
            try:
                shutil.rmtree(self._where)
            except OSError:
                atexit.register(shutil.rmtree, self._where, True)
            self._where = None
