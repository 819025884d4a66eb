"""External-sampling MCCFR's traversal, serial or as one worker's part of a deterministic batch.

The game, the table and the reasons the kernels taking a game are inlined, not cached, are in
:mod:`solvers.mccfr.kernel`. :func:`run_iterations` is the serial algorithm (OpenSpiel's
``ExternalSamplingSolver``); :func:`run_phase` is one worker's part of a batch, and
:func:`run_worker` runs whole batches in one of ``T`` threads, the workers meeting at a barrier
between a phase's traversals and its merge (:mod:`solvers.mccfr.batch` starts them):

Batches
-------
A batch is ``batch`` iterations per worker, ``T * batch`` in all, numbered worker by worker (worker
``t``'s ``j``-th is iteration ``done + t * batch + j + 1``: the weight of linear averaging). It runs
as one phase per player ``i``: every worker makes its ``batch`` traversals for ``i`` with its own
generator against the table as it stood when the phase began (*frozen*: nothing is written to it),
and sends what the serial traversal would have written into a *sink* of its own instead: a log of
``(offset, kind)`` codes and values for the information sets already in the table (``kind`` 0 a
regret, 1 an average weight), and for a new one a record (its key, check, owner, number of actions,
kind: regret or average) with its values. A new information set plays uniformly for the
rest of the phase, as a new one does in the serial traversal; one already in the table plays the
regret matching of the frozen regrets. Then the phase is merged: the records are inserted worker by
worker in the order they were made (:func:`merge_records`: offsets follow first visits, as serially),
with their values added, and every log is added, worker by worker in order, each entry on its own
(floored at 0 after it with RM+), by ``T`` threads that each own some information sets
(:func:`log_owner`): a worker writes each log entry into the part of its log that the information
set's owner adds (:func:`apply_logs`), so no thread reads another's entries, and each value gets its
additions in the same order as from one thread. Worker 0's thread first inserts the records while
the others add their parts: a log names only information sets that were in the table when the
phase began, so the two write apart (how the merge was split: ``docs/sampling.md``; measured: ``docs/research/sampling-speed.md``).

The result therefore depends on the seed, ``T`` and ``batch``, never on the threads that run the
workers nor on the sinks' sizes: a phase whose sink fills is undone (nothing was written; the
generators are put back) and run again with larger sinks. With ``T = 1`` and ``batch = 1`` the updates
are those of :func:`run_iterations` (within one traversal no information set's regrets are read after
they are written: perfect recall), up to the rounding of ``r + (v - u)`` against ``(r + v) - u``. The
delay costs convergence per iteration (a worker does not see the others' updates, nor its own, until
the phase ends), which ``benchmarks.mccfr`` measures against the time it saves.

A traversal for player ``i`` makes (or records) a new information set only where it writes: the
updated player ``i``'s regrets, the averaged player ``(i + 1) % n``'s weights. With three or more
players the others' sets are only looked up, and one not in the table plays uniformly, as a set made
there would (no regret, no weight): the iterates' values are those of making every set met
(OpenSpiel's solver does), with about half the sets at four players (``docs/sampling.md``).

:func:`apply_logs` and :func:`merge_records` allocate nothing and are compiled without reference
counting (``_nrt=False``), as :func:`run_worker` is and a game's cached binding of it should be (its
caller owns every array it gets): numba's reference counts on the views of the stack and the sink's
arrays took a large share of a worker's time (``docs/research/sampling-speed.md``).
"""

import numpy as np
from numba import njit

from solvers.atomics import barrier
from solvers.mccfr.kernel import (_ALL, _ALL_AHEAD, _ONE, AHEAD, CHANCE, ERR_DEPTH, OK, TERMINAL, _copy,
                            _match, _prefetch, _push, _sample, _update, lookup, prefetch_slot)

ERR_SINK = 5  # a worker's sink is full: the phase was undone, grow the sinks and run it again
#: What a new information set's record carries: regrets or average weights.
REC_REGRET, REC_AVERAGE = 0, 1
#: A sink's counters (int64): records and record values in use, the error's status and depth, the
#: number of owners (threads that add the logs), then the entries in use in each owner's part of
#: the log, from ``CNT_LOG``.
CNT_REC, CNT_VAL, CNT_STATUS, CNT_DEPTH, CNT_OWNERS, CNT_LOG = 0, 1, 2, 3, 4, 5
CNT_SIZE = CNT_LOG + 1
#: How far ahead of the entry it adds the merge prefetches (records' slots, log entries' values).
AHEAD_LOG = 16


