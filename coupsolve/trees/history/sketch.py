"""A distinct-count sketch (HyperLogLog) the counting walk keeps of the information-set keys.

The counting walk of :mod:`coupsolve.trees.history.builder` stores no tree and no dictionary of information sets, yet
the memory a build and a solve need depends on how many distinct information sets there are (every
decision node is not its own information set: at turn limit 2 there are 7.3 decision nodes to an
information set). The walk therefore feeds each decision node's information-set key (the first of the
two hashes of the acting player's observation sequence) into a HyperLogLog sketch of
``2**SKETCH_BITS`` one-byte registers, which estimates the number of distinct keys with a relative
standard error of ``1.04 / sqrt(2**SKETCH_BITS)`` (1.6%) in 4 KiB.

Reference: Flajolet, Fusy, Gandouet and Meunier (2007), "HyperLogLog: the analysis of a near-optimal
cardinality estimation algorithm", AofA.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

SKETCH_BITS = 12
SKETCH_SIZE = 1 << SKETCH_BITS
_REST = 64 - SKETCH_BITS


@njit(cache=True, inline="always")
def sketch_add(registers, key):
    """Add one 64-bit key to the sketch.

    Parameters
    ----------
    registers : ndarray, uint8, shape (SKETCH_SIZE,)
        The sketch, updated in place.
    key : uint64
        The key (mixed here by the splitmix64 finaliser, so any hash of the keys will do).
    """
    x = key
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    x = x ^ (x >> np.uint64(31))
    j = np.int64(x >> np.uint64(_REST))
    w = x << np.uint64(SKETCH_BITS)
    rank = 1
    while rank <= _REST and (w >> np.uint64(63)) == np.uint64(0):
        w = w << np.uint64(1)
        rank += 1
    if rank > registers[j]:
        registers[j] = rank


def new_sketch() -> np.ndarray:
    """An empty sketch: ``SKETCH_SIZE`` zero registers (uint8)."""
    return np.zeros(SKETCH_SIZE, dtype=np.uint8)


def sketch_estimate(registers: np.ndarray) -> int:
    """The estimated number of distinct keys added to ``registers`` (uint8, shape (SKETCH_SIZE,)).

    HyperLogLog's estimate, with linear counting for small counts (below ``2.5 * SKETCH_SIZE``).
    """
    m = registers.shape[0]
    alpha = 0.7213 / (1.0 + 1.079 / m)
    raw = alpha * m * m / float(np.sum(np.ldexp(1.0, -registers.astype(np.int64))))
    zeros = int(np.count_nonzero(registers == 0))
    if raw <= 2.5 * m and zeros:
        return int(round(m * math.log(m / zeros)))
    return int(round(raw))
