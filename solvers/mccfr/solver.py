"""Monte Carlo CFR over a game's compiled step functions: no tree, any players.

Lanctot, Waugh, Zinkevich and Bowling (2009), "Monte Carlo Sampling for Regret Minimization in
Extensive Games", NeurIPS. Three samplings share one table and one game interface:

* ``"external"`` (the default): one iteration is one traversal per player, every action of the
  updated player walked, as in OpenSpiel's ``ExternalSamplingSolver``
  (:mod:`solvers.mccfr.external`). Its traversal grows with the game's length: a long game
  walks millions of information sets in one iteration. With ``threads`` it runs on several workers
  in deterministic batches (:mod:`solvers.mccfr.batch`).
* ``"outcome"``: one iteration is one sampled episode per player, with epsilon-exploration at the
  updated player's nodes and importance-weighted regrets, as in OpenSpiel's
  ``OutcomeSamplingSolver`` (:mod:`solvers.mccfr.outcome`). An iteration costs one path, whatever
  the game's length.
* ``"probe"``: one sampled path per player, each of the updated player's actions on it
  valued by a probe (one rollout, no importance weight after the node; Gibson et al., AAAI 2012;
  :mod:`solvers.mccfr.probe`). For long games, where outcome sampling's weights make the regrets'
  variance too large to learn from; a game's binding must provide the kernel (``kernels[4]``).

The table's layout is in :mod:`solvers.mccfr.kernel`.

A game is a :class:`SamplingGame` (a game package binds its compiled engine as one). The solver's
information sets live in a preallocated hash table whose memory is checked before it is allocated
(:func:`estimate_bytes`); a table that fills stops the run with :class:`TableFull` instead of growing.
Iterations draw from a splitmix64 generator seeded by ``seed`` whose state is part of the solver, so a
run is bit-identical given its seed, whatever its chunks, and a checkpoint resumes it bit for bit.

The kernels take the game's functions as a first-class argument; how they are compiled and cached
per game is in :mod:`solvers.mccfr.kernel`.
"""

from __future__ import annotations

import functools
import math
import time
from typing import NamedTuple

import numpy as np

from solvers.mccfr import external as EXT
from solvers.mccfr import kernel as K
from solvers.mccfr import outcome as O
from solvers.mccfr import probe as R
from solvers import npz as _npz
from solvers.mccfr.kernel import call_kernel
from solvers.mccfr.tablefile import check_table
from solvers.mccfr import batch as B
from solvers.memory import check_fits, format_bytes
from solvers.cfr.solver import int_arg
from solvers.options import AVERAGES, REGRETS, SAMPLINGS

__all__ = ["SamplingGame", "MCCFRSolver", "TableFull", "bind", "estimate_bytes", "train", "REGRETS",
           "AVERAGES", "SAMPLINGS"]

#: A sampling's kernel: its position in ``SamplingGame.kernels`` and its name in messages.
_KERNEL_OF = {"external": (0, "external-sampling"), "outcome": (3, "outcome-sampling"),
              "probe": (4, "probing"), "batches": (5, "batched external-sampling")}
#: The kind a checkpoint file records (:mod:`solvers.npz`), so no other file is read as one.
CHECKPOINT_KIND = "coupsolve.solvers.MCCFRCheckpoint"
#: The fields a checkpoint writes of its own; the others are the solver's ``notes``.
_OWN_META = ("game_id", "abstraction", "sampling", "epsilon", "explore", "regret", "average", "seed",
             "iterations", "seconds", "max_infosets", "max_actions", "num_players", "threads", "batch")
_ERRORS = {K.ERR_COLLISION: "an information-set hash collision (two information sets with the same "
                            "first hash): please report it",
           K.ERR_RECALL: "one key seen with another player or number of actions (the game's "
                         "observations do not give perfect recall)",
           K.ERR_DEPTH: "a history deeper than the game's stated maximum depth"}


