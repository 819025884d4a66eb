"""``solve``: run a member of the CFR family over a :class:`GameTree`.

Counterfactual regret minimisation, Zinkevich, Johanson, Bowling and Piccione
(2007), "Regret Minimization in Games with Incomplete Information", NeurIPS;
the variants and their papers are listed in :mod:`solvers.algorithms`, the
numba kernel is :mod:`solvers._cfr_kernel`.

The driver validates its arguments, checks that the working memory fits,
allocates every buffer once and calls the kernel in chunks of iterations
(about 0.1 s each), evaluating the exploitability of the average policy every
``check_every`` iterations, updating a progress bar and writing checkpoints
between chunks. Ctrl-C (``KeyboardInterrupt``) ends the run after the last
complete iteration: the iteration counter lives in an array the kernel
updates together with the regrets, so the state is always consistent.
"""

from __future__ import annotations

import math
import sys
import time

import numpy as np

from . import _cfr_kernel as kernel
from .algorithms import get_algorithm
from .best_response import _values, _Workspace
from .checkpoint import load_checkpoint, save_checkpoint
from .memory import check_fits, estimate_solve_bytes
from .result import SolveResult
from .tree import GameTree

__all__ = ["solve"]

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


def solve(tree, algorithm=None, iterations=None, target_exploitability=None, seed=None,
          check_every=100, progress=True, checkpoint=None, checkpoint_every=None, resume=None):
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
        Checkpoint to continue from; the result equals an uninterrupted run.

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
    return _Run(tree, spec, seed, saved).run(iterations, target, check_every, progress,
                                             checkpoint, checkpoint_every)


class _Run:
    """Buffers and bookkeeping of one solve."""

    def __init__(self, tree, spec, seed, saved):
        n, m, a = tree.num_nodes, tree.num_infosets, tree.num_actions
        check_fits(estimate_solve_bytes(n, m, a, spec.predictive) + 16 * a,
                   f"solving {tree.game_id} with {spec.name}")
        self.tree, self.spec, self.seed = tree, spec, seed
        self.counter = np.zeros(1, np.int64)
        if saved is None:
            self.regret = np.zeros(a)
            self.cumulative = np.zeros(a)
            self.sigma = tree.uniform_policy()
            self.points = []
            self.seconds = 0.0
        else:
            for name in ("regret", "cumulative", "sigma"):
                want = (a,)
                if saved[name].shape != want:
                    raise ValueError(f"checkpoint array {name} has shape {saved[name].shape}, "
                                     f"expected {want}")
                setattr(self, name, saved[name])
            self.counter[0] = saved["iterations"]
            self.points = list(zip(saved["curve_iterations"].tolist(),
                                   saved["curve_seconds"].tolist(),
                                   saved["curve_exploitability"].tolist()))
            self.seconds = saved["seconds"]
        self.r0, self.r1, self.rc, self.v = (np.empty(n) for _ in range(4))
        kernel.chance_reach(tree.node_kind, tree.child_start, tree.num_children,
                            tree.chance_prob, self.rc)
        self.avg = np.empty(a)
        self.ws = _Workspace(tree, q=self.r0, f=self.r1, seq=self.v.view(np.int64))
        if spec.predictive:
            self.inst, self.acc = np.empty(a), self.ws.acc
            self.first, self.parent_seq = np.empty(m, np.int64), np.empty(m, np.int64)
            kernel.infoset_parents(tree.node_kind, tree.node_player, tree.node_infoset,
                                   tree.child_start, tree.num_children, tree.infoset_offset,
                                   self.v.view(np.int64), self.first, self.parent_seq)
        else:
            self.inst = self.acc = np.empty(0)
            self.first = self.parent_seq = np.empty(0, np.int64)

    def _iterate(self, count):
        t, s = self.tree, self.spec
        kernel.run_iterations(
            t.node_kind, t.node_player, t.node_infoset, t.child_start, t.num_children,
            t.chance_prob, t.payoff, t.infoset_player, t.infoset_offset, t.infoset_num_actions,
            self.regret, self.cumulative, self.sigma, self.inst, self.first, self.parent_seq,
            self.acc, self.r0, self.r1, self.rc, self.v, self.counter, count,
            s.plus, s.discount, s.alpha, s.beta, s.gamma, s.predictive)

    def _evaluate(self):
        t = self.tree
        kernel.normalize_average(self.cumulative, t.infoset_offset, t.infoset_num_actions, self.avg)
        br0, br1, ev0 = _values(t, self.avg, self.ws)
        return ((br0 - ev0) + (br1 + ev0)) / 2.0, ev0

    def _save(self, path):
        save_checkpoint(path, self.tree, self.spec.name, self.seed, int(self.counter[0]),
                        self.seconds, dict(regret=self.regret, cumulative=self.cumulative,
                                           sigma=self.sigma),
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
            kernel.normalize_average(self.cumulative, self.tree.infoset_offset,
                                     self.tree.infoset_num_actions, self.avg)
        if checkpoint is not None:
            self._save(checkpoint)
        curve = list(points)
        if not curve or curve[-1][0] != done:
            curve.append((done, self.seconds, last[1]))
        tree = self.tree
        return SolveResult(
            game_id=tree.game_id, algorithm=self.spec.name, iterations=done, seed=self.seed,
            average_policy=self.avg.copy(), current_policy=self.sigma.copy(),
            curve_iterations=np.array([p[0] for p in curve], np.int64),
            curve_seconds=np.array([p[1] for p in curve], np.float64),
            curve_exploitability=np.array([p[2] for p in curve], np.float64),
            game_value=np.array([last[2], -last[2]]),
            infoset_num_actions=tree.infoset_num_actions.copy(),
            infoset_actions=tree.infoset_actions.copy(),
            seconds=self.seconds, interrupted=interrupted, tree=tree)
