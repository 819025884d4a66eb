"""``.npz`` files holding arrays plus one JSON metadata string (no pickle)."""

from __future__ import annotations

import json
import math
import os
import shutil
import stat
import sys
import tempfile
import zipfile
import zlib

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
    check_archive(os.fspath(path), skip=())
    with zipfile.ZipFile(os.fspath(path)) as z:
        if member not in z.namelist():
            return None
        with z.open(member) as r:
            return parse_json(str(np.lib.format.read_array(r, allow_pickle=False)[()]), f"attachment {name}")


#: The largest metadata member read (the metadata of a file is a few kilobytes).
MAX_METADATA_BYTES = 1 << 24


def regular_file(path):
    """Refuse (``ValueError``) a ``path`` that is not a regular file (a named pipe would block a
    reader for ever, a device or folder is no file of arrays); ``FileNotFoundError`` if absent."""
    if not stat.S_ISREG(os.stat(path).st_mode):
        raise ValueError(f"{path} is not a regular file")


def _member_header(z, info):
    """``(bytes its data takes, header bytes)`` of the ``.npy`` member ``info``, from its header."""
    with z.open(info) as f:
        version = np.lib.format.read_magic(f)
        reader = {(1, 0): np.lib.format.read_array_header_1_0,
                  (2, 0): np.lib.format.read_array_header_2_0}.get(version)
        if reader is None:
            raise ValueError(f"member {info.filename} has .npy version {version}")
        shape, _, dtype = reader(f)
        if dtype.hasobject:
            raise ValueError(f"member {info.filename} holds Python objects")
        return math.prod(shape) * dtype.itemsize, f.tell()


def check_archive(path, skip=()):
    """Refuse, before reading any array, an archive whose members do not hold what they declare: a
    compressed member (:func:`save` and :func:`attach` store them as they are, so a member that
    decompresses, possibly a zip bomb, is not theirs), a member reaching past the end of the file, or whose ``.npy`` header declares another number of bytes than it holds (an
    array of 10**12 elements in a small file, a shortened array); metadata over
    :data:`MAX_METADATA_BYTES`; members not in ``skip`` that need more memory than is available.

    Raises
    ------
    ValueError
        Naming the member and what is wrong.
    """
    from solvers.memory import available_bytes, format_bytes

    regular_file(path)
    size, total = os.path.getsize(path), 0
    with open(path, "rb") as f:
        if f.read(6) == b"\x93NUMPY":
            raise ValueError("it holds a single array, not an .npz archive")
    with zipfile.ZipFile(path) as z:
        for info in z.infolist():
            name = info.filename
            if info.compress_type != zipfile.ZIP_STORED or info.file_size != info.compress_size:
                raise ValueError(f"member {name} is compressed ({info.file_size:,} bytes from "
                                 f"{info.compress_size:,}); solvers writes its members stored")
            if info.header_offset + info.compress_size > size:
                raise ValueError(f"member {name} reaches past the end of the file")
            if name == _META + ".npy" and info.file_size > MAX_METADATA_BYTES:
                raise ValueError(f"its metadata has {info.file_size:,} bytes")
            if not name.endswith(".npy"):
                continue
            need, header = _member_header(z, info)
            if need + header != info.file_size:
                raise ValueError(f"member {name} declares {need:,} bytes of data but holds "
                                 f"{info.file_size - header:,}")
            total += need if name[:-4] not in skip and not name.startswith(ATTACHED) else 0
    free = available_bytes()
    if free is not None and total > free:
        raise ValueError(f"reading it needs {format_bytes(total)}, more than the {format_bytes(free)} "
                         "available")


def parse_json(text, what):
    """The JSON document ``text`` (ValueError, never RecursionError, for one nested too deep)."""
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError(f"{what} is nested too deep") from None


