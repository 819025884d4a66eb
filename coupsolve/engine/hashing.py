"""Hashes of what each player has observed: the keys of information sets, for every tree builder and
the sampling game.

A player's observation sequence (the engine's event tokens that player sees: the private token of the
events it owns or everyone owns, the public token of the others, exactly what the OpenSpiel observer
prints) is hashed with two independent 64-bit polynomial hashes, seeded by the seat. The first keys a
table of information sets; the second is stored and compared on every hit, so that a collision of the
first is detected instead of merging two information sets (both colliding at once has probability
about 2^-64 per pair).
"""

from __future__ import annotations

import numpy as np

from numba import njit

HASH_MUL = (np.uint64(0x9E3779B97F4A7C15), np.uint64(0xC2B2AE3D27D4EB4F))
HASH_SEED = (np.uint64(0x243F6A8885A308D3), np.uint64(0x13198A2E03707344))


@njit(cache=True, inline="always")
def mix(h, token, mul):
    """``h`` with one token mixed in, by the multiplier ``mul`` (one of :data:`HASH_MUL`)."""
    return (h ^ np.uint64(token + 1)) * mul + np.uint64(0x632BE59BD9B4E019)


@njit(cache=True, inline="always")
def seed_hashes(h):
    """Every player's two hashes ``h`` (uint64, (players, 2)) set to their seats' seeds: nothing seen."""
    for p in range(h.shape[0]):
        h[p, 0] = HASH_SEED[0] + np.uint64(p)
        h[p, 1] = HASH_SEED[1] + np.uint64(p)


@njit(cache=True, inline="always")
def absorb_events(src, dst, ev, ne):
    """Every player's two hashes ``dst`` (uint64, (players, 2)): those of ``src`` (the same array, or
    another) with ``ne`` events mixed in: each player sees the private token of the events it owns (or
    everyone owns) and the public token of the others. ``ev`` is the engine's event buffer (int32,
    (events, 3))."""
    for p in range(src.shape[0]):
        a0 = src[p, 0]
        a1 = src[p, 1]
        for i in range(ne):
            tok = ev[i, 1] if (ev[i, 0] < 0 or ev[i, 0] == p) else ev[i, 2]
            a0 = mix(a0, tok, HASH_MUL[0])
            a1 = mix(a1, tok, HASH_MUL[1])
        dst[p, 0] = a0
        dst[p, 1] = a1


@njit(cache=True)
def absorb(h, src, dst, ev, ne):
    """The players' two hashes at depth ``dst``: those at depth ``src`` with ``ne`` events mixed in
    (``h``: uint64, (depths, players, 2))."""
    absorb_events(h[src], h[dst], ev, ne)
