"""coupsolve.trees.pieces.arrays: arrays added part by part, in any order, gathered in the parts' order, the
same in memory and on disk; a disk that fails falls back to memory; no file is left behind."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from coupsolve.trees.pieces.arrays import PartArrays


def _parts(lengths, seed):
    rng = np.random.default_rng(seed)
    return [dict(h=rng.integers(0, 2**16, n).astype(np.uint16),
                 k=rng.integers(0, 2**63, 2 * n, dtype=np.uint64)) for n in lengths]


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(0, 40), min_size=1, max_size=8), st.randoms(use_true_random=False))
def test_gathered_in_order_whatever_order_the_parts_come_in(lengths, rnd):
    parts = _parts(lengths, rnd.randrange(1000))
    arrival = list(range(len(parts)))
    rnd.shuffle(arrival)
    for disk in (False, True):
        held = PartArrays(disk=disk)
        for k in arrival:
            held.add(k, **parts[k])
        assert [held.length(k, "h") for k in range(len(parts))] == lengths
        for name in ("h", "k"):
            got = held.gather(name, range(len(parts)))
            assert got.dtype == parts[0][name].dtype
            np.testing.assert_array_equal(got, np.concatenate([p[name] for p in parts]))
            assert isinstance(got.base, np.memmap) == disk
        if disk:
            np.testing.assert_array_equal(held.read("k"), np.concatenate([p["k"] for p in parts]))
        held.discard()


def test_files_are_gone_and_arrays_stay_readable(tmp_path):
    parts = _parts([5, 0, 7], 1)
    held = PartArrays(disk=True, folder=str(tmp_path))
    for k in (2, 0, 1):
        held.add(k, **parts[k])
    assert len(list(tmp_path.iterdir())) == 1
    got = held.gather("k", [0, 1, 2])
    held.discard()
    assert list(tmp_path.iterdir()) == []
    np.testing.assert_array_equal(got, np.concatenate([p["k"] for p in parts]))
    got[0] = 0  # copy-on-write: writable, and the file was unlinked anyway
    assert held.read("k") is None


def test_a_failing_disk_turns_it_back_to_memory(tmp_path, monkeypatch):
    parts = _parts([3, 4, 5], 2)
    held = PartArrays(disk=True, folder=str(tmp_path))
    held.add(1, **parts[1])
    real, calls = PartArrays._append, []

    def full(self, name, a):
        calls.append(name)
        raise OSError("No space left on device")

    monkeypatch.setattr(PartArrays, "_append", full)
    with pytest.warns(UserWarning, match="stay in memory: No space left"):
        held.add(0, **parts[0])
    monkeypatch.setattr(PartArrays, "_append", real)
    held.add(2, **parts[2])
    assert calls and not held.on_disk and list(tmp_path.iterdir()) == []
    for name in ("h", "k"):
        np.testing.assert_array_equal(held.gather(name, [0, 1, 2]),
                                      np.concatenate([p[name] for p in parts]))


def test_one_dtype_per_name():
    held = PartArrays()
    held.add(0, h=np.zeros(2, np.uint16))
    with pytest.raises(TypeError, match="h is uint16, not int32"):
        held.add(1, h=np.zeros(2, np.int32))
