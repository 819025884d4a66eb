"""The MCCFR table's growth in place (solvers.mccfr.kernel._grow) on adversarial keys: runs of full
slots that wrap past the last slot, keys whose homes crowd the top of the table, duplicates. Every
information set inserted is found again at its offset, under every mask the table grows through."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from solvers.mccfr import kernel as K
from solvers.mccfr.solver import new_table, slots_in_use


def _small_table(capacity, first):
    """A table of ``capacity`` slots with only ``first`` in use (FIRST_SLOTS is too large to make
    the runs wrap often)."""
    table = new_table(capacity)
    table["offset"][:] = -1
    table["key"][-1] = first - 1
    return table


def _reachable(table):
    """Every set in use lies where linear probing from its home finds it: no empty slot between."""
    t = slots_in_use(table)
    mask = len(t) - 1
    for j in np.flatnonzero(t["offset"] >= 0):
        k = int(t["key"][j]) & mask
        while k != j:
            if t["offset"][k] < 0:
                return False
            k = (k + 1) & mask
    return True


@settings(max_examples=150, deadline=None)
@given(homes=st.lists(st.integers(0, 255), min_size=1, max_size=180),
       high=st.lists(st.integers(0, 7), min_size=1, max_size=180))
def test_growth_in_place_keeps_every_set_where_its_probe_finds_it(homes, high):
    # keys whose low bits (the home under every mask up to 256 slots) crowd the top of the table,
    # and whose higher bits decide where a doubling sends them
    keys = np.array([(h | 0xF0 if i % 3 else h) + (high[i % len(high)] << 8) * 256 + 1
                     for i, h in enumerate(homes)], np.uint64)
    keys = np.unique(keys)
    n = len(keys)
    table = _small_table(1 << 10, 4)
    stats = np.array([0, 0, 0, 0, 2 * n + 2, 2, 3 * n + 3], np.int64)
    checks, owners, nacts = keys ^ np.uint64(99), np.zeros(n, np.int8), np.full(n, 2, np.int32)
    for i in range(n):  # one at a time, checking the table after every growth
        before = len(slots_in_use(table))
        assert K.insert_all(table, stats, keys[i:i + 1], checks[i:i + 1], owners[:1], nacts[:1]) == K.OK
        if len(slots_in_use(table)) != before:
            assert _reachable(table)
    assert int(stats[0]) == n
    out = np.empty(n, np.int64)
    assert K.find_all(table, stats, keys, checks, owners, nacts, out) == K.OK
    assert np.array_equal(out, 2 * np.arange(n))
    t = slots_in_use(table)
    assert (t["offset"] >= 0).sum() == n and _reachable(table)
    used = t[t["offset"] >= 0]
    assert np.array_equal(np.sort(used["offset"]), 2 * np.arange(n))
    assert np.array_equal(used["check"], used["key"] ^ np.uint64(99))
