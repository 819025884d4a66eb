"""Exact leaf values from a features blueprint: the rest of the game as a Markov chain over turn starts.

A blueprint over the features abstraction (:mod:`coupsolve.sampling.keys`) decides from the state alone,
so the rest of a game it plays is a Markov chain over the states at the start of a turn (the turn number
aside: it only ends the game at the limit). :func:`values_exact` finds the distinct states of the cut
game's leaves (as the rollouts do), builds the chain reachable from them under the continuations
(:func:`solvers.mccfr.chain.expand_states`, on as many threads as asked) and evaluates it with as many
sweeps as turns are left (:func:`solvers.mccfr.chain.sweep`): every leaf's value under every pair of
continuations, exact up to the single precision of the stored transition probabilities, with no rollouts
and no sampling noise. Blueprints keyed by their histories (the exact keys) are not Markov and are
refused.
"""

from __future__ import annotations

import os
import tempfile
import time

import numpy as np
from numba import njit

from solvers.mccfr.chain import (ERR_TABLE, NOT_INT8, ROOM, TOO_WIDE, commit_states, expand_states, insert, rehash,
                                 sweep)
from solvers.mccfr.kernel import ERR_DEPTH, OK, call_kernel
from solvers.mccfr.rollout import STOPPED, state_hash
from solvers.memory import check_fits, format_bytes

from coupsolve import engine as E
from coupsolve.depth.continuations import CONTINUATIONS, check_count
from coupsolve.depth.rollouts import leaf_states, weigh
from coupsolve.depth.values import LeafValues, check_blueprint_rules
from coupsolve.plan.options import every, silent
from coupsolve.sampling.keys import FEATURES, X_MODEL
from coupsolve.trees.background import run_together

__all__ = ["chain_values", "check_markov", "exact_compiled", "leaf_game", "leaf_keys", "turn_start_keys",
           "values_exact"]

#: The most states and edges a chain may have: its files' sizes (sparse). Coup's turn starts that a
#: features blueprint can tell apart number fewer than ``MAX_STATES``.
MAX_STATES, MAX_EDGES = 1 << 27, 1 << 31
#: A sweep that changes no value by more than this ends the sweeps: the turns left would change none
#: by more than their number times it (:mod:`solvers.mccfr.chain`).
SETTLED = 1e-13
EDGE_BYTES = 4 + 4 * 4  # an edge's successor and its probabilities under four pairs of continuations
#: The states a thread walks before what it found is numbered, and the ticks its buffers hold.
BATCH, BUFFER = 2048, 16 * ROOM


@njit(cache=True, inline="always")
def _clock(P, s, t):
    """The turn number, set to ``t`` first when ``t >= 0``."""
    if t >= 0:
        s[E.S_TURN] = t
    return s[E.S_TURN]


@njit(cache=True, inline="always")
def _key(s, n):
    """:func:`solvers.mccfr.rollout.state_hash` of ``s[:n]`` with the turn number as 0 (never 0)."""
    turn = s[E.S_TURN]
    s[E.S_TURN] = 0
    z = state_hash(s, n)
    s[E.S_TURN] = turn
    return z | np.uint64(1)


@njit(cache=True)
def turn_start_keys(states):
    """The chain's key of each state of ``states`` (rows: turn starts of the features game): what a
    chain's values are kept and looked up by (:func:`coupsolve.depth.cache.remember_turn_starts`)."""
    out = np.zeros(states.shape[0], np.uint64)
    for i in range(states.shape[0]):
        out[i] = _key(states[i], states.shape[1])
    return out


@njit(cache=True, inline="always")
def _limit_returns(P, s, ret):
    """The payoffs had the game ended at its turn limit in ``s`` (a copy: it is changed)."""
    s[E.S_PHASE] = E.PH_TERMINAL
    s[E.S_WINNER] = -1
    E.returns(P, s, ret)


@njit(cache=True, nogil=True)
def _walk(P, W, n, state_size, max_moves, max_depth, further, table, stats, avg, prior, K, base, ring, ring_h, lo, hi,
          term, lim, out, control):
    """:func:`solvers.mccfr.chain.expand_states` for Coup's features game (a call of more than 30
    arguments would be compiled as one with ``*args``, which numba cannot inline: the buffers are one)."""
    return expand_states(FEATURES, weigh, _clock, _key, _limit_returns, P, W, n, state_size, max_moves, max_depth, 1,
                         further, table, stats, avg, prior, K, base, ring, ring_h, lo, hi, term, lim, out, control)


