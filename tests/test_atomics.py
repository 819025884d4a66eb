"""The compiled atomics and barrier of solvers.atomics, in real threads: no increment is lost, and
no thread passes a barrier before every thread has arrived (also with more threads than cores, where
the waiting threads yield)."""

import threading

import numpy as np
import pytest
from numba import njit

from solvers.atomics import BAR_SIZE, atomic_add, atomic_load, barrier


@njit(nogil=True)
def _rounds(bar, count, seen, t, T, rounds):
    """Each round: add 1 to the count, meet, record the count every thread must now see, meet."""
    for r in range(rounds):
        atomic_add(count, 0, 1)
        barrier(bar, T)
        seen[t, r] = atomic_load(count, 0)
        barrier(bar, T)


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_barrier_holds_every_thread_until_all_arrive(threads):
    rounds = 2_000
    bar, count = np.zeros(BAR_SIZE, np.int64), np.zeros(8, np.int64)
    seen = np.zeros((threads, rounds), np.int64)
    workers = [threading.Thread(target=_rounds, args=(bar, count, seen, t, threads, rounds))
               for t in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    want = threads * np.arange(1, rounds + 1)
    assert count[0] == threads * rounds
    for t in range(threads):
        assert np.array_equal(seen[t], want), t
    assert bar[0] == 0  # the counter is reset for the next barrier


@njit(nogil=True)
def _adds(count, n):
    for _ in range(n):
        atomic_add(count, 3, 2)


def test_atomic_adds_from_two_threads_lose_nothing():
    count = np.zeros(8, np.int64)
    workers = [threading.Thread(target=_adds, args=(count, 200_000)) for _ in range(2)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert count[3] == 800_000 and count.sum() == 800_000