def load(path, kind, skip=()):
    """Read a file written by :func:`save`; returns ``(metadata, arrays)``, the arrays named in
    ``skip`` left unread. The archive is checked first (:func:`check_archive`): no member is read
    that does not hold what it declares.

    Raises
    ------
    ValueError
        If the file is not a ``kind`` file written by :func:`save`.
    """
    path = os.fspath(path)
    try:
        check_archive(path, skip)
        data = np.load(path, allow_pickle=False)
        if not isinstance(data, np.lib.npyio.NpzFile):
            raise ValueError("it holds a single array, not an .npz archive")
        with data:
            arrays = {name: data[name] for name in data.files
                      if name not in skip and not name.startswith(ATTACHED)}
    except FileNotFoundError:
        raise
    except (OSError, EOFError, ValueError, zipfile.BadZipFile, zlib.error, NotImplementedError,
            RuntimeError) as exc:  # RuntimeError: an encrypted member; NotImplementedError: a compression
        raise ValueError(f"{path} is not a readable .npz file: {exc}") from exc
    if _META not in arrays:
        raise ValueError(f"{path} has no metadata; it was not written by solvers")
    try:
        meta = parse_json(str(arrays.pop(_META)[()]), "its metadata")
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


_KINDS = {"str": str, "int": int, "float": (int, float), "bool": bool, "dict": dict, "list": list}
#: The largest whole number a metadata field may hold (seeds, iterations, sizes: int64).
MAX_INT = 2**63 - 1


def check_fields(meta, path, **spec):
    """Refuse (``ValueError``, naming the field) metadata whose fields are not of ``spec``'s kinds:
    ``name="int"`` (a whole number from 0 to :data:`MAX_INT`, not a bool), ``"float"`` (finite, at
    least 0), ``"str"``, ``"bool"``, ``"dict"``, ``"list"``; a kind ending in ``?`` may be absent."""
    for name, kind in spec.items():
        optional, kind = kind.endswith("?"), kind.rstrip("?")
        if name not in meta:
            if optional:
                continue
            raise ValueError(f"{path}: its metadata lacks {name!r}")
        value = meta[name]
        good = isinstance(value, _KINDS[kind]) and not (kind in ("int", "float") and isinstance(value, bool))
        if good and kind == "int":
            good = 0 <= value <= MAX_INT
        elif good and kind == "float":
            good = math.isfinite(value) and value >= 0
        if not good:
            try:
                shown = repr(value)
            except ValueError:  # an int of more digits than Python converts
                shown = ""
            shown = shown if 0 < len(shown) <= 40 else f"a {type(value).__name__}"
            raise ValueError(f"{path}: its metadata's {name!r} is {shown}, not a {kind}"
                             + (" from 0 to 2**63-1" if kind == "int" else
                                " (finite, at least 0)" if kind == "float" else ""))


def check_vector(arrays, name, path, kinds, length=None, finite=False):
    """Refuse (``ValueError``) an array ``arrays[name]`` that is not one-dimensional, of a dtype kind
    in ``kinds`` (``"iu"``, ``"f"``), of ``length`` (when given) or, with ``finite``, holds a NaN
    or an infinity: checked before any compiled kernel reads it."""
    a = arrays[name]
    if a.ndim != 1 or a.dtype.kind not in kinds or (length is not None and a.shape[0] != length):
        want = f" of {length:,}" if length is not None else ""
        raise ValueError(f"{path}: its array {name} is {a.dtype} of shape {a.shape}, not a vector{want}")
    if finite and not bool(np.isfinite(a).all()):
        raise ValueError(f"{path}: its array {name} holds NaN or infinite values")
    return a


def save_or_warn(save, path, what="checkpoint"):
    """``save(path)`` (a solver's checkpoint), or, when the file cannot be written (a full disk, a
    folder gone), one warning line on standard error and False: a long run goes on, its state in
    memory, instead of losing its finished work to a write error."""
    try:
        return save(path)
    except OSError as e:
        print(f"warning: {what} {path} not written ({e.strerror or e}); the run goes on without it",
              file=sys.stderr, flush=True)
        return False


def rescue_path(path) -> str:
    """Where a file that could not be written at ``path`` is written instead: the same name, with this
    process's id, in the system's temporary folder."""
    stem, ext = os.path.splitext(os.path.basename(os.fspath(path)))
    return os.path.join(tempfile.gettempdir(), f"{stem}-rescued-{os.getpid()}{ext}")
