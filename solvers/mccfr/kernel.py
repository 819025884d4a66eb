"""Compiled kernels of external-sampling MCCFR over a game given as compiled step functions.

Lanctot, Waugh, Zinkevich and Bowling (2009), "Monte Carlo Sampling for Regret Minimization in
Extensive Games", NeurIPS: external sampling. The averaging follows OpenSpiel's
``ExternalSamplingSolver`` (``AverageType.SIMPLE``): while player ``i`` is updated, the nodes of player
``(i + 1) % n`` (sampled, not walked) add their current strategy to the average.

The game
--------
A game is a tuple of five ``numba.njit`` functions, ``(init, player, moves, step, returns)``, passed
as a first-class argument (numba compiles the kernels once per game):

``init(P, s, h, W)``
    Write the initial state into ``s`` (int32) and every player's two observation hashes into ``h``
    (uint64, (players, 2)).
``player(P, s)``
    The player to act, ``CHANCE`` (-1) or ``TERMINAL`` (-4).
``moves(P, s, out, prob)``
    Legal actions (decisions) or outcomes with probabilities (chance) into ``out``/``prob``; the count.
``step(P, s, h, a, W)``
    Apply move ``a`` in place and mix what each player observes into ``h``.
``returns(P, s, ret)``
    The payoffs of a terminal state into ``ret`` (float64, players).

``P`` (int32) are the game's parameters and ``W`` its scratch (any tuple of arrays); the order of the
moves must be the order of a :class:`solvers.GameTree`'s children for :func:`tree_infoset_keys`.

The kernels that take a game (:func:`replay_keys`, :func:`tree_infoset_keys` here; external
sampling's traversal in :mod:`solvers.mccfr.external`, outcome sampling's and probing's in their own
modules) are compiled without ``cache=True`` and inlined into their callers (``inline="always"``): numba keys a
cached function on its argument types, and a function's type names its address, so a kernel
specialised on a game would be compiled afresh in every process (seconds for a large game) and leave a new
cache file each time. A game's binding instead wraps each in a ``njit(cache=True)`` entry point of its
own module that passes its functions as a constant tuple; inlined, the tuple
is never made a run-time value (which numba could not cache), and the entry point, with the game and
these kernels compiled into it, is cached with the binding (:class:`solvers.mccfr.solver.SamplingGame`'s
``kernels``).

The table
---------
Information sets live in an open-addressing hash table with linear probing, one slot per information
set, a record of :data:`SLOT_DTYPE`: ``key`` (uint64, the first hash of the owner's observations),
``check`` (uint64, the second hash, compared on every hit so that a collision of the first is
reported, not merged), ``offset`` (int64, -1 empty; the information set's first entry in the flat
``regret`` and ``average`` arrays, float64 each), ``nact`` (int32) and ``owner`` (int8): 32 bytes a
slot (padded), two to a 64-byte cache line when the table starts on one
(:func:`solvers.mccfr.solver.new_table`), and 16 bytes an action. The array holds ``capacity`` slots (a
power of two) and a last record, the *header*, whose ``key`` is the mask of the slots in use: the
first ``mask + 1`` (a power of two, at first :data:`FIRST_SLOTS`). When an insertion would load them
beyond ``MAX_LOAD``, :func:`_grow` doubles them in place, with no copy (the information sets are
moved to their new homes; their offsets do not, so the iterates do not depend on it), so a small
game probes a small, cached table in an array sized for the largest, whose untouched pages cost no
memory.
``stats`` (int64, 7) holds the information sets and the actions in use, the finished iterations,
the depth of an error, the room for actions (``regret``'s length), the number of players and the
room for information sets (at most ``MAX_LOAD`` times ``capacity``). Kernels return a status code,
never raise.

Speed
-----
An iteration's time goes mostly to memory: the table's slot and the information set's regrets are
cache misses once the table outgrows the cache. A slot's fields share one record, so that a lookup
reads one cache line (in five parallel arrays it read five, and an iteration took longer once the table
outgrew the cache: docs/research/design-measurements.md). The updated player's children are all
stepped before the first is walked (up to ``AHEAD`` of them; each state is then copied once more) and
their slots prefetched, so that each one's miss overlaps its elder siblings' walks (shorter iterations once
the table outgrows the cache, no change before); any other decision node's slot is prefetched
before its moves are generated. ``lookup`` is inlined, and a state is copied by element loops.
"""

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.core.extending import intrinsic