@njit(cache=True, inline="always")
def log_owner(o, T):
    """The thread of ``T`` that adds the log entries of the information set at offset ``o``."""
    return (o >> 3) % T


@njit(cache=True, inline="always")
def _log_part(length, u, T):
    """Where thread ``u``'s part of a log of ``length`` entries in ``T`` equal parts starts, and its
    room."""
    room = length // T
    return u * room, room


@njit(cache=True, inline="always")
def _reserve(sink, o, k, kind):
    """``k`` log entries for offsets ``o .. o + k - 1`` of ``kind``, in the part of the log that the
    information set's owner (:func:`log_owner`) adds; the first's index, -1 if that part is full."""
    _, cnt, code, _, _, _, _, _ = sink
    T = cnt[CNT_OWNERS]
    u = log_owner(o, T)
    start, room = _log_part(code.shape[0], u, T)
    p = cnt[CNT_LOG + u]
    if p + k > room:
        return -1
    at = start + p
    for a in range(k):
        code[at + a] = 2 * (o + a) + kind
    cnt[CNT_LOG + u] = p + k
    return at


@njit(cache=True, inline="always")
def _record(sink, key, check, owner, k, kind):
    """A record of a new information set; the index of its first value (its ``k`` values reserved),
    -1 if the sink is full."""
    _, cnt, _, _, rkey, rcheck, rmeta, _ = sink
    val = sink[7]
    r, v = cnt[CNT_REC], cnt[CNT_VAL]
    if r >= rkey.shape[0] or v + k > val.shape[0]:
        return -1
    rkey[r], rcheck[r] = key, check
    rmeta[r, 0], rmeta[r, 1], rmeta[r, 2], rmeta[r, 3] = owner, k, kind, v
    cnt[CNT_REC], cnt[CNT_VAL] = r + 1, v + k
    return v


@njit(cache=True, inline="always")
def _frozen_node(sink, table, stats, regret, key, check, pl, k, i, averaged, weight, sig):
    """A decision node met in a frozen phase: its strategy into ``sig``; the averaged player's weights
    sent to the sink. Returns where the updated player's regrets will go (a log index >= 0, or -1 - the
    index of a record's first value), or ``-1 - ERR_*`` (far below: ``-(1 << 62)`` minus the status)."""
    o = lookup(table, stats, key, check, pl, k, False)
    if o < -1:
        return -(1 << 62) - (-1 - o)
    _match(regret, o, k, sig)  # uniform if not in the table
    at = 0
    if pl == i:
        at = _reserve(sink, o, k, 0) if o >= 0 else -1 - _record(sink, key, check, pl, k, REC_REGRET)
        full = at == -1 if o >= 0 else at == 0
    elif pl == averaged:
        p = _reserve(sink, o, k, 1) if o >= 0 else _record(sink, key, check, pl, k, REC_AVERAGE)
        full = p < 0
        store = sink[3] if o >= 0 else sink[7]
        for a in range(k if not full else 0):
            store[p + a] = weight * sig[a]
    else:  # a player neither updated nor averaged: a new set is not made (the module's docstring)
        full = False
    return -(1 << 62) - ERR_SINK if full else at


@njit(cache=True, inline="always")
def _frozen_update(sink, at, k, sigma, vals):
    """The sampled regrets of an updated node into its log entries or record (``at``); its value."""
    value = 0.0
    for a in range(k):
        value += sigma[a] * vals[a]
    store, p = (sink[3], at) if at >= 0 else (sink[7], -1 - at)
    for a in range(k):
        store[p + a] = vals[a] - value
    return value


@njit(cache=True, inline="always")
def _failed(frozen, cnt, stats, d, status):
    """``status``, the depth ``d`` of the error kept (frozen: in the sink's counters)."""
    if frozen:
        cnt[CNT_DEPTH] = d
    else:
        stats[3] = d
    return status


