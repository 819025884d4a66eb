"""``solve``: run a member of the CFR family over a :class:`GameTree`.

Counterfactual regret minimisation, Zinkevich, Johanson, Bowling and Piccione
(2007), "Regret Minimization in Games with Incomplete Information", NeurIPS;
the variants and their papers are listed in :mod:`solvers.algorithms`, the
numba kernel is :mod:`solvers._cfr_kernel`.

The driver validates its arguments, checks that the working memory fits,
builds (once per tree) the solver layout (:mod:`solvers._layout`), allocates
every buffer once and calls the kernel in chunks of iterations (about 0.1 s
each), evaluating the exploitability of the average policy every
``check_every`` iterations, updating a progress bar and writing checkpoints
between chunks. Ctrl-C (``KeyboardInterrupt``) ends the run after the last
complete iteration: the iteration counter lives in an array the kernel
updates together with the regrets, so the state is always consistent.

Speed options (``precision``, ``updates``, ``threads``) trade OpenSpiel
exactness for time; the defaults (``"float64"``, ``"alternating"``, ``1``)
reproduce OpenSpiel's solvers. Measured on this repository's benchmarks
(``make bench``): ``float32`` pays on trees larger than the caches (the
passes are bound by memory traffic there), ``"simultaneous"`` halves the
passes per iteration but CFR+ and the discounted variants then need many
times more iterations for the same exploitability, and threads pay only on
large trees and idle cores.
"""

from __future__ import annotations

import math
import sys
import time

import numba
import numpy as np

from . import _cfr_kernel as kernel
from ._layout import cached as layout_cached
from ._layout import PARTS, layout_for
from .algorithms import get_algorithm
from .best_response import _values, _Workspace
from .checkpoint import load_checkpoint, save_checkpoint
from .memory import check_fits, estimate_solve_bytes
from .result import SolveResult
from .tree import GameTree

__all__ = ["solve", "check_threads", "PRECISIONS", "UPDATES", "PARALLEL_MIN_HISTORIES"]

#: Accepted values of ``solve(precision=...)``; the first is the default.
PRECISIONS = ("float64", "float32")
#: Accepted values of ``solve(updates=...)``; the first is the default.
UPDATES = ("alternating", "simultaneous")

#: Trees with fewer histories run on one thread whatever ``threads`` says:
#: the four parallel regions of an iteration cost a few microseconds each
#: (Kuhn poker: 0.6 us per iteration on one thread, 5.6 us on two; Leduc
#: 30 us against 35 us; Liar's Dice, 3e5 histories, no gain), and two threads
#: first pay at about 10**6 histories (Coup turn limit 2: 16 ms against 11 ms).
PARALLEL_MIN_HISTORIES = 1 << 20

_CHUNK_SECONDS = 0.1
_MAX_CHUNK = 1_000_000


def _int_arg(name, value, minimum=None, optional=False):
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an int, got {value!r}")
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {value}")
    return int(value)


def _target_arg(value):
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"target_exploitability must be a number, got {value!r}")
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"target_exploitability must be finite and >= 0, got {value}")
    return float(value)


def check_threads(threads):
    """``threads`` as an int, or a clear error if this machine's numba cannot run that many."""
    threads = _int_arg("threads", threads, 1)
    if threads > min(numba.config.NUMBA_NUM_THREADS, PARTS):
        raise ValueError(f"threads={threads} exceeds what numba has here: "
                         f"{numba.config.NUMBA_NUM_THREADS} threads (set NUMBA_NUM_THREADS to "
                         f"change that; the layout has {PARTS} parts)")
    return threads


