"""``.npz`` files holding arrays plus one JSON metadata string (no pickle)."""

from __future__ import annotations

import json
import os
import shutil
import zipfile

import numpy as np

_META = "__metadata__"


def library_version():
    """Version of this installed distribution (``'unknown'`` if absent)."""
    try:
        from importlib.metadata import PackageNotFoundError, version
    except ImportError:  # pragma: no cover
        return "unknown"
    try:
        return version("coupsolve")
    except PackageNotFoundError:
        return "unknown"


def fsync_folder(path):
    """fsync the folder holding ``path``, so a rename into it survives a power cut."""
    folder = os.open(os.path.dirname(os.path.abspath(path)), os.O_RDONLY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)


def replace_durably(path, write, staged=None):
    """Write a file so that a kill at any moment (SIGKILL, a power cut) leaves ``path`` whole: the old
    file or the new one, never a part.

    ``write(handle)`` writes into ``staged`` (binary; by default ``<path>.tmp``, a stale one of a killed
    write removed first), which is flushed and fsynced, renamed over ``path``, and the folder fsynced.
    ``staged`` is removed if the write fails.
    """
    path = os.fspath(path)
    if staged is None:
        staged = path + ".tmp"
        for stale in (staged, staged + ".tmp"):  # a killed write's (``.tmp.tmp``: of earlier versions)
            if os.path.exists(stale):
                os.remove(stale)
    try:
        with open(staged, "wb") as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(staged, path)
    finally:
        if os.path.exists(staged):
            os.remove(staged)
    fsync_folder(path)


#: The fields :func:`save` adds to every file's metadata.
FILE_FIELDS = ("kind", "version")


def save(path, kind, metadata, arrays):
    """Write ``arrays`` and ``metadata`` (JSON-serialisable) durably to ``path`` (:func:`replace_durably`)."""
    meta = np.array(json.dumps(dict(metadata, kind=kind, version=library_version()), sort_keys=True))
    replace_durably(path, lambda handle: np.savez(handle, **{_META: meta}, **arrays))


ATTACHED = "attached__"  # the prefix of an attachment's member (:func:`attach`)


def attach(path, name, document):
    """Add (or replace) the JSON-serialisable ``document`` as the attachment ``name`` of the file
    ``path`` written by :func:`save`: a result computed after the file was written (an analysis)
    kept with it. The file is rewritten durably (:func:`replace_durably`), its members copied as they
    are, a block at a time (a strategy of gigabytes is not read into memory)."""
    member = ATTACHED + name + ".npy"
    with zipfile.ZipFile(os.fspath(path)) as src:
        names = [n for n in src.namelist() if n != member]
        if _META + ".npy" not in names:
            raise ValueError(f"{path} has no metadata; it was not written by solvers")

        def write(handle):
            with zipfile.ZipFile(handle, "w", zipfile.ZIP_STORED, allowZip64=True) as out:
                for n in names:
                    with src.open(n) as r, out.open(n, "w", force_zip64=True) as w:
                        shutil.copyfileobj(r, w, 1 << 24)
                with out.open(member, "w") as w:
                    np.lib.format.write_array(w, np.array(json.dumps(document, sort_keys=True)),
                                              allow_pickle=False)

        replace_durably(path, write)


def attachment(path, name):
    """The attachment ``name`` of the file ``path`` (:func:`attach`), or None if it has none."""
    member = ATTACHED + name + ".npy"
    with zipfile.ZipFile(os.fspath(path)) as z:
        if member not in z.namelist():
            return None
        with z.open(member) as r:
            return json.loads(str(np.lib.format.read_array(r, allow_pickle=False)[()]))


def load(path, kind, skip=()):
    """Read a file written by :func:`save`; returns ``(metadata, arrays)``, the arrays named in
    ``skip`` left unread.

    Raises
    ------
    ValueError
        If the file is not a ``kind`` file written by :func:`save`.
    """
    path = os.fspath(path)
    try:
        data = np.load(path, allow_pickle=False)
        if not isinstance(data, np.lib.npyio.NpzFile):
            raise ValueError("it holds a single array, not an .npz archive")
        with data:
            arrays = {name: data[name] for name in data.files
                      if name not in skip and not name.startswith(ATTACHED)}
    except FileNotFoundError:
        raise
    except (OSError, EOFError, ValueError, zipfile.BadZipFile) as exc:
        raise ValueError(f"{path} is not a readable .npz file: {exc}") from exc
    if _META not in arrays:
        raise ValueError(f"{path} has no metadata; it was not written by solvers")
    try:
        meta = json.loads(str(arrays.pop(_META)[()]))
    except (ValueError, IndexError) as exc:
        raise ValueError(f"{path} has unreadable metadata: {exc}") from exc
    if not isinstance(meta, dict):
        raise ValueError(f"{path} has unreadable metadata")
    if meta.get("kind") != kind:
        raise ValueError(f"{path} is a {meta.get('kind')!r} file, expected {kind!r}")
    return meta, arrays


def check_layout(tree, game_id, num_actions, actions, path):
    """Refuse a file whose game or infoset layout differs from ``tree``'s."""
    if game_id != tree.game_id:
        raise ValueError(f"{path} was saved for game {game_id!r}, but the tree is for game "
                         f"{tree.game_id!r}")
    if (num_actions.shape != tree.infoset_num_actions.shape
            or actions.shape != tree.infoset_actions.shape
            or not np.array_equal(num_actions, tree.infoset_num_actions)
            or not np.array_equal(actions, tree.infoset_actions)):
        raise ValueError(
            f"{path} has {num_actions.shape[0]} information sets and {actions.shape[0]} actions "
            f"laid out differently from the tree ({tree.num_infosets} information sets, "
            f"{tree.num_actions} actions), although both are for game {game_id!r}")