@njit(inline="always")
def traverse(game, P, W, table, regret, avg, rng, stats, i, weight, plus, st, hh, acts, probs, sig,
             vals, mode, nxt, nk, off, ret, sib, sibh, sink):
    """One external-sampling traversal for player ``i``, depth first with an explicit stack.

    The stack holds per depth the state ``st``, hashes ``hh``, moves ``acts``/``probs``, current
    strategy ``sig`` and child values ``vals``; ``mode``, ``nxt``, ``nk``, ``off`` the node's kind, next
    child, number of moves and table offset (frozen: where its regrets go); ``sib``, ``sibh`` the
    states and hashes of an updated player's children, stepped ahead. ``weight`` multiplies the
    average's additions. ``sink[0]`` (frozen) sends every write to the sink (see the module's
    docstring), else the table is written. Returns a status code (the depth of an error in
    ``stats[3]``, frozen: in the sink's counters).
    """
    init, player, moves, step, returns = game
    frozen, cnt = sink[0], sink[1]
    n = hh.shape[1]
    D = st.shape[0]
    averaged = (i + 1) % n  # the player whose strategy is averaged (a division: once, not per node)
    init(P, st[0], hh[0], W)
    d = 0
    v = 0.0
    j = -1  # the child to descend into, -1 to climb
    while True:
        s = st[d]
        pl = player(P, s)
        if pl == TERMINAL:
            returns(P, s, ret)
            v = ret[i]
            j = -1
        else:
            if pl != CHANCE:
                prefetch_slot(table, hh[d, pl, 0])  # its miss overlaps the move generation
            k = moves(P, s, acts[d], probs[d])
            if pl == CHANCE:
                mode[d] = _ONE
                j = _sample(probs[d], k, rng)
            else:
                if frozen:
                    o = _frozen_node(sink, table, stats, regret, hh[d, pl, 0], hh[d, pl, 1], pl, k, i,
                                     averaged, weight, sig[d])
                    if o <= -(1 << 62):
                        return _failed(True, cnt, stats, d, -(1 << 62) - o)
                else:  # only the updated and the averaged player's sets are made (see above)
                    o = lookup(table, stats, hh[d, pl, 0], hh[d, pl, 1], pl, k,
                               pl == i or pl == averaged)
                    if o < -1:
                        return _failed(False, cnt, stats, d, -1 - o)
                    if pl == averaged:  # made above (o >= 0)
                        _prefetch(avg, o)  # added to below, after the regrets' load
                    _match(regret, o, k, sig[d])  # uniform if not in the table
                off[d], nk[d] = o, k
                if pl == i:
                    mode[d] = _ALL
                    nxt[d] = 1
                    j = 0
                    if k <= sib.shape[1] and d + 1 < D:
                        mode[d] = _ALL_AHEAD
                        for c in range(k):
                            _copy(st[d], hh[d], sib[d, c], sibh[d, c], n)
                            step(P, sib[d, c], sibh[d, c], acts[d, c], W)
                            q = player(P, sib[d, c])
                            if q >= 0:
                                prefetch_slot(table, sibh[d, c, q, 0])
                else:
                    mode[d] = _ONE
                    j = _sample(sig[d], k, rng)
                    if pl == averaged and not frozen:
                        for a in range(k):
                            avg[o + a] += weight * sig[d, a]
        while j < 0:  # climb with the value v until a node has another child to walk
            d -= 1
            if d < 0:
                return OK
            if mode[d] != _ONE:
                c = nxt[d]
                vals[d, c - 1] = v
                if c < nk[d]:
                    nxt[d] = c + 1
                    j = c
                elif frozen:
                    v = _frozen_update(sink, off[d], nk[d], sig[d], vals[d])
                else:
                    v = _update(regret, off[d], nk[d], sig[d], vals[d], plus)
        if d + 1 >= D:
            return _failed(frozen, cnt, stats, d, ERR_DEPTH)
        if mode[d] == _ALL_AHEAD:
            _copy(sib[d, j], sibh[d, j], st[d + 1], hh[d + 1], n)
        else:
            _push(st, hh, d, n)
            step(P, st[d + 1], hh[d + 1], acts[d, j], W)
        d += 1