CHANCE = -1
TERMINAL = -4
OK = 0
ERR_COLLISION = 1  # same first hash, another second
ERR_RECALL = 2  # same key, another owner or number of actions
ERR_FULL = 3  # no room for another information set or its actions
ERR_DEPTH = 4  # a history deeper than the game's stated bound
MAX_LOAD = 0.75  # the table is full at three quarters of its slots (linear probing stays short)
FIRST_SLOTS = 1 << 12  # the slots in use at first (the table grows from there: see "The table")
#: A slot of the table (aligned: 32 bytes).
SLOT_DTYPE = np.dtype([("key", np.uint64), ("check", np.uint64), ("offset", np.int64),
                       ("nact", np.int32), ("owner", np.int8)], align=True)
SLOT_BYTES = SLOT_DTYPE.itemsize
ACTION_BYTES = 8 + 8

_ALL = 0  # a node of the updated player: every child is walked
_ONE = 1  # a chance or opponent node: one child is sampled
_ALL_AHEAD = 2  # _ALL, its children stepped ahead (into ``sib`` and ``sibh``: see "Speed")
AHEAD = 32  # the most children stepped ahead at one node


@njit(cache=True, inline="always")
def _next(rng):
    """splitmix64 (Steele, Lea and Flood 2014) on the state ``rng[0]``: a uniform float in [0, 1)."""
    rng[0] += np.uint64(0x9E3779B97F4A7C15)
    z = rng[0]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return float(z >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True, inline="always")
def _sample(p, k, rng):
    """An index drawn from the distribution ``p[:k]``."""
    u = _next(rng)
    acc = 0.0
    for j in range(k - 1):
        acc += p[j]
        if u < acc:
            return j
    return k - 1


@intrinsic
def _prefetch(typingctx, arr, idx):
    """A hint to bring ``arr[idx]`` (one-dimensional) into the cache; no effect on results."""
    def codegen(context, builder, signature, args):
        aryty = signature.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [args[1]], wraparound=False)
        i32, i8p = ir.IntType(32), ir.IntType(8).as_pointer()
        fn = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32]), "llvm.prefetch.p0")
        builder.call(fn, [builder.bitcast(ptr, i8p), i32(0), i32(3), i32(1)])  # read, keep, data
        return context.get_dummy_value()

    return types.void(arr, idx), codegen


@njit(cache=True, inline="always")
def prefetch_slot(table, key):
    """Start loading the first slot ``lookup`` probes for ``key`` (while the caller does other work)."""
    _prefetch(table, key & table[table.shape[0] - 1].key)


@njit(cache=True, inline="always")
def _free_slot(table, key, mask):
    """The first empty slot linear probing meets for ``key`` under ``mask``."""
    j = key & mask
    while table[j].offset >= 0:
        j = (j + np.uint64(1)) & mask
    return j


@njit(cache=True, inline="always")
def _move(table, j, k):
    """Slot ``j``'s information set into slot ``k``; ``j`` left empty."""
    src, dst = table[j], table[k]
    dst.key, dst.check, dst.nact, dst.owner = src.key, src.check, src.nact, src.owner
    o = src.offset
    src.offset = -1
    dst.offset = o


