"""Small compiled helpers of the class walk (:mod:`coupsolve.trees.classwalk.walk`): token hashes and an
open-addressing table reused by every node (cleared by bumping a stamp, never by writing it)."""

from __future__ import annotations

import numpy as np
from numba import njit

from coupsolve.engine.hashing import HASH_MUL, mix

EMPTY = -1


@njit(cache=True, inline="always")
def hash_tokens(h, toks, n, k):
    """``h`` with tokens ``toks[:n]`` mixed in (hash ``k`` of :func:`coupsolve.engine.hashing.absorb_events`)."""
    for i in range(n):
        h = mix(h, toks[i], HASH_MUL[k])
    return h


@njit(cache=True, inline="always")
def mix_ints2(h, values, n):
    """The key pair of ``values[:n]`` from seed ``h`` (two independent 64-bit hashes: two keys are the
    same when both agree, as the history tree's information-set keys)."""
    a = h
    b = h ^ np.uint64(0x5851F42D4C957F2D)
    for i in range(n):
        a = mix(a, values[i], HASH_MUL[0])
        b = mix(b, values[i], HASH_MUL[1])
    return a, b


@njit(cache=True)
def table_slot(t_k1, t_k2, t_val, t_stamp, stamp, k1, k2, mask):
    """The slot of the table ``t_*`` (``mask + 1`` slots in use) holding key ``(k1, k2)``, or the empty
    slot where it goes (``t_val[slot] == EMPTY`` then: the caller writes the value)."""
    i = np.int64((k1 * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(40)) & mask
    while True:
        if t_stamp[i] != stamp:
            t_stamp[i] = stamp
            t_k1[i], t_k2[i], t_val[i] = k1, k2, EMPTY
            return i
        if t_k1[i] == k1 and t_k2[i] == k2:
            return i
        i = (i + 1) & mask