class SamplingGame(NamedTuple):
    """A game for :class:`MCCFRSolver`: its compiled kernels and sizes.

    ``kernels`` is ``(run_iterations, replay_keys, tree_infoset_keys, run_outcome)``: the kernels of
    :mod:`solvers.mccfr.kernel` and :mod:`solvers.mccfr.outcome` with the game's functions bound as
    their first argument, either by
    :func:`bind` (compiled in every process) or by cached entry points of the game's own module.
    ``params`` (int32) and ``scratch`` (a tuple of arrays) are passed to the game's functions;
    ``state_size`` (int32 entries of a state), ``max_depth`` (moves in the longest history),
    ``max_moves`` (room for one node's moves) size the traversal's stack; ``game_id`` names the game
    in checkpoints; ``abstraction`` names how its information sets are keyed (``"exact"``: the
    players' whole observation sequences), checked by checkpoints too. ``warm_start`` (probing only)
    is the regret a new information set starts with on the strategy the game's ``moves`` gives at a
    decision (:mod:`solvers.mccfr.probe`); 0, the default, starts every one at zero.
    """

    kernels: tuple
    params: np.ndarray
    scratch: tuple
    num_players: int
    state_size: int
    max_depth: int
    max_moves: int
    game_id: str
    abstraction: str = "exact"
    warm_start: float = 0.0


class TableFull(MemoryError):
    """The information-set table has no room left; the run stopped (see :meth:`MCCFRSolver.step`)."""


def bind(functions):
    """``SamplingGame.kernels`` for the game ``functions``, ``(init, player, moves, step, returns)``
    (numba-compiled, :mod:`solvers.mccfr.kernel`): not cached, so compiled in every process; fine for a
    small game, while a large one caches entry points of its own (as a game package's binding does)."""
    return tuple(functools.partial(k, functions) for k in (EXT.run_iterations, K.replay_keys,
                                                            K.tree_infoset_keys, O.run_outcome,
                                                            R.run_probe, EXT.run_worker))


def _capacity(max_infosets):
    return 1 << max(4, math.ceil(math.log2(max_infosets / K.MAX_LOAD + 1)))


def new_table(capacity):
    """``capacity`` empty slots (:data:`solvers.mccfr.kernel.SLOT_DTYPE`) and the header, starting
    on a 64-byte boundary, so that no slot straddles two cache lines (NumPy aligns large arrays to 16
    bytes only). The first ``FIRST_SLOTS`` are in use (the table grows: :mod:`solvers.mccfr.kernel`);
    the pages of the others are not written until the table grows into them."""
    raw = np.zeros((capacity + 1) * K.SLOT_BYTES + 64, np.uint8)
    start = -raw.ctypes.data % 64
    table = raw[start:start + (capacity + 1) * K.SLOT_BYTES].view(K.SLOT_DTYPE)
    first = min(capacity, K.FIRST_SLOTS)
    table["offset"][:first] = -1
    table["offset"][-1] = -1
    table["key"][-1] = first - 1
    return table


def slots_in_use(table):
    """The slots a table (:func:`new_table`) uses now: the header's mask + 1 of them."""
    return table[: int(table[-1]["key"]) + 1]


def estimate_bytes(game, max_infosets, max_actions, threads=1):
    """Bytes of a solver's table (:mod:`solvers.mccfr.kernel`) at its largest (it grows in place)
    and its traversal stack; with ``threads`` workers, their stacks and their sinks' first room
    (:mod:`solvers.mccfr.batch`)."""
    state = 4 * game.state_size + 16 * game.num_players  # a state and its hashes
    stack = (game.max_depth + 1) * ((1 + K.AHEAD) * state + 28 * game.max_moves)
    workers = threads * (stack + B.room_bytes(B.FIRST_ROOM)) if threads > 1 else 0
    cap = _capacity(max_infosets)
    return (cap + 1) * K.SLOT_BYTES + max_actions * K.ACTION_BYTES + stack + workers


def _choice(name, value, choices):
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}, got {value!r}")
    return value


