"""External-sampling MCCFR on several threads: deterministic batches (the algorithm is in
:mod:`solvers.mccfr.external`'s docstring), driven from here.

A solver made with ``threads=T`` (T >= 2) or an explicit ``batch`` runs its iterations in batches of
``T * batch``, by the game's worker kernel (:func:`solvers.mccfr.external.run_worker`) in ``T``
threads at once (worker 0 in the calling thread, the others in a pool; the kernel releases the GIL):
each phase's traversals, then the merge (the new information sets inserted in worker 0's thread
while the others add their parts of the logs, then worker 0's part). The threads meet at a compiled
barrier between the two (:mod:`solvers.atomics`, about 0.15 microseconds here) without coming back
to Python, which cost tens of microseconds a hand-over (the pool's, and numba's typing of the
kernel's arguments). Ctrl-C is held until a call's batches are whole (:data:`CALL_SECONDS`).

The results are reproducible from the seed, ``T`` and ``batch`` (not from the cores the machine has,
nor the sinks' room), and differ from the serial solver's: a worker does not see the others' updates,
nor its own, until the phase ends.
"""

from __future__ import annotations

import concurrent.futures
import functools
import time

import numpy as np

from solvers import atomics as A
from solvers.mccfr import external as EXT
from solvers.cfr.checkpoint import interrupts_held
from solvers.memory import check_fits, format_bytes

#: The iterations per worker and batch when ``threads`` is given without ``batch``: larger batches
#: spread a phase's hand-over to the threads over more iterations, and 128 measured more iterations a
#: second than 16 or 32 with no worse an exploitability per iteration (docs/research/design-measurements.md).
DEFAULT_BATCH = 128
#: The sinks' first room per worker: log entries (in as many equal parts as workers, one for each
#: thread that adds them), records, record values (grown as needed).
FIRST_ROOM = (1 << 16, 1 << 12, 1 << 14)
#: Bytes of the sinks per unit of room: a log entry (code, value), a record (key, check, 4 int64),
#: a record value.
ROOM_BYTES = (16, 48, 8)
#: A worker's counters and generator state each get a row of this many int64s (128 bytes; the
#: counters a multiple of it with more than ``ROW - CNT_LOG`` workers), and its stack and scratch
#: arrays 128 bytes of padding on either side, so that no two workers write to one cache line (the
#: counters and generators are written at every node); measured within the noise, but never worse
#: (docs/research/design-measurements.md).
ROW = 16
#: A call of the batches kernel runs whole batches for about this long (the first call one batch; a
#: call's length bounds how long Ctrl-C waits).
CALL_SECONDS = 0.1


def _apart(a):
    """A copy of ``a`` with 128 bytes of its own on either side (no cache line shared with another
    array)."""
    raw = np.zeros(a.nbytes + 256, np.uint8)
    out = raw[128:128 + a.nbytes].view(a.dtype).reshape(a.shape)
    out[...] = a
    return out


def worker_seeds(seed, workers):
    """The generators' first states: worker 0 starts at ``seed`` (so one worker draws what the serial
    solver draws), worker ``t`` at a splitmix64 hash of ``seed`` and ``t`` (far apart in the stream)."""
    out = np.empty(workers, np.uint64)
    with np.errstate(over="ignore"):
        for t in range(workers):
            z = np.uint64(seed) + np.uint64(t) * np.uint64(0xD1B54A32D192ED03)
            if t:
                z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
                z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
                z = z ^ (z >> np.uint64(31))
            out[t] = z
    return out


def room_bytes(room):
    """Bytes of one worker's sink with ``room`` (log entries, records, record values)."""
    return sum(r * b for r, b in zip(room, ROOM_BYTES))