@njit(cache=True, inline="always")
def make_stack(max_depth, state_size, max_moves, n):
    """The traversal's stack (see :func:`traverse`): ``(st, hh, acts, probs, sig, vals, mode, nxt,
    nk, off, ret, sib, sibh)``. Inlined, so that the serial kernel allocates it in its own body."""
    D = max_depth + 1
    return (np.zeros((D, state_size), np.int32), np.zeros((D, n, 2), np.uint64),
            np.zeros((D, max_moves), np.int32), np.zeros((D, max_moves)), np.zeros((D, max_moves)),
            np.zeros((D, max_moves)), np.zeros(D, np.int8), np.zeros(D, np.int32),
            np.zeros(D, np.int32), np.zeros(D, np.int64), np.zeros(max(n, 8)),
            np.zeros((D, AHEAD, state_size), np.int32), np.zeros((D, AHEAD, n, 2), np.uint64))


@njit(inline="always")
def run_iterations(game, P, W, table, regret, avg, rng, stats, count, plus, linear, max_depth,
                   state_size, max_moves):
    """``count`` iterations (one traversal per player each); ``stats[2]`` counts the finished ones.

    ``linear``: the average's additions are weighted by the iteration number (from 1), else by 1.
    Returns a status code; on an error the iteration in progress is left half applied.
    """
    n = int(stats[5])
    st, hh, acts, probs, sig, vals, mode, nxt, nk, off, ret, sib, sibh = make_stack(
        max_depth, state_size, max_moves, n)
    sink = (False, np.zeros(CNT_SIZE, np.int64), np.zeros(1, np.int64), np.zeros(1),
            np.zeros(1, np.uint64), np.zeros(1, np.uint64), np.zeros((1, 4), np.int64), np.zeros(1))
    for _ in range(count):
        weight = float(stats[2] + 1) if linear else 1.0
        for i in range(n):
            status = traverse(game, P, W, table, regret, avg, rng, stats, i, weight, plus, st, hh,
                              acts, probs, sig, vals, mode, nxt, nk, off, ret, sib, sibh, sink)
            if status != OK:
                return status
        stats[2] += 1
    return OK


@njit(inline="always")
def run_phase(game, P, W, table, regret, avg, rng, stats, i, first, batch, plus, linear, stack, cnt,
              code, logv, rkey, rcheck, rmeta, rval, owners):
    """One worker's part of a phase (the module's docstring): ``batch`` frozen traversals for player
    ``i``, the first iteration numbered ``first + 1``, with the worker's generator ``rng``, stack
    (:func:`make_stack`) and sink (``cnt``, int64[>= CNT_LOG + owners]; the log ``code``, int64, and
    ``logv``, float64, in ``owners`` equal parts, one per thread that adds them; the records
    ``rkey``, ``rcheck``, uint64, ``rmeta``, int64 (R, 4): owner, actions, kind, first value; their
    values ``rval``). Writes nothing else. Returns a status code (``ERR_SINK``: the sink filled),
    also in ``cnt[CNT_STATUS]``, an error's depth in ``cnt[CNT_DEPTH]``."""
    st, hh, acts, probs, sig, vals, mode, nxt, nk, off, ret, sib, sibh = stack
    for x in range(CNT_LOG + owners):
        cnt[x] = 0
    cnt[CNT_OWNERS] = owners
    sink = (True, cnt, code, logv, rkey, rcheck, rmeta, rval)
    for j in range(batch):
        weight = float(first + j + 1) if linear else 1.0
        status = traverse(game, P, W, table, regret, avg, rng, stats, i, weight, plus, st, hh, acts,
                          probs, sig, vals, mode, nxt, nk, off, ret, sib, sibh, sink)
        if status != OK:
            cnt[CNT_STATUS] = status
            return status
    return OK


@njit(cache=True, inline="always")
def _add_regret(regret, o, x, plus):
    """A merged regret: ``x`` added to ``regret[o]`` (floored at 0 after it with RM+)."""
    r = regret[o] + x
    regret[o] = 0.0 if (plus and r < 0.0) else r


@njit(cache=True, nogil=True, _nrt=False)
def apply_logs(u, T, regret, avg, plus, cnt, code, logv):
    """Thread ``u``'s part of every sink's log (the entries of the information sets it owns,
    :func:`log_owner`; each sink's log is in ``T`` parts), sink by sink in order (a row of ``cnt``,
    ``code``, ``logv`` each); the threads' calls may run at once. An information set's entries are all
    in one part, in the order they were made, so each value gets its additions in the order of one
    thread adding every log."""
    b, _ = _log_part(code.shape[1], u, T)
    for t in range(cnt.shape[0]):
        m = cnt[t, CNT_LOG + u]
        for e in range(b, b + m):
            if e + AHEAD_LOG < b + m:  # start the miss of an entry further on
                f = code[t, e + AHEAD_LOG]
                _prefetch(avg if f & 1 else regret, f >> 1)
            c = code[t, e]
            o = c >> 1
            if c & 1:
                avg[o] += logv[t, e]
            else:
                _add_regret(regret, o, logv[t, e], plus)