@njit(cache=True)
def _grow(table):
    """Double the slots in use (the header's mask) in place; the table must have room (``2 * (mask +
    1)`` slots besides the header).

    Under the new mask a key's home is its old home ``h`` or ``h + m``. The old slots are walked once,
    from just after an empty one ``s`` (so that no run of full slots wraps into the walk's start),
    each information set taken out and put back by linear probing from its new home. A set that stays
    below ``m`` lands at or before the slot ``j`` it left: the full slots from its home up to ``j``
    were all walked already. One that moves up meets only sets put back already: the sets walked
    from ``s`` to ``j`` with new homes at or above ``x + m`` lay in ``x .. j``, so they fit in
    ``x + m .. j + m`` and the upper run never wraps, except for the sets of a run that wrapped in
    the old table (walked last, from slot 0), whose probe wraps only onto slots walked already. So no
    probe passes over a set that moves afterwards, and every set stays where its probe finds it.
    Reads and writes are sequential and nothing is allocated: copying the sets into fresh arrays and
    back, as before, cost as much again in page faults."""
    hdr = table.shape[0] - 1
    m = np.int64(table[hdr].key) + 1
    mask = np.uint64(2 * m - 1)
    for j in range(m, 2 * m):
        table[j].offset = -1
    s = 0
    while table[s].offset >= 0:  # at most three quarters are full: there is an empty slot
        s += 1
    table[hdr].key = mask
    for x in range(1, m):
        j = np.uint64((s + x) % m)
        if table[j].offset < 0:
            continue
        k = table[j].key & mask
        while k != j and table[k].offset >= 0:
            k = (k + np.uint64(1)) & mask
        if k != j:
            _move(table, j, k)


@njit(cache=True, inline="always")
def lookup(table, stats, key, check, owner, k, insert):
    """The offset of the information set ``key`` (made when new and ``insert``); -1 - status if not.

    ``table`` is the slots (:data:`SLOT_DTYPE`); ``stats[0]``, ``stats[1]`` count the information sets
    and actions in use, ``stats[6]`` and ``stats[4]`` bound them.
    """
    hdr = table.shape[0] - 1
    mask = table[hdr].key
    j = key & mask
    while table[j].offset >= 0:
        slot = table[j]
        if slot.key == key:
            if slot.check != check:
                return -1 - ERR_COLLISION
            if slot.nact != k or slot.owner != owner:
                return -1 - ERR_RECALL
            return slot.offset
        j = (j + np.uint64(1)) & mask
    if not insert:
        return -1
    if stats[0] + 1 > stats[6] or stats[1] + k > stats[4]:
        return -1 - ERR_FULL
    m = np.int64(mask) + 1
    if stats[0] + 1 > MAX_LOAD * m and 2 * m <= hdr:
        _grow(table)
        j = _free_slot(table, key, table[hdr].key)
    slot = table[j]
    slot.key = key
    slot.check = check
    slot.offset = stats[1]
    slot.nact = k
    slot.owner = owner
    stats[0] += 1
    stats[1] += k
    return slot.offset


@njit(cache=True, inline="always")
def _match(regret, o, k, sigma):
    """Regret matching: ``sigma[:k]`` proportional to the positive regrets, uniform if none (or if
    ``o`` < 0: an information set not in the table)."""
    total = 0.0
    for a in range(k if o >= 0 else 0):
        if regret[o + a] > 0.0:
            total += regret[o + a]
    for a in range(k):
        if total > 0.0:
            sigma[a] = regret[o + a] / total if regret[o + a] > 0.0 else 0.0
        else:
            sigma[a] = 1.0 / k


@njit(cache=True, inline="always")
def _update(regret, o, k, sigma, vals, plus):
    """Add the sampled regrets of an updated node (floored at 0 with ``plus``); return its value."""
    value = 0.0
    for a in range(k):
        value += sigma[a] * vals[a]
    for a in range(k):
        r = regret[o + a] + vals[a] - value
        regret[o + a] = 0.0 if (plus and r < 0.0) else r
    return value