def solve(tree, algorithm=None, iterations=None, target_exploitability=None, seed=None,
          check_every=100, progress=True, checkpoint=None, checkpoint_every=None, resume=None,
          precision="float64", updates="alternating", threads=1):
    """Approximate a Nash equilibrium of ``tree`` with a CFR-family algorithm.

    Parameters
    ----------
    tree : GameTree
    algorithm : str, optional
        One of :data:`solvers.ALGORITHMS` (``"cfr"``, ``"cfr+"``, ``"lcfr"``,
        ``"dcfr"``, ``"pcfr+"``). Defaults to ``"cfr+"``, or to the
        checkpoint's algorithm when resuming.
    iterations : int, optional
        Total number of iterations to reach (counting resumed ones).
    target_exploitability : float, optional
        Stop at the first check where the average policy's exploitability is
        at most this. At least one of ``iterations`` and
        ``target_exploitability`` is required; with both, whichever comes
        first stops the run.
    seed : int, optional
        Recorded in the result (the algorithms are deterministic). Defaults
        to 0, or to the checkpoint's seed when resuming.
    check_every : int
        Evaluate the exploitability every this many iterations (and always
        after the last one).
    progress : bool
        Show a tqdm progress bar (only when stderr is a terminal).
    checkpoint : str or os.PathLike, optional
        Checkpoint file, written every ``checkpoint_every`` iterations (if
        given) and when the run ends or is interrupted.
    checkpoint_every : int, optional
        Checkpoint interval in iterations; requires ``checkpoint``.
    resume : str or os.PathLike, optional
        Checkpoint to continue from; the result equals an uninterrupted run
        with the same ``precision``, ``updates`` and ``threads`` (the
        checkpoint does not record them).
    precision : {"float64", "float32"}
        Type of the per-history buffers (reach probabilities and values).
        ``"float64"`` (the default) reproduces OpenSpiel to rounding;
        ``"float32"`` halves the memory traffic of the passes (the regrets,
        average-strategy weights, strategies and the exploitability stay
        float64). Values carry about 7 significant digits, so exploitability
        levels off around ``1e-7`` times the payoff range; payoffs are rounded
        to float32 in the passes.
    updates : {"alternating", "simultaneous"}
        ``"alternating"`` (the default, OpenSpiel's ``CFRSolver``/
        ``CFRPlusSolver``): player 0 is updated, then player 1 against
        player 0's new strategy, two forward and two backward passes per
        iteration. ``"simultaneous"``: both players are updated against the
        same profile from one forward and one backward pass (OpenSpiel's
        ``alternating_updates=False``), about half the time per iteration;
        CFR+ then usually needs more iterations for the same exploitability.
    threads : int
        Number of numba threads (at most ``numba.config.NUMBA_NUM_THREADS``
        and 16). The tree is cut into 16 groups of whole subtrees below a
        shallow level (:mod:`solvers._layout`); each thread runs its groups
        through every level, two parallel regions per pass. Worth it on trees
        of about ``10**6`` histories and more, on cores no other process is
        using (a parallel region waits for its slowest thread). Regret terms
        are then added in another order, so results agree with ``threads=1``
        only to rounding. Trees of fewer than :data:`PARALLEL_MIN_HISTORIES`
        histories run on one thread (and then equal ``threads=1`` exactly).

    Returns
    -------
    SolveResult
        ``interrupted`` is True when Ctrl-C stopped the run; the policies are
        then those of the last complete iteration.

    Raises
    ------
    ValueError, TypeError
        Bad arguments, an unknown algorithm, or a checkpoint for another game,
        layout, algorithm or seed.
    MemoryError
        If the solver's working memory will not fit.
    """
    if not isinstance(tree, GameTree):
        raise TypeError(f"tree must be a GameTree, got {type(tree).__name__}")
    iterations = _int_arg("iterations", iterations, 0, optional=True)
    target = _target_arg(target_exploitability)
    if iterations is None and target is None:
        raise ValueError("give iterations, target_exploitability, or both; otherwise the solve "
                         "would never stop")
    check_every = _int_arg("check_every", check_every, 1)
    checkpoint_every = _int_arg("checkpoint_every", checkpoint_every, 1, optional=True)
    if checkpoint_every is not None and checkpoint is None:
        raise ValueError("checkpoint_every needs a checkpoint path")
    if not isinstance(progress, bool):
        raise TypeError(f"progress must be a bool, got {progress!r}")
    seed = _int_arg("seed", seed, optional=True)
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {', '.join(map(repr, PRECISIONS))}, "
                         f"got {precision!r}")
    if updates not in UPDATES:
        raise ValueError(f"updates must be one of {', '.join(map(repr, UPDATES))}, got {updates!r}")
    threads = check_threads(threads)
    if algorithm is not None:
        get_algorithm(algorithm)

    saved = None
    if resume is not None:
        saved = load_checkpoint(resume, tree)
        for name, given in (("algorithm", algorithm), ("seed", seed)):
            if given is not None and given != saved[name]:
                raise ValueError(f"checkpoint {resume} was written with {name}={saved[name]!r}, "
                                 f"not {given!r}; pass {name}={saved[name]!r} or omit it")
        algorithm, seed = saved["algorithm"], saved["seed"]
        if iterations is not None and iterations < saved["iterations"]:
            raise ValueError(f"checkpoint {resume} is already at iteration {saved['iterations']}, "
                             f"beyond iterations={iterations}")
    spec = get_algorithm("cfr+" if algorithm is None else algorithm)
    seed = 0 if seed is None else seed
    run = _Run(tree, spec, seed, saved, precision, updates, threads)
    return run.run(iterations, target, check_every, progress, checkpoint, checkpoint_every)