@njit(cache=True)
def _seed(states, hashes, keys, idx, counts, ring, ring_h, where):
    """Put the leaf states in the chain (new ones in the ring) and their indices in ``where``."""
    S = ring.shape[1]
    for i in range(states.shape[0]):
        j, new = insert(keys, idx, _key(states[i], states.shape[1]), counts[1])
        if new:
            r = counts[1] % ring.shape[0]
            for q in range(S):
                if states[i, q] < -128 or states[i, q] > 127:
                    return False
                ring[r, q] = states[i, q]
            ring_h[r] = hashes[i]
            counts[1] += 1
        where[i] = j
    return True


class _Chain:
    """The arrays of the chain being built: the key table and the ring (states found, not yet
    expanded) in memory, grown as the chain is found; the rows and edges in files of ``folder``
    (sparse, as large as a chain of Coup can be: only what is written takes room on disk, and the
    system keeps in memory what it can of them)."""

    def __init__(self, states, hashes, K, folder, size=X_MODEL):
        self.counts, self.K, self.base = np.zeros(5, np.int64), K, states[0].copy()
        self.build_seconds = 0.0
        slots = 1 << int(2 * (len(states) + ROOM) - 1).bit_length()  # room for the first states
        self.keys, self.idx = np.zeros(slots, np.uint64), np.zeros(slots, np.int64)
        self.ring = np.zeros((slots // 2, size), np.int8)
        self.ring_h = np.zeros((slots // 2,) + hashes.shape[1:], np.uint64)

        def disk(name, shape, dtype):
            return np.lib.format.open_memmap(os.path.join(folder, name + ".npy"), "w+", dtype, shape)

        self.row_start = disk("row_start", (MAX_STATES + 1,), np.int64)
        self.term = disk("term", (MAX_STATES, K * K), np.float64)
        self.lim = disk("lim", (MAX_STATES, K * K), np.float64)
        self.succ, self.prob = disk("succ", (MAX_EDGES,), np.int32), disk("prob", (MAX_EDGES, K * K), np.float32)

    def add_seconds(self, seconds):
        """The seconds its build has taken, these included (a build may be resumed)."""
        self.build_seconds += seconds
        return self.build_seconds

    def grow(self):
        """Double the key table or the ring when short of room (:data:`solvers.mccfr.chain.ROOM`)."""
        done, found, edges = (int(c) for c in self.counts[:3])
        if found + ROOM > MAX_STATES or edges + ROOM > MAX_EDGES:
            raise MemoryError(f"the blueprint's chain has more than {MAX_STATES:,} states or {MAX_EDGES:,} edges (a "
                              "blueprint keyed by version 3 of the features key counts claims, which multiplies the "
                              "states: value its leaves by rollouts, or use one of version 2)")
        if len(self.keys) < 2 * (found + ROOM):
            check_fits(32 * len(self.keys), "the chain's key table")
            keys, idx = np.zeros(2 * len(self.keys), np.uint64), np.zeros(2 * len(self.keys), np.int64)
            rehash(self.keys, self.idx, keys, idx)
            self.keys, self.idx = keys, idx
        if len(self.ring) - (found - done) < ROOM:
            check_fits(2 * (self.ring.nbytes + self.ring_h.nbytes), "the chain's states to expand")
            at = np.arange(done, found)
            ring = np.zeros((2 * len(self.ring),) + self.ring.shape[1:], np.int8)
            ring_h = np.zeros((2 * len(self.ring),) + self.ring_h.shape[1:], np.uint64)
            old = at % len(self.ring)
            ring[at % len(ring)], ring_h[at % len(ring)] = self.ring[old], self.ring_h[old]
            self.ring, self.ring_h = ring, ring_h

    def bytes(self):
        """The bytes of its arrays in memory and of what is written of its files."""
        found, edges = int(self.counts[1]), int(self.counts[2])
        return (sum(a.nbytes for a in (self.keys, self.idx, self.ring, self.ring_h))
                + found * (8 + self.term.itemsize * self.term[0].size * 2) + edges * EDGE_BYTES)


def chain_values(game, table, prior, states, hashes, turns_left, k, *, known=None, threads=1, progress=None,
                 say=None):
    """Player 0's exact value from each of ``states`` (the features ``game``'s states at the start of
    a turn, with their ``hashes``), ``(rows, k, k)``, with ``turns_left`` turns to play before the
    limit (one number, or one per state; the state's own turn included) under each pair of ``k``
    continuations of the strategy in ``table`` (:meth:`~solvers.mccfr.solver.MCCFRSolver.lookup_arrays`;
    ``prior``: its warm start's).

    Returns ``(values, facts)``: ``facts`` says how large the chain was (``states``, ``edges``,
    ``bytes``, ``levels``: the turns it was searched to), how long its build and its sweeps took
    (``build_seconds``, ``sweep_seconds``), how many sweeps were made (``sweeps``: one per turn
    left, or fewer once one changes no value by more than :data:`SETTLED`), how much the last changed
    a value (``last_change``) and how far any value given can be from exact (``bound``: the sweeps
    not made times ``last_change``; 0 when all were made). The build runs on ``threads`` threads (the
    values do not depend on how many). ``progress(states expanded, states found)`` is called as the
    build goes; Ctrl-C stops it (``KeyboardInterrupt``).

    ``known``: ``(keys, values)``, the exact values (``(n, k, k)``) of turn starts with one turn fewer
    left, by their keys (sorted; :func:`turn_start_keys`), as an earlier call kept them for the leaves
    of a cut one turn longer. When every turn start that ``states``' turns reach is among them, only
    those turns are walked and the values are one step from ``known`` (``facts["known"]``: how many
    were looked up); else the chain is built on from there as without them.
    The chain's rows and edges are kept in a temporary folder of the cache folder while it runs.
    """
    from coupsolve.trees.sizecache import cache_path

    K = check_count(k)
    left = np.broadcast_to(np.asarray(turns_left, np.int64), (len(states),))
    if len(states) == 0 or left.min() < 1:
        raise ValueError("no states, or a state with no turn left")
    folder = os.path.dirname(cache_path())
    os.makedirs(folder, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="chain-", dir=folder) as tmp:
        chain = _Chain(states, hashes, K, tmp)
        where = _seeded(chain, states, hashes)
        say, values = say or silent, None
        if known is not None and left.min() == left.max() > 1:
            facts = _build_chain(chain, game, table, prior, int(left.max()), threads, progress, say, walk=1)
            values = _from_known(chain, where, known, facts)
        if values is None:
            facts = _build_chain(chain, game, table, prior, int(left.max()), threads, progress, say)
            values = _sweeps(chain, where, left, facts, say)
        del chain
    return values.reshape(len(states), K, K), facts


def _seeded(chain, states, hashes):
    """Put the first states in ``chain``; their indices in it."""
    where = np.zeros(len(states), np.int64)
    width = chain.ring.shape[1]
    if not (states[:, width:] == states[:1, width:]).all():  # the chain keeps only the first entries
        raise ValueError(f"the states differ after their first {width} entries: not states of one game")
    if not _seed(states, hashes, chain.keys, chain.idx, chain.counts, chain.ring, chain.ring_h, where):
        raise ValueError("a leaf state has an entry outside int8: not a state of this game")
    chain.counts[3] = chain.counts[1]
    return where


def _build_chain(chain, game, table, prior, horizon, threads, progress, say, walk=None):
    """Find and expand the chain's states (the first ``walk`` levels only, when given: a later call
    goes on from there); its facts.

    Breadth first, a level (the states first found one turn later) at a time: ``threads`` threads walk
    consecutive ranges of the level's next states (:func:`solvers.mccfr.chain.expand_states`), then
    what they found is numbered in the states' order (:func:`~solvers.mccfr.chain.commit_states`), so
    the chain is the same whatever ``threads``. A state found ``l`` turns after the first states is
    needed with ``horizon - l`` turns left at most, so a state with one turn left keeps no edges (its
    value is ``term + lim``) and the levels after it are not searched."""
    counts, width, n = chain.counts, chain.ring.shape[1], game.num_players
    buffers = [(np.zeros(BATCH + 1, np.int64), np.zeros(BUFFER, np.uint64), np.zeros((BUFFER, width), np.int8),
                np.zeros((BUFFER, n, 2), np.uint64), np.zeros((BUFFER, chain.K ** 2)), np.zeros(1, np.int64))
               for _ in range(threads)]
    controls = [np.zeros(3, np.int64) for _ in range(threads)]
    scratch = [tuple(a.copy() for a in game.scratch) for _ in range(threads)]  # the engine writes into it
    if counts[0] == 0:
        say(f"building the blueprint's chain from {int(counts[1]):,} distinct states on {threads} "
            f"thread{'s' if threads > 1 else ''}{'' if walk is None else ', their turns first'} ...")
    t = time.perf_counter()
    while counts[0] < counts[1]:
        if counts[0] == counts[3]:  # the next level: one turn further
            if walk is not None and counts[4] + 1 >= walk:
                break
            counts[3], counts[4] = counts[1], counts[4] + 1
        chain.grow()
        lo = int(counts[0])
        cuts = np.linspace(lo, min(int(counts[3]), lo + threads * BATCH), threads + 1).astype(np.int64)
        common = (game.params, game.num_players, game.state_size, game.max_moves, game.max_depth,
                  horizon - int(counts[4]) > 1, table["table"], table["stats"], table["average"], bool(prior),
                  chain.K, chain.base, chain.ring, chain.ring_h)
        jobs = [(common[0], scratch[j]) + common[1:] + (int(cuts[j]), int(cuts[j + 1]), chain.term, chain.lim)
                + (buffers[j], controls[j]) for j in range(threads)]
        for status in run_together(lambda *a: call_kernel(_walk, *a), jobs, controls):
            if status == STOPPED:
                raise KeyboardInterrupt
            if status != OK:
                raise RuntimeError(_FAILURES.get(status, f"the chain's build failed with status {status}"))
        for j in range(threads):  # in order, up to the first range not walked to its end
            walked = int(buffers[j][-1][0])
            if commit_states(int(cuts[j]), walked, *buffers[j][:5], chain.ring, chain.ring_h, chain.keys, chain.idx,
                             counts, chain.row_start, chain.succ, chain.prob, len(chain.term)) != OK:
                break  # NEED_ROOM: grown, and the rest walked again
            if walked < cuts[j + 1] - cuts[j]:
                break
        if progress is not None:
            progress(int(counts[0]), int(counts[1]))
    return {"states": int(counts[1]), "edges": int(counts[2]), "bytes": chain.bytes(),
            "levels": int(counts[4]) + 1, "build_seconds": chain.add_seconds(time.perf_counter() - t)}


def _from_known(chain, where, known, facts):
    """The first states' values one step from ``known`` (:func:`chain_values`), their turns walked (the
    chain's first level); None if a turn start they reach is not known."""
    t = time.perf_counter()
    N, edges, walked = facts["states"], facts["edges"], int(chain.counts[0])
    keys, values = known
    slots = chain.keys != 0
    key_of = np.zeros(N, np.uint64)
    key_of[chain.idx[slots]] = chain.keys[slots]
    reached = np.unique(chain.succ[:edges])
    at = np.minimum(np.searchsorted(keys, key_of[reached]), len(keys) - 1)
    if len(keys) == 0 or not (keys[at] == key_of[reached]).all():
        return None
    old = np.zeros((N, chain.term.shape[1]))
    old[reached] = values[at].reshape(len(reached), -1)
    new = np.empty((walked, old.shape[1]))
    sweep(chain.row_start[:walked + 1], chain.succ[:edges], chain.prob[:edges], np.asarray(chain.term[:walked]), old,
          new)
    facts.update(known=len(reached), sweeps=1, sweep_seconds=time.perf_counter() - t, last_change=float("nan"),
                 bound=0.0)
    return new[where]


def _sweeps(chain, where, left, facts, say):
    """The first states' values: ``left.max()`` turns of the chain, each state's read at its own."""
    N, edges = facts["states"], facts["edges"]
    chain.keys = chain.idx = chain.ring = chain.ring_h = None
    check_fits(2 * N * chain.term.shape[1] * 8 + len(where) * chain.term.shape[1] * 8, "the chain's values")
    row_start, succ, prob = chain.row_start[:N + 1], chain.succ[:edges], chain.prob[:edges]
    term = np.asarray(chain.term[:N])
    turns = int(left.max())
    say(f"{N:,} turn starts, {edges:,} edges ({format_bytes(facts['bytes'])}) in {facts['build_seconds']:.0f} s; "
        f"{turns} turn{'s' if turns > 1 else ''} of sweeps ...")
    t = time.perf_counter()
    old = term + chain.lim[:N]
    new = np.empty_like(old)
    out = np.zeros((len(where), term.shape[1]))
    change, m = float("nan"), 1
    out[left == 1] = old[where[left == 1]]
    report = every(10.0, lambda: say(f"  {m - 1} of {turns - 1} sweeps (the last changed a value by "
                                     f"{change:.1e} at most)"))
    while m < turns and not change <= SETTLED:
        m += 1
        change = sweep(row_start, succ, prob, term, old, new)
        old, new = new, old
        out[left == m] = old[where[left == m]]
        report()
    out[left > m] = old[where[left > m]]  # within (turns left - m) * change of their values
    facts.update(sweep_seconds=time.perf_counter() - t, sweeps=m - 1, last_change=change,
                 bound=float((turns - m) * change) if m < turns else 0.0)
    return out


_FAILURES = {ERR_DEPTH: "a turn of the blueprint is deeper than the game's bound",
             TOO_WIDE: f"a turn of the blueprint reaches more than {ROOM} turn starts or ends",
             NOT_INT8: "a state of the chain has an entry outside int8",
             ERR_TABLE: "the blueprint's table has a key of another owner or number of actions"}


def check_markov(meta):
    """Refuse (``ValueError``) a blueprint whose play is not a Markov chain over turn starts: one not
    over the features abstraction (its keys hash the history)."""
    if meta.get("abstraction") != "features":
        raise ValueError("exact leaf values need a features blueprint (its play is a Markov chain over turn "
                         f"starts); this one is over the {meta.get('abstraction', 'exact')!r} abstraction")


def values_exact(cut, solver, meta, k: int = 1, *, known=None, keep=None, threads=1, progress=None,
                 say=None) -> LeafValues:
    """The exact values of ``cut``'s leaves under ``k`` continuations of a features blueprint.

    ``cut``, ``solver`` and ``meta`` as :func:`coupsolve.depth.rollouts.values_from_trained` takes
    them; the blueprint must be over the features abstraction (its play is then a Markov chain over
    turn starts: module docstring). One row per distinct leaf state, as the rollouts give, with no
    standard errors (``stderr`` zero); the chain is built on ``threads`` threads. ``known``: the values
    kept for the leaves of a cut one turn longer (:func:`chain_values`); ``keep(keys, values)``, when
    given, is called with the distinct leaf states' keys (:func:`turn_start_keys`) and values, to keep
    them for a cut one turn shorter.
    """
    say = say or silent
    rules, game, warm, (rows, row_of, states, hashes, _) = leaf_game(cut, meta, k, say)
    turns_left = rules.turn_limit - cut.rules.turn_limit
    mean, facts = chain_values(game, solver.lookup_arrays(), warm > 0, states, hashes, turns_left, k, known=known,
                               threads=threads, progress=progress, say=say)
    if facts.get("known"):
        say(f"their turns reach {facts['known']:,} turn starts, all valued before: exact values in one step")
        source = (f"exact values of a trained strategy of {rules.turn_limit} turns (one turn, then the kept values "
                  f"of {facts['known']:,} turn starts)")
    else:
        say(f"{facts['sweeps']} sweeps in {facts['sweep_seconds']:.0f} s; every value within {facts['bound']:.1g} "
            "of exact" + ("" if facts["bound"] else " (every turn left swept)"))
        source = (f"exact values of a trained strategy of {rules.turn_limit} turns (a chain of {facts['states']:,} "
                  f"turn starts)")
    if keep is not None:
        keep(turn_start_keys(states), mean)
    return LeafValues(cut.leaf_node.copy(), mean, CONTINUATIONS[:k], source, stderr=np.zeros_like(mean),
                      states=rows, row_of=row_of)


def leaf_game(cut, meta, k, say=None):
    """The blueprint's rules, its features game, its warm start and ``cut``'s distinct leaf states
    (:func:`coupsolve.depth.rollouts.leaf_states`), the blueprint (``meta``, a training's metadata)
    checked first: what a chain of ``cut``'s leaves starts from."""
    from coupsolve.rules import Rules
    from coupsolve.strategy.trained import key_version, make_game

    rules = Rules.from_dict(meta["rules"])
    check_blueprint_rules(cut.rules, rules)
    check_markov(meta)
    warm = float(meta.get("warm_start", 0.0) or 0.0)
    game = make_game(rules, "features", None, warm, key=key_version(meta))
    return rules, game, warm, leaf_states(cut, game, "features", check_count(k), say or silent)


def leaf_keys(cut, meta, k, say=None):
    """``(row_of, keys)``: the row of each of ``cut``'s leaves, as :func:`values_exact` numbers them,
    and the chain key of each row's state (:func:`turn_start_keys`)."""
    _, _, _, (_, row_of, states, _, _) = leaf_game(cut, meta, k, say)
    return row_of, turn_start_keys(states)


def exact_compiled() -> bool:
    """Whether the chain's kernels are compiled (else the first use compiles them)."""
    from coupsolve.engine.jit import kernel_ready

    return all(kernel_ready(f) for f in (_walk, commit_states, _seed, sweep))
