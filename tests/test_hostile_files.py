"""Hostile strategy and checkpoint files, as tests/test_cli_inputs.py is for options: every file of the
table, given to every command that reads it, ends in one line naming the problem and exit status 2,
at once: no traceback, no hang, no gigabytes read, nothing read out of bounds by a compiled kernel
(issue 48: 27 of 328 such runs ended in tracebacks)."""

import contextlib
import io
import json
import os
import signal
import zipfile

import numpy as np
import pytest

from coupsolve.cli import main
from solvers import npz as _npz

META = _npz._META + ".npy"


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A solve's strategy and checkpoint, and a train's strategy and checkpoint (turn limit 1)."""
    folder = tmp_path_factory.mktemp("good")
    runs = (["solve", "--turn-limit", "1", "--iterations", "2", "--no-progress", "--out", folder / "s.npz",
             "--checkpoint", folder / "c.npz"],
            ["train", "--turn-limit", "1", "--iterations", "20", "--games", "20", "--no-progress",
             "--out", folder / "t.npz", "--checkpoint", folder / "tc.npz"])
    for argv in runs:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
            assert main([str(a) for a in argv]) == 0, err.getvalue()
    return {name: folder / f"{name}.npz" for name in ("s", "c", "t", "tc")}


def _members(path):
    with zipfile.ZipFile(path) as z:
        return {n: z.read(n) for n in z.namelist()}


def _write_members(path, members, compress=zipfile.ZIP_STORED):
    with zipfile.ZipFile(path, "w", compress) as z:
        for name, data in members.items():
            z.writestr(name, data)


def _npy(array):
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, np.asarray(array), allow_pickle=False)
    return buffer.getvalue()


def _meta_edit(**changes):
    """Rewrite the file's metadata with ``changes`` (a value of None deletes the field)."""
    def edit(src, dst):
        members = _members(src)
        meta = json.loads(str(np.lib.format.read_array(io.BytesIO(members[META]))[()]))
        meta.update(changes)
        meta = {k: v for k, v in meta.items() if v is not None}
        members[META] = _npy(np.array(json.dumps(meta)))
        _write_members(dst, members)
    return edit


def _raw_meta(text):
    def edit(src, dst):
        members = _members(src)
        members[META] = _npy(np.array(text))
        _write_members(dst, members)
    return edit


def _array_edit(name, change):
    """Replace the array ``name`` by ``change(array)`` (the first of the names the file has)."""
    def edit(src, dst):
        members = _members(src)
        for n in name.split("|"):
            if n + ".npy" in members:
                members[n + ".npy"] = _npy(change(np.lib.format.read_array(io.BytesIO(members[n + ".npy"]))))
                break
        else:
            raise AssertionError(f"no array {name}")
        _write_members(dst, members)
    return edit


def _huge_member(src, dst):
    """A member whose header declares 10**12 float64 (7.28 TiB) over a few bytes."""
    members = _members(src)
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "<f8", "fortran_order": False, "shape": (10**12,)})
    name = next(n for n in members if n != META)
    members[name] = header.getvalue() + b"\0" * 64
    _write_members(dst, members)


def _zip_bomb(src, dst):
    """A member of 40 MB of zeros, deflated to about 40 KB (the issue's took 3.2 GB)."""
    members = _members(src)
    name = next(n for n in members if n != META)
    members[name] = _npy(np.zeros(5_000_000))
    _write_members(dst, members, zipfile.ZIP_DEFLATED)