class _Run:
    """Buffers and bookkeeping of one solve."""

    def __init__(self, tree, spec, seed, saved, precision="float64", updates="alternating",
                 threads=1):
        n, m, a = tree.num_nodes, tree.num_infosets, tree.num_actions
        if n < PARALLEL_MIN_HISTORIES:
            threads = 1  # see PARALLEL_MIN_HISTORIES
        simultaneous = updates == "simultaneous"
        fresh = not layout_cached(tree)
        if fresh:
            num_nt = n - int(np.count_nonzero(tree.node_kind == 2))
            edges = int(tree.num_children[tree.node_kind == 1].sum(dtype=np.int64))
        else:
            num_nt, edges = layout_for(tree).node.shape[0], layout_for(tree).cprob.shape[0]
        # A first solve of a tree also builds its layout (12 transient bytes per history).
        check_fits(estimate_solve_bytes(n, m, a, spec.predictive, precision=precision,
                                        updates=updates, threads=threads, chance_edges=edges,
                                        nonterminals=num_nt, layout=fresh)
                   + 16 * a + (12 * n if fresh else 0),
                   f"solving {tree.game_id} with {spec.name}")
        self.layout = lay = layout_for(tree)
        self.tree, self.spec, self.seed = tree, spec, seed
        self.simultaneous, self.threads = simultaneous, threads
        self.parts = lay.parts(threads)
        dtype = np.float32 if precision == "float32" else np.float64
        # The strategy (internal order), the chance probabilities and a 1: the
        # forward pass reads every edge probability from this one table.
        self.tab = np.empty(lay.one + 1)
        self.tab[a:lay.one] = lay.cprob
        self.tab[lay.one] = 1.0
        # Counterfactual reach per non-terminal (slot order), and the list of
        # reached histories the forward pass leaves for the backward pass.
        self.q0 = np.empty(num_nt, dtype)
        self.q1 = np.empty(num_nt if simultaneous else 0, dtype)
        self.live = np.empty_like(lay.node)
        self.live_count = np.zeros(lay.seg_kind.shape[0], np.int64)
        self.counter = np.zeros(1, np.int64)
        # Regrets, average weights and strategies live in the layout's
        # internal action order (see solvers._layout); results and
        # checkpoints are converted back to the tree's order.
        self.sigma = self.tab[:a]
        if saved is None:
            self.regret = np.zeros(a)
            self.cumulative = np.zeros(a)
            self.sigma[:] = lay.to_internal(tree.uniform_policy())
            self.points = []
            self.seconds = 0.0
        else:
            for name in ("regret", "cumulative", "sigma"):
                want = (a,)
                if saved[name].shape != want:
                    raise ValueError(f"checkpoint array {name} has shape {saved[name].shape}, "
                                     f"expected {want}")
            self.regret = lay.to_internal(saved["regret"])
            self.cumulative = lay.to_internal(saved["cumulative"])
            self.sigma[:] = lay.to_internal(saved["sigma"])
            self.counter[0] = saved["iterations"]
            self.points = list(zip(saved["curve_iterations"].tolist(),
                                   saved["curve_seconds"].tolist(),
                                   saved["curve_exploitability"].tolist()))
            self.seconds = saved["seconds"]
        self.v = np.empty(n, dtype)
        kernel.init_values(tree.node_kind, tree.payoff, self.v)
        self.own = np.empty(a + 1)
        rows = threads if (threads > 1 or spec.predictive) else 0
        self.inst = np.zeros((rows, a if rows else 0))
        self.avg = np.empty(a)
        # The exploitability evaluation (float64 throughout) shares the value
        # buffer when it is float64; PCFR+ borrows its reach and subtree buffers.
        self.ws = _Workspace(tree, v=self.v if dtype is np.float64 else None)
        self.qn = self.ws.q if spec.predictive else np.empty(0)
        self.w = self.ws.w if spec.predictive else np.empty(0)
        self.acc = self.ws.acc if spec.predictive else np.empty(0)
        self.prev = np.empty(a if spec.predictive else 0)

    def _iterate(self, count):
        t, s, lay = self.tree, self.spec, self.layout
        if self.threads > 1:
            numba.set_num_threads(self.threads)
        kernel.run_iterations(
            lay.node, lay.child, lay.aux, lay.par, lay.edge, lay.seg_start, lay.seg_kind,
            lay.seg_nc, lay.level_seg, lay.part_seg, lay.cut, self.parts, self.tab, lay.one,
            lay.order, lay.split, lay.level_order, lay.info_offset, lay.info_actions,
            lay.info_parent, lay.info_count, lay.iparent, lay.ioff, t.infoset_num_actions,
            self.regret, self.cumulative, self.own, self.inst, self.acc, self.prev, self.q0,
            self.q1, self.v, self.qn, self.w, self.live, self.live_count, self.counter, count,
            s.plus, s.discount, s.alpha, s.beta, s.gamma, s.predictive, self.simultaneous)

    def _normalize(self):
        lay = self.layout
        kernel.normalize_average(self.cumulative, lay.info_offset, lay.info_actions, self.avg)

    def _evaluate(self):
        self._normalize()
        br0, br1, ev0 = _values(self.tree, self.avg, self.ws, internal=True)
        return ((br0 - ev0) + (br1 + ev0)) / 2.0, ev0

    def _save(self, path):
        save_checkpoint(path, self.tree, self.spec.name, self.seed, int(self.counter[0]),
                        self.seconds, dict(regret=self.layout.to_tree(self.regret),
                                           cumulative=self.layout.to_tree(self.cumulative),
                                           sigma=self.layout.to_tree(self.sigma)),
                        tuple(zip(*self.points)) if self.points else ((), (), ()))

    def run(self, iterations, target, check_every, progress, checkpoint, checkpoint_every):
        from tqdm.auto import tqdm

        points = self.points  # scheduled (iteration, seconds, exploitability) points
        start = int(self.counter[0])
        next_check = (start // check_every + 1) * check_every
        next_save = None
        if checkpoint_every is not None:
            next_save = (start // checkpoint_every + 1) * checkpoint_every
        reached = (target is not None and bool(points) and points[-1][0] == start
                   and points[-1][2] <= target)
        last = None  # (iteration, exploitability, value of player 0)
        chunk, interrupted = 1, False
        bar = tqdm(total=iterations, initial=start, desc=self.spec.name, unit="it",
                   disable=not (progress and sys.stderr.isatty()), dynamic_ncols=True)
        try:
            while not reached:
                done = int(self.counter[0])
                count = min(chunk, next_check - done)
                if iterations is not None:
                    if done >= iterations:
                        break
                    count = min(count, iterations - done)
                if next_save is not None:
                    count = min(count, next_save - done)
                began = time.perf_counter()
                self._iterate(count)
                elapsed = time.perf_counter() - began
                self.seconds += elapsed
                chunk = max(1, min(_MAX_CHUNK, int(_CHUNK_SECONDS * count / max(elapsed, 1e-9))))
                bar.update(count)
                done = int(self.counter[0])
                if done >= next_check:
                    value, ev0 = self._evaluate()
                    last = (done, value, ev0)
                    points.append((done, self.seconds, value))
                    bar.set_postfix(exploitability=f"{value:.3g}")
                    reached = target is not None and value <= target
                    next_check += check_every
                if next_save is not None and done >= next_save:
                    self._save(checkpoint)
                    next_save += checkpoint_every
        except KeyboardInterrupt:
            interrupted = True
        finally:
            bar.close()
        done = int(self.counter[0])
        if last is None or last[0] != done:
            value, ev0 = self._evaluate()
            last = (done, value, ev0)
            if done % check_every == 0 and (not points or points[-1][0] != done):
                points.append((done, self.seconds, value))
        else:
            self._normalize()
        if checkpoint is not None:
            self._save(checkpoint)
        curve = list(points)
        if not curve or curve[-1][0] != done:
            curve.append((done, self.seconds, last[1]))
        tree = self.tree
        return SolveResult(
            game_id=tree.game_id, algorithm=self.spec.name, iterations=done, seed=self.seed,
            average_policy=self.layout.to_tree(self.avg),
            current_policy=self.layout.to_tree(self.sigma),
            curve_iterations=np.array([p[0] for p in curve], np.int64),
            curve_seconds=np.array([p[1] for p in curve], np.float64),
            curve_exploitability=np.array([p[2] for p in curve], np.float64),
            game_value=np.array([last[2], -last[2]]),
            infoset_num_actions=tree.infoset_num_actions.copy(),
            infoset_actions=tree.infoset_actions.copy(),
            seconds=self.seconds, interrupted=interrupted, tree=tree)