class MCCFRSolver:
    """Monte Carlo CFR (external or outcome sampling) with its information sets in a fixed-size hash
    table.

    Parameters
    ----------
    game : SamplingGame
    max_infosets : int
        Room for this many information sets (the table has the next power of two above
        ``max_infosets / 0.75`` slots).
    max_actions : int, optional
        Room for this many information-set actions (default ``4 * max_infosets``).
    regret : {"rm", "rm+"}
        Regret matching, or regret matching+ (cumulative regrets floored at 0 after each update).
    average : {"uniform", "linear"}
        The average strategy's additions (OpenSpiel's stochastically-weighted simple average) weighted
        by 1, or by the iteration number.
    seed : int
        Seeds the sampling.
    sampling : {"external", "outcome"}
        External sampling (every action of the updated player walked) or outcome sampling (one
        sampled episode per player and iteration); see the module docstring.
    epsilon : float
        Outcome sampling's exploration at the updated player's nodes (OpenSpiel's default 0.6), in
        (0, 1]; ignored by external sampling.
    explore : float
        Probing only: the share of uniform draws on the updated player's path, in (0, 1]; the rest
        follow its current strategy (:mod:`solvers.mccfr.probe`). 1, the default: the uniform path.
    threads : int
        External sampling only: the workers that traverse at once, each with its own generator, in
        batches of ``threads * batch`` iterations (:mod:`solvers.mccfr.batch`: reproducible from the
        seed, ``threads`` and ``batch``, but not the serial solver's iterates). 1, the default, is the
        serial solver unless ``batch`` is given.
    batch : int, optional
        Iterations per worker and batch (default :data:`solvers.mccfr.batch.DEFAULT_BATCH` when
        ``threads`` > 1); a step runs whole batches, so its iterations are rounded up to a multiple of
        ``threads * batch``.

    Raises
    ------
    TypeError, ValueError
        Bad arguments.
    MemoryError
        Before allocating, when the table will not fit (naming both figures).
    """

    def __init__(self, game, *, max_infosets=1 << 20, max_actions=None, regret="rm",
                 average="uniform", seed=0, sampling="external", epsilon=0.6, explore=1.0, threads=1, batch=None):
        if not isinstance(game, SamplingGame):
            raise TypeError(f"game must be a solvers.mccfr.solver.SamplingGame, got {type(game).__name__}")
        max_infosets = int_arg("max_infosets", max_infosets, 1)
        max_actions = int_arg("max_actions", 4 * max_infosets if max_actions is None else max_actions, 1)
        self.game, self.seed = game, int_arg("seed", seed, 0)
        self.regret, self.average = _choice("regret", regret, REGRETS), _choice("average", average, AVERAGES)
        self.sampling = _choice("sampling", sampling, SAMPLINGS)
        self.notes = {}  # the caller's JSON-able facts about the run, written into every checkpoint
        self.threads = int_arg("threads", threads, 1)
        self.batch = int_arg("batch", B.DEFAULT_BATCH if batch is None and threads > 1 else batch, 1,
                             optional=True)
        if self.batch is not None and self.sampling != "external":
            raise ValueError(f"threads and batch are for sampling='external', not {self.sampling!r}")
        at, name = _KERNEL_OF["batches" if self.batch else self.sampling]
        self._kernel_at = at
        if at >= len(game.kernels) or game.kernels[at] is None:
            raise ValueError(f"game {game.game_id!r} binds no {name} kernel (its kernels: "
                             f"{len(game.kernels)}); sampling={self.sampling!r}"
                             f"{' with threads or batch' if self.batch else ''} needs kernels[{at}]")
        if not 0.0 < float(epsilon) <= 1.0:
            raise ValueError(f"epsilon must be in (0, 1] (the exploration of outcome sampling), got "
                             f"{epsilon!r}")
        self.epsilon = float(epsilon)
        if not 0.0 < float(explore) <= 1.0 or (float(explore) != 1.0 and self.sampling != "probe"):
            raise ValueError(f"explore must be in (0, 1] and is for sampling='probe' (the share of uniform "
                             f"draws on the updated player's path), got {explore!r} with {self.sampling!r}")
        self.explore = float(explore)
        if game.warm_start and self.sampling != "probe":
            raise ValueError(f"game {game.game_id!r} has a warm start ({game.warm_start:g}), which "
                             f"only sampling='probe' takes, not {self.sampling!r}")
        need = estimate_bytes(game, max_infosets, max_actions, self.threads)
        check_fits(need, f"the MCCFR table for {max_infosets:,} information sets and "
                         f"{max_actions:,} actions")
        self.bytes = need
        cap = _capacity(max_infosets)
        self._table = new_table(cap)
        self._regret = np.zeros(max_actions, np.float64)
        self._avg = np.zeros(max_actions, np.float64)
        self._rng = B.worker_seeds(self.seed, self.threads)
        self._workers = B.Workers(game, self.threads) if self.batch else None
        self._stats = np.array([0, 0, 0, 0, max_actions, game.num_players, max_infosets], np.int64)
        self.max_infosets, self.max_actions = max_infosets, max_actions
        self.seconds = 0.0
        self._broken = None

    @property
    def kernel(self):
        """The game's kernel that runs this solver's sampling (``SamplingGame.kernels``)."""
        return self.game.kernels[self._kernel_at]

    def touch_pages(self):
        """Write every page of the preallocated table once (the same bytes back), so that no iteration
        pays a page's first fault; the seconds it took (a one-off cost of the table's size)."""
        began = time.perf_counter()
        for a in (self._table, self._regret, self._avg):
            b = a.view(np.uint8)
            b[::4096] = b[::4096].copy()
        return time.perf_counter() - began

    @property
    def iterations(self):
        """Finished iterations (one traversal or episode per player each)."""
        return int(self._stats[2])

    @property
    def num_infosets(self):
        """Information sets visited so far."""
        return int(self._stats[0])

    def step(self, count=1):
        """Run ``count`` iterations; return the seconds they took.

        Raises
        ------
        TableFull
            The table has no room for a new information set: the iteration in progress is left half
            applied, so this solver refuses further steps (resume from the last checkpoint with a
            larger table).
        RuntimeError
            A hash collision or a game breaking perfect recall.
        """
        count = int_arg("count", count, 0)
        if self._broken is not None:
            raise RuntimeError(f"this solver stopped with an error and cannot continue: {self._broken}")
        g = self.game
        t0 = time.perf_counter()
        plus, linear = self.regret == "rm+", self.average == "linear"
        if self.batch:
            arrays = (self._table, self._regret, self._avg, self._rng, self._stats)
            status = self._workers.run(functools.partial(call_kernel, self.kernel), arrays,
                                       -(-count // (self.threads * self.batch)), self.batch, plus,
                                       linear)
        else:
            args = (g.params, g.scratch, self._table, self._regret, self._avg, self._rng, self._stats,
                    count, plus, linear)
            eps = ((self.epsilon,) if self.sampling == "outcome" else
                   (float(g.warm_start), self.explore) if self.sampling == "probe" else ())
            status = call_kernel(self.kernel, *args, *eps, g.max_depth, g.state_size, g.max_moves)
        elapsed = time.perf_counter() - t0
        self.seconds += elapsed
        if status != K.OK:
            self._fail(status)
        return elapsed

    def _fail(self, status):
        if status == K.ERR_FULL:
            self._broken = (f"the information-set table is full ({self.num_infosets:,} information sets "
                            f"of room for {self.max_infosets:,}, {int(self._stats[1]):,} actions of "
                            f"{self.max_actions:,}) after {self.iterations:,} finished iterations; "
                            f"it takes {format_bytes(self.bytes)}: give more room with max_infosets "
                            f"and max_actions")
            raise TableFull(self._broken)
        self._broken = (f"{_ERRORS.get(status, f'status {status}')} at depth {int(self._stats[3])} "
                        f"of game {self.game.game_id!r}")
        raise RuntimeError(self._broken)

    def table(self):
        """The visited information sets in the order they were first seen, as a dict of arrays:
        ``key``, ``check`` (uint64), ``owner`` (int8), ``num_actions`` (int32), ``offset`` (int64)
        into ``regret`` and ``average`` (float64, the cumulative regrets and average-strategy
        weights, unnormalised)."""
        t = slots_in_use(self._table)
        used = np.flatnonzero(t["offset"] >= 0)
        used = t[used[np.argsort(t["offset"][used], kind="stable")]]
        na = int(self._stats[1])
        key, check, owner, nact, offset = (np.ascontiguousarray(used[f]) for f in
                                           ("key", "check", "owner", "nact", "offset"))
        return {"key": key, "check": check, "owner": owner, "num_actions": nact, "offset": offset,
                "regret": self._regret[:na].copy(), "average": self._avg[:na].copy()}

    def lookup_arrays(self):
        """The live table as compiled readers take it (no copy): ``table`` (the slots, looked up with
        :func:`solvers.mccfr.kernel.lookup`), ``stats`` and ``average`` (the average-strategy weights
        at each slot's ``offset``), for kernels such as :func:`solvers.mccfr.rollout.leaf_rollouts`
        that play the strategy. Read them only while the solver does not step."""
        return {"table": self._table, "stats": self._stats, "average": self._avg}

    def find(self, keys, checks, owners, num_actions):
        """The ``offset`` of each given information set in :meth:`table`'s arrays, -1 if never visited.

        Raises ``RuntimeError`` for a collision or an information set with another owner or number of
        actions."""
        out = np.full(len(keys), -1, np.int64)
        status = K.find_all(self._table, self._stats, np.asarray(keys, np.uint64),
                            np.asarray(checks, np.uint64), np.asarray(owners, np.int8),
                            np.asarray(num_actions, np.int32), out)
        if status != K.OK:
            raise RuntimeError(_ERRORS[status])
        return out

    def average_policy(self, game=None, prior=None):
        """The average strategy as an OpenSpiel policy, as OpenSpiel's solvers' ``average_policy()``
        (:class:`solvers.mccfr.policy.SampledPolicy`; information sets never visited play uniformly,
        or as ``prior`` does). ``game``: the pyspiel game, by default ``pyspiel.load_game`` of the
        solver's game id."""
        from solvers.mccfr.policy import SampledPolicy

        if game is None:
            import pyspiel

            game = pyspiel.load_game(self.game.game_id)
        return SampledPolicy(self, game, prior=prior)

    def save(self, path):
        """Write a checkpoint (``.npz`` + JSON): the table, the generator's state, the options and
        :attr:`notes` (which :meth:`load` gives back)."""
        meta = {"game_id": self.game.game_id, "abstraction": self.game.abstraction,
                "sampling": self.sampling, "epsilon": self.epsilon, "explore": self.explore,
                "regret": self.regret, "average": self.average,
                "seed": self.seed, "iterations": self.iterations, "seconds": self.seconds,
                "max_infosets": self.max_infosets, "max_actions": self.max_actions,
                "num_players": self.game.num_players, "threads": self.threads, "batch": self.batch}
        clash = sorted(set(self.notes) & set(meta))
        if clash:
            raise ValueError(f"notes may not use the checkpoint's own fields: {clash}")
        meta.update(self.notes)
        arrays = self.table()
        arrays["rng"] = self._rng
        _npz.save(path, CHECKPOINT_KIND, meta, arrays)

    @classmethod
    def load(cls, path, game, max_infosets=None, max_actions=None, sampling=None):
        """A solver continuing the checkpoint ``path`` (bit-identical to the uninterrupted run), with
        the checkpoint's table room unless ``max_infosets``/``max_actions`` give more (or less), and
        the checkpoint's sampling (``sampling``, when given, must be it).

        Raises ``ValueError`` for a file of another kind, another game, another abstraction of the
        game's information sets, or another sampling than ``sampling``."""
        meta, a = _npz.load(path, CHECKPOINT_KIND)
        check_table(meta, a, game, path)
        if meta.get("game_id") != game.game_id:
            raise ValueError(f"{path} is a checkpoint of game {meta.get('game_id')!r}, not of "
                             f"{game.game_id!r}")
        kind = meta.get("sampling", "external")
        for name, theirs, ours in (("abstraction", meta.get("abstraction", "exact"), game.abstraction),
                                   ("sampling", kind, kind if sampling is None else sampling)):
            if theirs != ours:
                raise ValueError(f"{path} is a checkpoint of {name} {theirs!r}, not of {ours!r}")
        self = cls(game, max_infosets=meta["max_infosets"] if max_infosets is None else max_infosets,
                   max_actions=meta["max_actions"] if max_actions is None else max_actions,
                   regret=meta["regret"], average=meta["average"], seed=meta["seed"], sampling=kind,
                   epsilon=meta.get("epsilon", 0.6), explore=meta.get("explore", 1.0), threads=meta.get("threads", 1),
                   batch=meta.get("batch"))
        status = K.insert_all(self._table, self._stats, a["key"], a["check"], a["owner"],
                              a["num_actions"])
        na = int(self._stats[1])
        if status != K.OK or a["regret"].shape != (na,) or a["average"].shape != (na,):
            raise ValueError(f"{path}: the table does not match its own layout")
        self._regret[:na] = a["regret"]
        self._avg[:na] = a["average"]
        if a["rng"].shape != self._rng.shape:
            raise ValueError(f"{path}: its generator state has shape {a['rng'].shape}, not {self._rng.shape}")
        self._rng[:] = a["rng"]
        self._stats[2] = meta["iterations"]
        self.seconds = float(meta["seconds"])
        self.notes = {k: v for k, v in meta.items() if k not in _OWN_META + _npz.FILE_FIELDS}
        return self


from solvers.mccfr.train import train  # noqa: E402  (it steps a solver of this module)