def _truncated(src, dst):
    dst.write_bytes(src.read_bytes()[: os.path.getsize(src) // 2])


def _pickle(src, dst):
    np.save(open(dst, "wb"), np.array([{"x": 1}], dtype=object), allow_pickle=True)


def _fifo(src, dst):
    os.mkfifo(dst)


def _nan(a):
    a = a.astype(np.float64)
    a[0] = np.nan
    return a


# (name, which files it is made from, the edit, the words the one line must hold)
HOSTILE = [
    ("metadata nested 100,000 deep", "stc", _raw_meta("[" * 100_000 + "]" * 100_000), "nested too deep"),
    ("metadata a list", "stc", _raw_meta("[1, 2]"), "unreadable metadata"),
    ("iterations a list", "sct", _meta_edit(iterations=[1]), "'iterations'"),
    ("options a number", "s", _meta_edit(options=5), "'options'"),
    ("game id a number", "sct", _meta_edit(game_id=7), "'game_id'"),
    ("seed of 10**400", "sct", _meta_edit(seed=10**400), "'seed'"),
    ("seconds NaN", "sct", _meta_edit(seconds=float("nan")), "'seconds'"),
    ("interrupted a string", "s", _meta_edit(interrupted="no"), "'interrupted'"),
    ("max_infosets negative", "t", _meta_edit(max_infosets=-5), "'max_infosets'"),
    ("no game id", "sct", _meta_edit(game_id=None), "'game_id'"),
    ("a member of 10**12 elements", "sct", _huge_member, "declares 8,000,000,000,000 bytes"),
    ("a zip bomb", "sct", _zip_bomb, "is compressed"),
    ("cut in half", "sct", _truncated, "not a readable .npz"),
    ("a pickle", "s", _pickle, "not a readable .npz"),
    ("a named pipe", "stc", _fifo, "not a regular file"),
    ("policy shortened", "s", _array_edit("average_policy", lambda a: a[:-3]), "average_policy"),
    ("policy with NaN", "s", _array_edit("average_policy", _nan), "NaN"),
    ("actions shortened", "sc", _array_edit("infoset_actions", lambda a: a[:-1]), "actions"),
    ("a policy of strings", "s", _array_edit("average_policy", lambda a: a.astype(str)), "average_policy"),
    ("regrets with NaN", "ct", _array_edit("regret", _nan), "NaN"),
    ("regrets shortened", "ct", _array_edit("regret", lambda a: a[:-1]), "regret"),
    ("checks shortened", "t", _array_edit("check", lambda a: a[:-1]), "check"),
    ("keys of another type", "t", _array_edit("key", lambda a: a.astype(np.float64)), "key"),
    ("owners out of range", "t", _array_edit("owner", lambda a: a + 5), "owners"),
    ("action counts of 0", "t", _array_edit("num_actions", lambda a: a * 0), "action counts"),
    ("a 2-D table", "t", _array_edit("average", lambda a: a.reshape(1, -1)), "average"),
    ("another version", "t", _meta_edit(version="0.0.1"), "0.0.1"),
    ("other players", "t", _meta_edit(players=3), "3 players"),
]
# which commands read which file: a strategy of solve (s), a checkpoint of solve (c), a train file (t)
COMMANDS = {"s": [["analyse"], ["match", "--games", "2"], ["play"]],
            "t": [["analyse", "--games", "2"], ["match", "--games", "2"], ["play"],
                  ["train", "--turn-limit", "1", "--iterations", "40", "--no-progress", "--resume"]],
            "c": [["solve", "--turn-limit", "1", "--iterations", "4", "--no-progress", "--resume"]]}
SOURCE = {"s": "s", "t": "t", "c": "c"}


def _cases():
    for name, kinds, edit, words in HOSTILE:
        for kind in kinds:
            for command in COMMANDS[kind]:
                yield pytest.param(name, kind, edit, command, words, id=f"{' '.join(command[:1])} {kind}: {name}")


class _Hang(Exception):
    pass


def _alarm(*_):
    raise _Hang


@pytest.mark.parametrize("name,kind,edit,command,words", list(_cases()))
def test_each_hostile_file_is_one_line(name, kind, edit, command, words, files, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    bad = tmp_path / "bad.npz"
    edit(files[SOURCE[kind]], bad)
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(60)
    try:
        code = main(command + [str(bad)])
    except SystemExit as e:
        code = e.code
    except _Hang:
        pytest.fail("the command hung")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    err = capsys.readouterr().err
    lines = [line for line in err.strip().splitlines() if not line.startswith(("compiling", "counting"))]
    assert code == 2, err
    assert "Traceback" not in err and len(lines) == 1, err
    assert words in lines[0], err


def test_the_good_files_are_read(files, capsys):
    """The table's base files are good: each command reads them (so the table tests the edits)."""
    assert main(["analyse", str(files["s"])]) == 0
    assert main(["analyse", str(files["t"]), "--games", "2"]) == 0
    capsys.readouterr()
