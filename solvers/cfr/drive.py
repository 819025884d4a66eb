"""``solve``: run a member of the CFR family over a :class:`GameTree`, start to finish.

Counterfactual regret minimisation, Zinkevich, Johanson, Bowling and Piccione
(2007), "Regret Minimization in Games with Incomplete Information", NeurIPS;
the variants and their papers are listed in :mod:`solvers.cfr.algorithms`, the
numba kernel is :mod:`solvers.history._kernel`.

``solve`` is a driver over a :class:`solvers.Solver` (the object that owns
the buffers, through its representation): it validates its arguments, makes
the solver (or resumes one from a checkpoint) and steps it in chunks of
iterations (about 0.1 s each), evaluating the exploitability of the average
policy every ``check_every`` iterations, updating a progress bar and writing
checkpoints between chunks. Ctrl-C (``KeyboardInterrupt``) ends the run after
the last complete iteration: the iteration counter lives in an array the
kernel updates together with the regrets, so the state is always consistent.

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
import warnings

import numpy as np

from solvers.npz import save_or_warn
from solvers.cfr.algorithms import get_algorithm
from solvers.compiled import kernels_ready
from solvers.history.rep import PARALLEL_MIN_HISTORIES
from solvers.cfr.representation import representation_for
from solvers.cfr.stepping import run
from solvers.cfr.solver import (PRECISIONS, UPDATES, Solver, check_options, check_threads, exploitability_floor,
                     int_arg)

__all__ = ["solve", "check_threads", "PRECISIONS", "UPDATES", "PARALLEL_MIN_HISTORIES"]


def _target_arg(value):
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"target_exploitability must be a number, got {value!r}")
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"target_exploitability must be finite and >= 0, got {value}")
    return float(value)



def solve(tree, algorithm=None, iterations=None, target_exploitability=None, seed=None,
          check_every=100, progress=True, checkpoint=None, checkpoint_every=None, resume=None,
          precision="float64", updates="alternating", threads=1, backend=None, say=None):
    """Approximate a Nash equilibrium of ``tree`` with a CFR-family algorithm.

    (Long only by this docstring: the body validates the arguments, makes or
    resumes a :class:`~solvers.Solver` and hands it to the loop ``_drive``.)

    Parameters
    ----------
    tree : GameTree
        Or any tree type with a registered representation
        (:mod:`solvers.cfr.representation`).
    algorithm : str, optional
        One of :data:`solvers.ALGORITHMS` (``"cfr"``, ``"cfr+"``, ``"lcfr"``,
        ``"dcfr"``, ``"pcfr+"``, ``"hs-dcfr"``, ``"hs-pcfr+"``, ``"mmd"``,
        ``"mmd-qre"``), or a spec (:class:`~solvers.AlgorithmSpec`,
        :class:`~solvers.cfr.mmd.MMDSpec`). Defaults to ``"cfr+"``, or to the
        checkpoint's algorithm when resuming.
    iterations : int, optional
        Total number of iterations to reach (counting resumed ones).
    target_exploitability : float, optional
        Stop at the first check where the average policy's exploitability is
        at most this. At least one of ``iterations`` and
        ``target_exploitability`` is required; with both, whichever comes
        first stops the run. A target below what ``precision`` reaches
        (:func:`solvers.cfr.solver.exploitability_floor`) is warned about
        (``UserWarning``) before the first iteration.
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
        shallow level (:mod:`solvers.history.layout`); each thread runs its groups
        through every level, two parallel regions per pass. Worth it on trees
        of about ``10**6`` histories and more, on cores no other process is
        using (a parallel region waits for its slowest thread). Regret terms
        are then added in another order, so results agree with ``threads=1``
        only to rounding. Trees of fewer than :data:`PARALLEL_MIN_HISTORIES`
        histories run on one thread (and then equal ``threads=1`` exactly).
    backend : optional
        None: this process. :class:`solvers.pieces.ray.RayBackend`: a public tree's parts on the
        actors of a Ray cluster, the trunk here; the iterates are the same numbers.
    say : callable, optional
        Given one line before a long first compile of the solver's kernels (none of them in numba's
        cache yet: :func:`solvers.compiled.kernels_ready`), so a command does not wait without a word.

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
    representation_for(tree)  # a TypeError for a tree no representation takes
    iterations = int_arg("iterations", iterations, 0, optional=True)
    target = _target_arg(target_exploitability)
    if iterations is None and target is None:
        raise ValueError("give iterations, target_exploitability, or both; otherwise the solve "
                         "would never stop")
    check_every = int_arg("check_every", check_every, 1)
    checkpoint_every = int_arg("checkpoint_every", checkpoint_every, 1, optional=True)
    if checkpoint_every is not None and checkpoint is None:
        raise ValueError("checkpoint_every needs a checkpoint path")
    if not isinstance(progress, bool):
        raise TypeError(f"progress must be a bool, got {progress!r}")
    seed = int_arg("seed", seed, optional=True)
    options = dict(precision=precision, updates=updates, threads=check_options(precision, updates,
                                                                               threads),
                   backend=backend)
    spec = None if algorithm is None else get_algorithm(algorithm)
    if target is not None and target < exploitability_floor(tree, precision):
        warnings.warn(f"target_exploitability={target:g} is below what {precision} reaches (the "
                      f"exploitability levels off near {exploitability_floor(tree, precision):.1g})"
                      + ("; the solve will stop only at iterations" if iterations is not None else
                         "; with no iterations cap the solve will not stop"), stacklevel=2)
    if say is not None and not kernels_ready(tree, spec):
        say("compiling the solver (first run only, about half a minute) ...")
    if resume is not None:
        solver = Solver.load(resume, tree, algorithm=algorithm, seed=seed, **options)
        if iterations is not None and iterations < solver.iterations:
            raise ValueError(f"checkpoint {resume} is already at iteration {solver.iterations}, "
                             f"beyond iterations={iterations}")
    else:
        solver = Solver(tree, "cfr+" if algorithm is None else algorithm,
                        seed=0 if seed is None else seed, **options)
    interrupted = _drive(solver, iterations, target, check_every, progress, checkpoint,
                         checkpoint_every)
    try:
        if solver.iterations % check_every == 0:
            solver.record()  # a scheduled point (kept in checkpoints), if not recorded yet
    except KeyboardInterrupt:  # a second Ctrl-C soon after the first: still save
        interrupted = True
    if checkpoint is not None:
        interrupted = save_or_warn(solver.save, checkpoint) or interrupted  # Ctrl-C held while it writes
    try:
        return solver.result(interrupted, last=True)  # the solver goes with this call
    finally:
        close = getattr(solver.representation, "close", None)
        if backend is not None and close is not None:
            close()  # its workers (a Ray backend's actors) end with it


def _drive(solver, iterations, target, check_every, progress, checkpoint, checkpoint_every):
    """Step ``solver`` until ``iterations`` or ``target`` (measured every ``check_every`` iterations)
    by the shared loop (:func:`solvers.cfr.stepping.run`); True if Ctrl-C stopped it."""
    curve = solver.curve
    if target is not None and curve and curve[-1][0] == solver.iterations and curve[-1][2] <= target:
        return False  # resumed at a measured point that reached the target already

    def check():
        value = solver.record()
        return (target is not None and value <= target,
                f"exploitability {value:.4g}, {solver.curve[-1][1]:,.0f} s")

    return run(solver, iterations=iterations, check_every=check_every, check=check,
               save=lambda: save_or_warn(solver.save, checkpoint), save_every=checkpoint_every,
               desc=solver.algorithm, progress=progress)