class Workers:
    """The workers of a threaded solver: a stack, a copy of the game's scratch and a sink each (rows
    of the sinks' arrays), and the thread pool. The sinks grow by doubling when a phase fills one."""

    def __init__(self, game, workers):
        self.game, self.count = game, workers
        self.stacks = tuple(tuple(_apart(a) for a in EXT.make_stack(game.max_depth, game.state_size,
                                                                    game.max_moves, game.num_players))
                            for _ in range(workers))
        self.scratch = tuple(tuple(_apart(a) for a in game.scratch) for _ in range(workers))
        self._rng = np.zeros((workers, ROW), np.uint64)  # the generators' states during a phase
        self._at = np.zeros(3, np.int64)  # where a call of the kernel is: batch, player; a status
        self._bar = np.zeros(A.BAR_SIZE, np.int64)  # the workers' barrier
        self._pool = None
        self._make(FIRST_ROOM)

    def _make(self, room):
        self.room = tuple(int(r) for r in room)
        T = self.count
        log, rec, val = self.room
        log = T * -(-log // T)  # T equal parts
        row = ROW * -(-(EXT.CNT_LOG + T) // ROW)
        self.sinks = (np.zeros((T, row), np.int64), np.zeros((T, log), np.int64),
                      np.zeros((T, log)), np.zeros((T, rec), np.uint64), np.zeros((T, rec), np.uint64),
                      np.zeros((T, rec, 4), np.int64), np.zeros((T, val)))

    def _grow(self):
        cnt, T = self.sinks[0], self.count
        used = (cnt[:, EXT.CNT_LOG:EXT.CNT_LOG + T].max() * T, cnt[:, EXT.CNT_REC].max(),
                cnt[:, EXT.CNT_VAL].max())
        full = [u >= 0.5 * r for u, r in zip(used, self.room)]
        room = tuple(r * 2 if f or not any(full) else r for r, f in zip(self.room, full))
        have = sum(a.nbytes for a in self.sinks)
        need = self.count * room_bytes(room)
        check_fits(need - have, f"the MCCFR workers' sinks ({format_bytes(need)} for {self.count} "
                                f"workers: one phase's updates did not fit in {format_bytes(have)})")
        self.sinks = None
        self._make(room)

    def _map(self, fn):
        """``fn(t)`` for every worker ``t`` at once, worker 0 here and the others on the pool; the
        results."""
        if self.count == 1:
            return [fn(0)]
        if self._pool is None:
            self._pool = concurrent.futures.ThreadPoolExecutor(self.count - 1, "mccfr-worker")
        futures = [self._pool.submit(fn, t) for t in range(1, self.count)]
        return [fn(0)] + [f.result() for f in futures]

    def _call(self, kernel, arrays, batches, batch, plus, linear, t):
        g = self.game
        table, regret, avg, rngs, stats = arrays
        return kernel(g.params, self.scratch[t], table, regret, avg, rngs, self._rng, stats, self._at,
                      batches, batch, plus, linear, self.stacks[t], *self.sinks, t, self._bar)

    def run(self, kernel, arrays, batches, batch, plus, linear):
        """``batches`` whole batches; a status code of :mod:`solvers.mccfr.kernel` (never
        ``ERR_SINK``: a phase that fills a sink is undone and run again with grown sinks). The workers
        run the game's worker kernel (:func:`solvers.mccfr.external.run_worker`) in calls of about
        ``CALL_SECONDS`` each, Ctrl-C held until a call's batches are whole."""
        done, chunk = 0, 1
        while done < batches:
            todo = min(chunk, batches - done)
            self._at[:] = 0
            caught = []
            began = time.perf_counter()
            with interrupts_held(caught):
                while True:
                    status = self._map(functools.partial(self._call, kernel, arrays, todo, batch, plus,
                                                         linear))[0]
                    if status != EXT.ERR_SINK:
                        break
                    self._grow()
            if status != EXT.OK:
                return status
            if caught:
                raise KeyboardInterrupt
            done += todo
            spent = time.perf_counter() - began
            chunk = max(1, min(2 * chunk, int(todo * CALL_SECONDS / max(spent, 1e-9))))
        return EXT.OK
