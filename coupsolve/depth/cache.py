"""A cache of leaf values played by rollouts, so that a depth-limited strategy's game is rebuilt without
playing them again.

``coupsolve analyse`` of a strategy solved with ``--leaves BLUEPRINT`` rebuilds the depth-limited game it
was solved on (:func:`coupsolve.depth.build.rebuild`), and the leaf values are the slow part of that
at depth 3 (millions of leaf states). They depend only on the blueprint file (its SHA-256), the cut
game, the continuations, the rollouts per state, the seed and the code that plays them, so
:func:`leaf_values` keeps them in the user's cache folder (``$COUPSOLVE_CACHE_DIR``, else
``$XDG_CACHE_HOME/coupsolve``, else ``~/.cache/coupsolve``, as the tree sizes' cache), one plain ``.npz``
per key, written atomically. A file is used only when its key, its stamp (this version and a digest of
the sources rollouts read: the engine, the sampling game, the depth-limited package, the tree builders
and the rules) and its arrays' checksum match, and its arrays fit the cut game they are for (the same
leaves, a row per leaf within its values, finite values): anything else is ignored with a one-line
warning and the values are played again, so nothing read from the cache reaches a kernel unchecked.

Exact values (``--rollouts exact``) are kept the same way, and so, apart, are the values of the turn
starts they were computed from, by their keys (:func:`remember_turn_starts`): a cut one turn shorter
of the same blueprint then needs to walk its own leaves' turn only, and to look up where each one
ends (:func:`coupsolve.depth.exact.values_exact`).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import zipfile

import numpy as np

from coupsolve.depth.values import LeafValues

__all__ = ["CACHE_SOURCES", "cached_turn_starts", "cached_values", "has_turn_starts", "key_of", "remember_turn_starts",
           "remember_values", "turn_starts_key"]

#: What leaf values by rollouts read, under coupsolve/.
CACHE_SOURCES = ("engine", "sampling", "depth", "trees", "rules.py")
_ARRAYS = ("leaves", "values", "stderr", "row_of")


@functools.lru_cache(maxsize=1)
def _stamp() -> str:
    from solvers.cache_guard import sources_digest
    from solvers.npz import library_version

    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return json.dumps([library_version(), sources_digest(*(os.path.join(top, s) for s in CACHE_SOURCES))])


def key_of(blueprint_sha256, cut_rules, k, rollouts, seed) -> str:
    """The cache key of the leaf values of the game of ``cut_rules`` under ``k`` continuations of the
    blueprint with this digest, ``rollouts`` per state, seeded by ``seed``."""
    text = json.dumps([_stamp(), str(blueprint_sha256), cut_rules.game_string(), int(k), int(rollouts), int(seed)])
    return hashlib.sha256(text.encode()).hexdigest()


def turn_starts_key(blueprint_sha256, blueprint_rules, k, turns_left) -> str:
    """The cache key of the exact values of turn starts with ``turns_left`` turns left (their own
    included) under ``k`` continuations of the blueprint with this digest and rules."""
    text = json.dumps([_stamp(), str(blueprint_sha256), blueprint_rules.game_string(), int(k), "turn starts",
                       int(turns_left)])
    return hashlib.sha256(text.encode()).hexdigest()


def _path(key, kind="leaf-values") -> str:
    from coupsolve.trees.sizecache import cache_path

    return os.path.join(os.path.dirname(cache_path()), f"{kind}-{key[:32]}.npz")


def _checksum(key, arrays) -> str:
    h = hashlib.sha256(key.encode())
    for name in arrays:  # in the order written and read
        a = np.ascontiguousarray(arrays[name])
        h.update(f"{name}{a.dtype.str}{a.shape}".encode())
        h.update(a.tobytes())
    return h.hexdigest()


def remember_values(key, values: LeafValues, warn=print) -> str | None:
    """Keep ``values`` (by rollouts or exact, per distinct leaf state) under ``key``: the file's path, or
    None (values of another kind, or a folder that cannot be written: a one-line warning, not an error)."""
    if values.stderr is None or values.row_of is None:
        return None
    arrays = dict(leaves=np.asarray(values.leaves, np.int64), values=np.asarray(values.values, np.float64),
                  stderr=np.asarray(values.stderr, np.float64),
                  row_of=np.asarray(values.row_of, np.int32 if len(values.values) < 2**31 else np.int64))
    meta = {"continuations": list(values.continuations), "source": values.source, "states": int(values.states or 0)}
    return _write(_path(key), key, meta, arrays, "leaf values", warn)


def remember_turn_starts(key, keys, values, warn=print) -> str | None:
    """Keep the exact values ``values`` (``(n, k, k)``) of the turn starts whose chain keys are ``keys``
    (:func:`coupsolve.depth.exact.turn_start_keys`) under ``key`` (:func:`turn_starts_key`), sorted by
    key: the file's path, or None (a one-line warning)."""
    keys, first = np.unique(np.asarray(keys, np.uint64), return_index=True)  # sorted, each once
    arrays = dict(keys=keys, values=np.asarray(values, np.float64)[first])
    return _write(_path(key, "turn-starts"), key, {}, arrays, "turn starts' values", warn)