@njit(cache=True, inline="always")
def _push(st, hh, d, n):
    """Copy depth ``d``'s state and hashes to depth ``d + 1`` (element loops: numba's slice assignment
    costs more for rows this short)."""
    for x in range(st.shape[1]):
        st[d + 1, x] = st[d, x]
    for p in range(n):
        hh[d + 1, p, 0] = hh[d, p, 0]
        hh[d + 1, p, 1] = hh[d, p, 1]


@njit(cache=True, inline="always")
def _copy(s0, h0, s1, h1, n):
    """Copy the state ``s0`` and its hashes ``h0`` to ``s1``, ``h1``."""
    for x in range(s0.shape[0]):
        s1[x] = s0[x]
    for p in range(n):
        h1[p, 0] = h0[p, 0]
        h1[p, 1] = h0[p, 1]


@njit(inline="always")
def replay_keys(game, P, W, moves_taken, n, state_size, max_moves, out):
    """Every player's two hashes after the moves ``moves_taken`` from the initial state, into ``out``
    (uint64, (n, 2)); returns the index of the first illegal move, or -1."""
    init, player, moves, step, returns = game
    s = np.zeros(state_size, dtype=np.int32)
    acts = np.zeros(max_moves, dtype=np.int32)
    probs = np.zeros(max_moves, dtype=np.float64)
    init(P, s, out, W)
    for t in range(moves_taken.shape[0]):
        if player(P, s) == TERMINAL:
            return t
        k = moves(P, s, acts, probs)
        legal = False
        for a in range(k):
            legal = legal or acts[a] == moves_taken[t]
        if not legal:
            return t
        step(P, s, out, moves_taken[t], W)
    return -1


@njit(inline="always")
def tree_infoset_keys(game, P, W, n, state_size, max_moves, max_depth, node_infoset,
                      node_player, child_start, num_children, keys, checks):
    """The two hashes of every information set of a flat tree, walking the tree beside the game.

    The tree's children must be the game's moves in order. ``keys``/``checks`` (uint64, one per
    information set) are written; returns the first node whose number of children differs from the
    game's moves, or -1.
    """
    init, player, moves, step, returns = game
    D = max_depth + 1
    st = np.zeros((D, state_size), dtype=np.int32)
    hh = np.zeros((D, n, 2), dtype=np.uint64)
    acts = np.zeros((D, max_moves), dtype=np.int32)
    probs = np.zeros(max_moves, dtype=np.float64)
    node = np.zeros(D, dtype=np.int64)
    nxt = np.zeros(D, dtype=np.int64)
    init(P, st[0], hh[0], W)
    d = 0
    entered = True
    while d >= 0:
        v = node[d]
        if entered:
            entered = False
            nxt[d] = 0
            if player(P, st[d]) != TERMINAL:
                if moves(P, st[d], acts[d], probs) != num_children[v]:
                    return v
            I = node_infoset[v]
            if I >= 0:
                p = node_player[v]
                keys[I] = hh[d, p, 0]
                checks[I] = hh[d, p, 1]
        c = nxt[d]
        if c < num_children[v]:
            if d + 1 >= D:
                return v
            nxt[d] = c + 1
            _push(st, hh, d, n)
            step(P, st[d + 1], hh[d + 1], acts[d, c], W)
            node[d + 1] = child_start[v] + c
            d += 1
            entered = True
        else:
            d -= 1
    return -1


@njit(cache=True)
def insert_all(table, stats, keys, checks, owners, nacts):
    """Insert information sets in order (offsets follow, as when they were first made); a status."""
    for t in range(keys.shape[0]):
        o = lookup(table, stats, keys[t], checks[t], owners[t], nacts[t], True)
        if o < 0:
            return -1 - o
    return OK


@njit(cache=True)
def find_all(table, stats, keys, checks, owners, nacts, out):
    """The offset of each information set into ``out`` (-1 if not in the table); a status."""
    for t in range(keys.shape[0]):
        o = lookup(table, stats, keys[t], checks[t], owners[t], nacts[t], False)
        if o < -1:
            return -1 - o
        out[t] = o
    return OK