@njit(cache=True, nogil=True, _nrt=False)
def merge_records(table, stats, regret, avg, plus, cnt, rkey, rcheck, rmeta, rval):
    """Insert a frozen phase's new information sets, sink by sink in the order they were met, and
    add their values; a status code (``ERR_FULL``, ``ERR_COLLISION``, ``ERR_RECALL``). The sinks' arrays
    have a row per worker."""
    for t in range(cnt.shape[0]):
        m = cnt[t, CNT_REC]
        for r in range(m):
            if r + AHEAD_LOG < m:
                prefetch_slot(table, rkey[t, r + AHEAD_LOG])  # its miss overlaps the ones before
            k, kind, v = rmeta[t, r, 1], rmeta[t, r, 2], rmeta[t, r, 3]
            o = lookup(table, stats, rkey[t, r], rcheck[t, r], rmeta[t, r, 0], k, True)
            if o < 0:
                return -1 - o
            if kind == REC_AVERAGE:
                for a in range(k):
                    avg[o + a] += rval[t, v + a]
            else:  # REC_REGRET
                for a in range(k):
                    _add_regret(regret, o + a, rval[t, v + a], plus)
    return OK


@njit(inline="always", nogil=True, _nrt=False)
def run_worker(game, P, W, table, regret, avg, rngs, rows, stats, at, batches, batch, plus, linear,
               stack, cnt, code, logv, rkey, rcheck, rmeta, rval, t, bar):
    """Worker ``t``'s part of whole batches, called at once in ``T`` threads (one per worker; ``T`` the
    sinks' rows), which meet at a :func:`solvers.atomics.barrier` on ``bar`` twice a phase: after
    the traversals (:func:`run_phase`, worker ``t``'s with its scratch ``W``, stack ``stack`` and
    generator ``rows[t]``) and after the merge (every thread adds its part of the logs,
    :func:`apply_logs`, thread 0 after inserting the records). Nothing returns to Python between
    phases.

    ``rngs`` (uint64, T) are the generators, ``rows`` (uint64, (T, >= 1)) their states while a phase
    runs (a row each: no cache line shared). ``at`` (int64, 3): the batch (of ``batches``) and the
    player of the next phase, where a call starts and ends (thread 0 advances them; the others read
    them after a barrier), and the merge's status. Every thread returns the same status code;
    ``ERR_SINK``: the phase at ``at`` filled a sink and was undone (``rngs`` still hold its first
    states), so the caller grows the sinks and calls again from ``at``."""
    T = cnt.shape[0]
    n = int(stats[5])
    rows[t, 0] = rngs[t]
    while at[0] < batches:
        i, first = at[1], stats[2]
        run_phase(game, P, W, table, regret, avg, rows[t], stats, i, first + t * batch, batch, plus,
                  linear, stack, cnt[t], code[t], logv[t], rkey[t], rcheck[t], rmeta[t], rval[t], T)
        barrier(bar, T)
        bad = OK
        for w in range(T):  # every thread decides alike
            s = cnt[w, CNT_STATUS]
            if s == ERR_SINK or (s != OK and bad == OK):
                bad = s
                if t == 0:
                    stats[3] = cnt[w, CNT_DEPTH]
        if bad != OK:
            return bad
        rngs[t] = rows[t, 0]
        if t == 0:
            at[2] = merge_records(table, stats, regret, avg, plus, cnt, rkey, rcheck, rmeta, rval)
            if at[2] == OK:  # a batch whose merge failed is not counted as finished
                if i + 1 < n:
                    at[1] = i + 1
                else:
                    at[0], at[1] = at[0] + 1, 0
                    stats[2] += T * batch
        apply_logs(t, T, regret, avg, plus, cnt, code, logv)
        barrier(bar, T)
        if at[2] != OK:
            return at[2]
    return OK