def has_turn_starts(key) -> bool:
    """Whether a file of turn starts' values is kept under ``key`` (not read: not checked)."""
    return os.path.isfile(_path(key, "turn-starts"))


def cached_turn_starts(key, k, warn=print):
    """``(keys, values)`` kept under ``key`` (sorted unique keys, finite ``(n, k, k)`` values), or None
    (not kept, or refused with a one-line warning)."""
    def fits(arrays, meta):
        keys, values = arrays["keys"], arrays["values"]
        return (keys.ndim == 1 and keys.dtype == np.uint64 and values.shape == (len(keys), k, k)
                and np.isfinite(values).all() and (np.diff(keys) > 0).all())

    arrays = _read(_path(key, "turn-starts"), key, ("keys", "values"), fits, "turn starts' values", warn)
    return None if arrays is None else (arrays[0]["keys"], arrays[0]["values"])


def _write(path, key, meta, arrays, what, warn):
    """Write ``arrays`` and ``meta`` (with ``key`` and the arrays' checksum) to ``path`` atomically: the
    path, or None with a one-line warning."""
    meta = json.dumps(dict(meta, key=key, check=_checksum(key, arrays)))
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(tmp, "wb") as f:
            np.savez(f, meta=np.array(meta), **arrays)
        os.replace(tmp, path)
    except OSError as e:
        warn(f"coupsolve: warning: the {what} could not be cached ({e.strerror or e})")
        if os.path.exists(tmp):
            os.remove(tmp)
        return None
    return path


def _read(path, key, names, fits, what, warn):
    """``(arrays, meta)`` of the file at ``path`` if it is there, is ``key``'s, matches its checksum and
    ``fits(arrays, meta)``; else None (with a one-line warning when it is there)."""
    if not os.path.isfile(path):
        return None
    try:
        with np.load(path, allow_pickle=False) as z:
            meta = json.loads(str(z["meta"][()]))
            arrays = {name: z[name] for name in names}
        if meta.get("key") != key or meta.get("check") != _checksum(key, arrays):
            raise ValueError("it does not match its checksum")
        if not fits(arrays, meta):
            raise ValueError("its arrays do not fit this game")
    except (OSError, ValueError, KeyError, TypeError, EOFError, zipfile.BadZipFile) as e:
        warn(f"coupsolve: warning: ignoring the cached {what} {os.path.basename(path)}: {e}")
        return None
    return arrays, meta


def cached_values(key, leaves, k, warn=print) -> LeafValues | None:
    """The leaf values kept under ``key`` for a cut game whose leaves are ``leaves``, with ``k``
    continuations, or None (not kept, or refused with a one-line warning: module docstring)."""
    def fits(arrays, meta):
        values, stderr, row_of = arrays["values"], arrays["stderr"], arrays["row_of"]
        rows = values.shape[0] if values.ndim == 3 else -1
        return (values.shape == (rows, k, k) and stderr.shape == values.shape and np.isfinite(values).all()
                and row_of.shape == (len(leaves),) and (row_of.size == 0 or 0 <= row_of.min() <= row_of.max() < rows)
                and np.array_equal(arrays["leaves"], np.asarray(leaves)) and len(meta["continuations"]) == k)

    read = _read(_path(key), key, _ARRAYS, fits, "leaf values", warn)
    if read is None:
        return None
    arrays, meta = read
    return LeafValues(arrays["leaves"], arrays["values"], tuple(meta["continuations"]), str(meta["source"]),
                      stderr=arrays["stderr"], states=int(meta["states"]), row_of=arrays["row_of"].astype(np.int64))
