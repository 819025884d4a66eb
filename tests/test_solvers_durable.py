"""Checkpoints that survive: written durably (a SIGKILL at any moment leaves the last complete one
readable), no stale .tmp left or read, a second Ctrl-C soon after the first still saves, and a
checkpoint of another game refused before the solver allocates anything."""

import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import solvers
import solvers.history.rep
import solvers.cfr.solver
from solvers import npz as _npz
from solvers.cfr.checkpoint import load_checkpoint, write_durably

WRITER = r"""
import sys
import numpy as np
from solvers.cfr.checkpoint import write_durably
path = sys.argv[1]
big = np.arange(2_000_000, dtype=np.float64)  # 16 MB a write
i = 0
while True:
    i += 1
    write_durably(path, "test", {"i": i}, {"x": big + i})
    print(i, flush=True)
"""


def test_sigkill_at_any_moment_leaves_a_complete_file(tmp_path):
    path = str(tmp_path / "ck.npz")
    for delay in (0.05, 0.13, 0.29, 0.41, 0.67):
        proc = subprocess.Popen([sys.executable, "-c", WRITER, path], stdout=subprocess.PIPE, text=True)
        assert proc.stdout.readline()  # one complete write, at least
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        meta, arrays = _npz.load(path, "test")  # readable and whole
        assert np.array_equal(arrays["x"], np.arange(2_000_000, dtype=np.float64) + meta["i"])


def test_a_stale_tmp_is_removed_and_never_read(kuhn, tmp_path):
    _, tree = kuhn
    path = tmp_path / "ck.npz"
    for stale in (str(path) + ".tmp", str(path) + ".tmp.tmp"):
        with open(stale, "wb") as f:
            f.write(b"half a checkpoint")
    solvers.solve(tree, "cfr", iterations=3, checkpoint=path, progress=False)
    assert not os.path.exists(str(path) + ".tmp") and not os.path.exists(str(path) + ".tmp.tmp")
    assert load_checkpoint(path, tree)["iterations"] == 3


def test_a_second_ctrl_c_soon_after_the_first_still_saves(kuhn, tmp_path, monkeypatch):
    """The first Ctrl-C stops an iteration, the second lands in the final evaluation, a third during the
    write itself: the checkpoint is written whole and the result says interrupted."""
    _, tree = kuhn
    path = tmp_path / "ck.npz"
    solvers.solve(tree, "cfr", iterations=20, checkpoint=path, progress=False)
    original_iterate = solvers.history.rep.HistoryTree.iterate
    calls = {"n": 0}

    def iterate(self, n):
        original_iterate(self, n)
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt  # the first Ctrl-C

    def record(self):
        raise KeyboardInterrupt  # the second, 0.1 s later, during the last check

    original_save = _npz.save

    def save(*args):
        os.kill(os.getpid(), signal.SIGINT)  # the third, during the write
        return original_save(*args)

    monkeypatch.setattr(solvers.history.rep.HistoryTree, "iterate", iterate)
    monkeypatch.setattr(solvers.Solver, "record", record)
    monkeypatch.setattr(_npz, "save", save)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        result = solvers.solve(tree, iterations=10**6, check_every=10**5, resume=path, checkpoint=path,
                               progress=False)
    finally:
        signal.signal(signal.SIGINT, previous)
    monkeypatch.undo()
    assert result.interrupted
    saved = load_checkpoint(path, tree)
    assert saved["iterations"] == result.iterations > 20


def test_a_checkpoint_of_another_game_is_refused_before_allocating(kuhn, leduc, tmp_path, monkeypatch):
    _, tree = kuhn
    _, other = leduc
    path = tmp_path / "ck.npz"
    solvers.solve(tree, "cfr", iterations=2, checkpoint=path, progress=False)

    def no_allocation(*args, **kwargs):
        raise AssertionError("the solver was made before the checkpoint was checked")

    monkeypatch.setattr(solvers.cfr.solver, "representation_for", no_allocation)
    with pytest.raises(ValueError, match="saved for game"):
        solvers.Solver.load(path, other)


def test_a_file_of_another_tree_of_the_same_game_is_refused(kuhn, tmp_path):
    """Same game id and layout, other payoffs: the recorded tree digest tells them apart."""
    _, tree = kuhn
    path = tmp_path / "r.npz"
    result = solvers.solve(tree, "cfr", iterations=2, progress=False)
    result.save(path)
    meta, arrays = _npz.load(path, "coupsolve.solvers.SolveResult")
    assert meta["tree_digest"]
    changed = solvers.GameTree(**{name: getattr(tree, name) for name in (
        "node_kind", "node_player", "node_infoset", "child_start", "num_children", "chance_prob",
        "level_start", "infoset_player", "infoset_num_actions", "infoset_offset", "infoset_actions",
        "game_id")}, payoff=-tree.payoff, infoset_keys=tree.infoset_key)
    with pytest.raises(ValueError, match="another tree"):
        solvers.SolveResult.load(path, tree=changed)
    assert json.dumps(meta)  # plain JSON metadata


def _record_fsyncs(monkeypatch):
    """os.fsync recording what each call synced: ``('dir', inode)`` or ``('file', inode)``."""
    import stat

    synced, original = [], os.fsync

    def fsync(fd):
        st = os.fstat(fd)
        synced.append(("dir" if stat.S_ISDIR(st.st_mode) else "file", st.st_ino))
        return original(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    return synced


@pytest.mark.parametrize("write", ["npz", "strategy"])
def test_a_plain_save_fsyncs_the_file_and_its_folder(write, kuhn, tmp_path, monkeypatch):
    """_npz.save itself is durable, so a strategy file (Result.save) gets what a checkpoint gets: its
    contents fsynced before the rename (the renamed file is the inode that was synced), then the folder."""
    _, tree = kuhn
    path = tmp_path / "s.npz"
    with open(str(path) + ".tmp", "wb") as f:
        f.write(b"left by a killed write")
    result = solvers.solve(tree, "cfr", iterations=2, progress=False)
    synced = _record_fsyncs(monkeypatch)
    if write == "npz":
        _npz.save(path, "test", {"i": 1}, {"x": np.arange(3.0)})
    else:
        result.save(path)
    assert ("file", os.stat(path).st_ino) in synced
    assert synced[-1] == ("dir", os.stat(tmp_path).st_ino)  # after the rename
    assert not os.path.exists(str(path) + ".tmp")
