"""Tree sizes known without counting: a table packaged for the presets, and a cache of the user's counts.

A count walks every history (turn limit 4 of the card-selection preset has 3 billion), so the command
line asks here first (:func:`lookup`) and records each count it finishes, or the lower bound proved by
a count its budget stopped (:func:`remember`): a tree known not to fit is refused at once, and a tree
is counted once.

An entry is keyed by the tree's shape (:func:`shape_key`: the game id,
:meth:`coupsolve.Rules.game_string`, of the rules with the limit payoff at its default, since the
payoff at the turn limit changes what a leaf pays, not the tree; a count serves both payoffs) and is
either exact (every field of a :class:`TreeSize` but its rules) or a lower bound ``{"at_least": N}``
(the tree has at least N histories), which answers a budget below N. Two sources:

- *known sizes*: ``known_sizes.json``, packaged with coupsolve: the two-player presets at turn limits
  1 to 4 under both limit payoffs (the payoff does not change the tree's shape), for the layout
  ``COUNT_LAYOUT``; ``tests/test_sizecache.py`` recounts every entry. Regenerate it with
  ``benchmarks/known_sizes.py``.
- *cached counts*: ``tree-sizes.json`` in the user's cache folder (``$COUPSOLVE_CACHE_DIR``, else
  ``$XDG_CACHE_HOME/coupsolve``, else ``~/.cache/coupsolve``). The file holds the counts of one stamp
  (the library version, ``COUNT_LAYOUT`` and a digest of the sources a count reads: the engine, the
  tree builders and the rules, :data:`COUNT_SOURCES`) and only
  game ids and numbers; counts of another stamp are dropped when it is next written. Writes are atomic
  (a temporary file renamed over it); a file that cannot be read or written, or is of another format,
  is ignored with a one-line warning. Each entry is written with a check (a digest of it, its key and
  the stamp), and an entry that no longer matches its check (edited or damaged on disk) is ignored
  and counted afresh. The builder checks every write against its arrays too
  (:mod:`coupsolve.trees.history.builder`), so a wrong size stops a build with an error, never more.

A tree is built only from a count of this very code: an exact cached count, or a fresh one. An exact
known size of the table answers ``info`` and refusals but is not built from, since the fill trusts
its size to allocate the tree.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import sys
from importlib import resources
from typing import NamedTuple

import numpy as np

from coupsolve.trees.history.size import TreeSize

__all__ = ["COUNT_LAYOUT", "KnownSize", "cache_path", "entry_of", "lookup", "lookup_public",
           "lookup_public_source", "public_key", "remember", "remember_public", "shape_key", "size_of"]

#: What a count counts (histories as ``coupsolve.trees.history.builder`` walks them, the fields of a TreeSize): raise
#: it when that changes, and regenerate the packaged table.
COUNT_LAYOUT = 1
FORMAT = "coupsolve tree sizes"
KNOWN, CACHED, COUNTED = "known size", "cached count", "counted"
_FIELDS = ("nodes", "decision_nodes", "decision_children", "seconds", "infosets", "infoset_actions",
           "chance_nodes", "chance_edges")


class KnownSize(NamedTuple):
    """What is known of a tree's size before counting: ``size`` (exact, or None) or ``at_least``
    histories, and where it comes from (``source``: ``KNOWN`` or ``CACHED``)."""

    size: TreeSize | None
    at_least: int
    source: str


def shape_key(rules) -> str:
    """The key of ``rules``' counts: the game id of the same rules with the limit payoff at its
    default (the payoff does not change the tree's shape, so one count serves both)."""
    from coupsolve.rules import Rules

    return rules.replace(limit_payoff=Rules().limit_payoff).game_string()


def _warn(message):
    print(f"coupsolve: warning: {message}", file=sys.stderr)


def cache_path() -> str:
    """The cache file: ``tree-sizes.json`` in ``$COUPSOLVE_CACHE_DIR``, ``$XDG_CACHE_HOME/coupsolve``
    or ``~/.cache/coupsolve``."""
    folder = os.environ.get("COUPSOLVE_CACHE_DIR")
    if not folder:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        folder = os.path.join(base, "coupsolve")
    return os.path.join(folder, "tree-sizes.json")


#: What a count reads, under coupsolve/ (and solvers' node kinds): the engine, the tree builders and
#: the rules. A count is kept across edits anywhere else (the command line, the analysis, the solvers).
COUNT_SOURCES = ("engine", "trees", "rules.py")


def count_sources() -> list[str]:
    """The files and folders whose sources a cached count is stamped with (:data:`COUNT_SOURCES`)."""
    import solvers.kinds

    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return [os.path.join(top, name) for name in COUNT_SOURCES] + [os.path.abspath(solvers.kinds.__file__)]


@functools.lru_cache(maxsize=1)
def _stamp() -> dict:
    """What a cached count is valid for: this version, this count layout, the very sources a count
    reads (:func:`count_sources`)."""
    from solvers.cache_guard import sources_digest
    from solvers.npz import library_version

    return {"version": library_version(), "layout": COUNT_LAYOUT, "sources": sources_digest(*count_sources())}


def entry_of(size: TreeSize) -> dict:
    """A :class:`TreeSize` as a JSON entry (its rules are the entry's key)."""
    entry = {name: int(getattr(size, name)) for name in _FIELDS if name != "seconds"}
    return dict(entry, seconds=round(float(size.seconds), 3), levels=[int(x) for x in size.levels])


def size_of(rules, entry: dict) -> TreeSize | None:
    """The exact :class:`TreeSize` of ``rules`` in ``entry``, or None for a lower bound.

    Raises
    ------
    ValueError
        A malformed entry (a field missing or of the wrong type, levels not summing to the histories).
    """
    if set(entry) == {"at_least"}:
        return None
    fields = {name: entry.get(name) for name in _FIELDS}
    levels = entry.get("levels")
    whole = lambda x: isinstance(x, int) and not isinstance(x, bool) and x >= 0  # noqa: E731
    if not (all(whole(v) for k, v in fields.items() if k != "seconds") and isinstance(levels, list)
            and levels and all(whole(x) for x in levels) and sum(levels) == fields["nodes"]
            and isinstance(fields["seconds"], (int, float))):
        raise ValueError("a malformed entry (a field missing, of the wrong type, or levels not adding up)")
    fields["seconds"] = float(fields["seconds"])
    return TreeSize(rules, levels=np.array(levels, dtype=np.int64), **fields)


def _bound(entry) -> int:
    at_least = entry.get("at_least") if isinstance(entry, dict) else None
    if not isinstance(at_least, int) or at_least < 1:
        raise ValueError("a malformed lower bound")
    return at_least


#: A cache file larger than this is not read (a file of counts holds a few kilobytes).
MAX_FILE_BYTES = 16 << 20


def _check(key, entry, stamp) -> str:
    """The check of a cached ``entry``: a digest of it with its key and stamp, written with it, so an
    entry edited or damaged on disk no longer matches its check and is ignored (never built from)."""
    text = json.dumps([key, entry, stamp], sort_keys=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def _load_json(path):
    """The JSON document of the regular file at ``path`` (ValueError: not a regular file, too large,
    not JSON, or nested too deep to parse)."""
    from solvers.npz import parse_json, regular_file

    regular_file(path)  # before opening it: a named pipe would block the open
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        if size > MAX_FILE_BYTES:
            raise ValueError(f"{size:,} bytes, more than a file of sizes holds")
        text = f.read(size + 1)  # what it holds (read(n) would take n bytes first)
    if len(text) > MAX_FILE_BYTES:
        raise ValueError("grew past what a file of sizes holds while it was read")
    return parse_json(text.decode("utf-8"), "the file")


def _read(path, want, what, warn=True, checked=False):
    """The ``sizes`` of the JSON file at ``path`` if its format and stamp are ``want``; else ``{}``
    (with a one-line warning if ``warn``, unless the file does not exist or only has another stamp).
    With ``checked``, only the entries that match their check (:func:`_check`), the others ignored
    with a warning."""
    try:
        data = _load_json(path)
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as e:
        problem = f"not readable JSON ({e})"
    else:
        if isinstance(data, dict) and data.get("format") == FORMAT and isinstance(data.get("sizes"), dict):
            if data.get("stamp") != want:
                return {}
            if not checked:
                return data["sizes"]
            checks = data.get("checks") if isinstance(data.get("checks"), dict) else {}
            good = {k: v for k, v in data["sizes"].items() if checks.get(k) == _check(k, v, want)}
            if warn and len(good) < len(data["sizes"]):
                _warn(f"ignoring {len(data['sizes']) - len(good)} entries of {what} {path} that do not "
                      "match their check (edited or damaged): they are counted afresh")
            return good
        problem = f"not a file of {FORMAT}"
    if warn:
        _warn(f"ignoring {what} {path}: {problem}")
    return {}


def _cached(warn=True) -> dict:
    """The entries of the cache file that match their checks (the others ignored)."""
    return _read(cache_path(), _stamp(), "the size cache", warn=warn, checked=True)


def _known_table() -> dict:
    return _read(str(resources.files("coupsolve.trees") / "known_sizes.json"), {"layout": COUNT_LAYOUT},
                 "the packaged table of known sizes")


def _from(rules, sizes, key, source, what):
    """The :class:`KnownSize` of ``sizes[key]``, None if absent or malformed (with a warning)."""
    if key not in sizes:
        return None
    entry = sizes[key]
    try:
        size = size_of(rules, entry) if isinstance(entry, dict) else None
        return KnownSize(size, size.nodes if size else _bound(entry), source)
    except ValueError as e:
        _warn(f"ignoring the entry of {rules} in {what}: {e}")
        return None


def lookup(rules, cache: bool = True) -> KnownSize | None:
    """What is known of the size of ``rules``'s tree without counting it, or None.

    An exact size before a lower bound, a cached count before a known size, the larger of two bounds.

    Parameters
    ----------
    rules : Rules
    cache : bool
        Ask the cached counts and the packaged table (False: neither, so everything is counted).
    """

    if not cache:
        return None
    key = shape_key(rules)
    cached, table = _cached(), _known_table()
    found = [k for k in (_from(rules, cached, key, CACHED, "the size cache"),
                         _from(rules, table, key, KNOWN, "the known sizes")) if k is not None]
    exact = [k for k in found if k.size is not None]
    return exact[0] if exact else max(found + _shorter(rules, cached, table), key=lambda k: k.at_least,
                                      default=None)


#: The shorter turn limits whose sizes bound a longer game's (:func:`_shorter`).
SHORTER_LIMITS = range(1, 9)


def _shorter(rules, cached, table) -> list:
    """Lower bounds from the sizes of the same rules at a shorter turn limit: the tree of turn limit
    t is the tree of t + 1 with its last turn cut, so it has no more histories. So turn limit 5 is
    refused at once from turn limit 4's packaged 3.05e9 histories, not after counting for minutes."""
    bounds = []
    for t in SHORTER_LIMITS:
        if t >= rules.turn_limit:
            break
        shorter = rules.replace(turn_limit=t)
        key = shape_key(shorter)
        for sizes, source in ((cached, CACHED), (table, KNOWN)):
            known = _from(shorter, sizes, key, source, "the size cache" if sizes is cached else
                          "the known sizes")
            if known is not None:
                bounds.append(KnownSize(None, known.at_least, f"{source} of turn limit {t}, which this "
                                                              "longer game contains"))
    return bounds


def remember(rules, size: TreeSize | None = None, at_least: int | None = None) -> None:
    """Record a finished count ``size`` of ``rules``'s tree, or the lower bound ``at_least`` (histories)
    that a budgeted count proved, in the cache file (:func:`cache_path`). A bound never replaces an
    exact count nor a larger bound. A file that cannot be written is left as it is, with a warning."""

    path, stamp, key = cache_path(), _stamp(), shape_key(rules)
    sizes = dict(_cached(warn=False))  # a bad file or entry: replaced (lookup warned)
    if size is not None:
        sizes[key] = entry_of(size)
    else:
        old = sizes.get(key)
        if isinstance(old, dict) and ("nodes" in old or _bound_or_zero(old) >= at_least):
            return
        sizes[key] = {"at_least": int(at_least)}
    _write(path, stamp, sizes)


def _write(path, stamp, sizes) -> None:
    """Replace the cache file at ``path`` by ``sizes`` of ``stamp`` (a warning if it cannot be)."""
    checks = {key: _check(key, entry, stamp) for key, entry in sizes.items()}
    text = json.dumps({"format": FORMAT, "stamp": stamp, "sizes": sizes, "checks": checks}, indent=1,
                      sort_keys=True)
    try:
        from solvers.npz import replace_durably

        os.makedirs(os.path.dirname(path), exist_ok=True)
        replace_durably(path, lambda handle: handle.write(text.encode("utf-8") + b"\n"),
                        staged=f"{path}.{os.getpid()}.tmp")
    except OSError as e:
        _warn(f"could not write the size cache {path} ({e})")


def _bound_or_zero(entry) -> int:
    try:
        return _bound(entry)
    except ValueError:
        return 0


# ------------------------------------------------------------------ the public tree's counts by parts
def public_key(rules, parts) -> str:
    """The key of the count by ``parts`` parts of ``rules``' public tree (in the cache and the table)."""

    return f"{shape_key(rules)} | public tree counted by {int(parts)} parts"


def public_entry(size) -> dict:
    """A count by parts (a :class:`~coupsolve.trees.classwalk.build.ClassSize`; ``parts`` may be empty, when no
    level had nodes enough to cut at) as a JSON entry:
    its numbers, level lists and each part's numbers in :class:`~coupsolve.trees.classwalk.count.PartSize`'s
    field order."""
    def plain(v):
        if isinstance(v, (tuple, list, np.ndarray)):
            return [plain(x) for x in v]
        return float(v) if isinstance(v, (float, np.floating)) else int(v)
    entry = {name: plain(getattr(size, name)) for name in size._fields if name not in ("rules", "parts")}
    return dict(entry, parts=[plain(q) for q in size.parts])


def public_size_of(rules, entry: dict):
    """The ClassSize of ``rules`` in ``entry`` (:func:`public_entry`'s); ValueError if malformed."""
    from coupsolve.trees.classwalk.build import ClassSize
    from coupsolve.trees.classwalk.count import PartSize

    try:
        f = {name: entry[name] for name in ClassSize._fields if name not in ("rules", "parts")}
        parts = tuple(PartSize(*q) for q in entry["parts"])
        f["pairs_by_kind"] = tuple(f["pairs_by_kind"])
        f["level_nodes"], f["level_entries"] = (np.array(f[k], np.int64) for k in ("level_nodes",
                                                                                 "level_entries"))
        numbers = [v for k, v in f.items() if k != "seconds" and np.ndim(v) == 0] + \
            [x for k in ("pairs_by_kind", "level_nodes", "level_entries") for x in f[k]] + \
            [x for q in parts for x in q[:-1]]
    except (KeyError, TypeError, ValueError) as e:
        raise ValueError(f"a malformed count by parts ({e!r})") from None
    if not (all(isinstance(x, (int, np.integer)) and x >= 0 for x in numbers)
            and f["nodes"] == int(f["level_nodes"].sum())):
        raise ValueError("a malformed count by parts (a number missing, negative or not adding up)")
    return ClassSize(rules, parts=parts, **f)


def lookup_public(rules, parts, cache: bool = True, known: bool = False):
    """The cached count of ``rules``' public tree by ``parts`` parts (a ClassSize), or None; with
    ``known``, else the packaged table's (``known_public_sizes.json``: the presets at turn limit 4,
    written by ``benchmarks/known_public_sizes.py``), which answers ``info`` but is never built from."""
    found = lookup_public_source(rules, parts, cache, known)
    return None if found is None else found[0]


def lookup_public_source(rules, parts, cache: bool = True, known: bool = False):
    """``(ClassSize, CACHED or KNOWN)`` of :func:`lookup_public`, or None."""
    if not cache:
        return None
    key = public_key(rules, parts)
    tables = [(_cached(), CACHED, "the size cache")]
    if known:
        tables.append((_read(str(resources.files("coupsolve.trees") / "known_public_sizes.json"),
                             {"layout": COUNT_LAYOUT}, "the packaged table of public counts"), KNOWN,
                       "the packaged table of public counts"))
    for sizes, source, what in tables:
        if key in sizes:
            try:
                return public_size_of(rules, sizes[key]), source
            except ValueError as e:
                _warn(f"ignoring the public count of {rules} in {what}: {e}")
    return None


def remember_public(rules, parts, size) -> None:
    """Record the count by ``parts`` parts ``size`` of ``rules``' public tree in the cache file."""
    path, stamp = cache_path(), _stamp()
    sizes = dict(_cached(warn=False))
    sizes[public_key(rules, parts)] = public_entry(size)
    _write(path, stamp, sizes)
