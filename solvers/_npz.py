"""``.npz`` files holding arrays plus one JSON metadata string (no pickle)."""

from __future__ import annotations

import json
import os
import zipfile

import numpy as np

_META = "__metadata__"


def library_version():
    """Version of the installed ``coupsolve`` distribution (``'unknown'`` if absent)."""
    try:
        from importlib.metadata import PackageNotFoundError, version
    except ImportError:  # pragma: no cover
        return "unknown"
    try:
        return version("coupsolve")
    except PackageNotFoundError:
        return "unknown"


def save(path, kind, metadata, arrays):
    """Write ``arrays`` and ``metadata`` (JSON-serialisable) atomically to ``path``."""
    path = os.fspath(path)
    meta = dict(metadata, kind=kind, version=library_version())
    tmp = path + ".tmp"
    try:
        with open(tmp, "wb") as handle:
            np.savez(handle, **{_META: np.array(json.dumps(meta, sort_keys=True))}, **arrays)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def load(path, kind):
    """Read a file written by :func:`save`; returns ``(metadata, arrays)``.

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
            arrays = {name: data[name] for name in data.files}
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
