"""The solver object: one CFR-family run over a tree, stepped by its caller.

In the spirit of OpenSpiel's solver objects and postflop-solver's API::

    solver = solvers.Solver(tree, "cfr+")       # or precision=, updates=, threads=, seed=
    solver.step(100)                            # run 100 iterations
    solver.exploitability()                     # of the average policy
    solver.average_policy(), solver.current_policy()   # flat, tree order
    solver.save("run.npz")                      # a checkpoint; Solver.load(path, tree) resumes it
    solver.result()                             # a SolveResult

The solver keeps the bookkeeping (iterations, seconds, the exploitability
curve, checkpoints, the result) and leaves the arrays to its
*representation*, chosen by the type of the tree
(:mod:`solvers.cfr.representation`; :class:`~solvers.history.rep.HistoryTree` for a
:class:`~solvers.GameTree`). Callers never reach into either.
:func:`solvers.solve` is a driver over this object (progress bar, target,
periodic checks and checkpoints, resume).
"""

from __future__ import annotations

import time

import numba
import numpy as np

from solvers.history.layout import PARTS
from solvers.cfr.algorithms import get_algorithm
from solvers.options import PRECISIONS, UPDATES
from solvers.history.best_response import exploitability_of
from solvers.cfr.checkpoint import CheckpointState, check_checkpoint, load_checkpoint, save_checkpoint
from solvers.history.rep import HistoryTree  # noqa: F401  (registers the GameTree representation)
from solvers.history.mmd import HistoryMMD  # noqa: F401  (registers MMD's GameTree representation)
from solvers.cfr.representation import representation_for
from solvers.cfr.result import SolveResult

__all__ = ["Solver", "check_threads", "exploitability_floor", "PRECISIONS", "PRECISION_FLOOR", "UPDATES"]

#: The exploitability the passes level off at in each precision, relative to the payoff range (float32
#: values carry about 7 significant digits): a target below it is never reached.
PRECISION_FLOOR = {"float64": 1e-13, "float32": 1e-7}


def exploitability_floor(tree, precision):
    """The exploitability a solve of ``tree`` in ``precision`` levels off near (:data:`PRECISION_FLOOR`
    times the range of the tree's payoffs, float64 ``tree.payoff``; 1 for a tree without one)."""
    payoff = getattr(tree, "payoff", None)
    width = float(np.ptp(payoff)) if payoff is not None and len(payoff) else 1.0
    return PRECISION_FLOOR[precision] * width


def int_arg(name, value, minimum=None, optional=False):
    """``value`` as an int (``None`` allowed when ``optional``), or a clear ``TypeError``/``ValueError``."""
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an int, got {value!r}")
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {value}")
    return int(value)


def check_threads(threads):
    """``threads`` as an int, or a clear error if this machine's numba cannot run that many.

    Parameters
    ----------
    threads : int
        At least 1, at most ``numba.config.NUMBA_NUM_THREADS`` and the layout's parts (16).

    Raises
    ------
    TypeError, ValueError
    """
    threads = int_arg("threads", threads, 1)
    if threads > min(numba.config.NUMBA_NUM_THREADS, PARTS):
        raise ValueError(f"threads={threads} exceeds what numba has here: "
                         f"{numba.config.NUMBA_NUM_THREADS} threads (set NUMBA_NUM_THREADS to "
                         f"change that; the layout has {PARTS} parts)")
    return threads


def check_options(precision, updates, threads):
    """Validate the speed options; returns ``threads`` as an int."""
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {', '.join(map(repr, PRECISIONS))}, "
                         f"got {precision!r}")
    if updates not in UPDATES:
        raise ValueError(f"updates must be one of {', '.join(map(repr, UPDATES))}, got {updates!r}")
    return check_threads(threads)


class Solver:
    """A CFR-family solve of one tree, advanced by :meth:`step`.

    Parameters
    ----------
    tree : GameTree
        Or any tree type with a registered representation
        (:func:`solvers.cfr.representation.register`).
    algorithm : str
        One of :data:`solvers.ALGORITHMS`; default ``"cfr+"``.
    precision, updates, threads
        Speed options, as documented in :func:`solvers.solve`.
    seed : int
        Recorded in the result and checkpoints (the algorithms are deterministic).
    backend : optional
        Where the iterations run: None for this process, or an object whose ``representation``
        makes one (:class:`solvers.pieces.ray.RayBackend`: a public tree on a Ray cluster).

    Raises
    ------
    TypeError, ValueError
        Bad arguments, an unknown algorithm or tree type.
    MemoryError
        If the working memory will not fit (checked before allocating).
    """

    def __init__(self, tree, algorithm="cfr+", *, precision="float64", updates="alternating",
                 threads=1, seed=0, backend=None):
        self.spec = get_algorithm(algorithm)
        representation = (representation_for(tree, self.spec) if backend is None
                          else backend.representation)
        threads = check_options(precision, updates, threads)
        self.seed = int_arg("seed", seed)
        self._rep = representation(tree, self.spec, precision, updates, threads)
        #: The speed options it runs with (``threads``: the threads it uses, perhaps fewer than asked).
        self.options = dict(precision=precision, updates=updates, threads=self._rep.threads)
        self.tree = self._rep.game_tree
        self.seconds = 0.0  # in step(), excluding evaluations
        self._curve = []  # recorded (iteration, seconds, exploitability) points
        self._last = None  # (iteration, exploitability, value of player 0)
        self._spent = False  # the state went to a last result (result(last=True))

    @classmethod
    def load(cls, path, tree, *, algorithm=None, seed=None, **options):
        """Resume a checkpoint written by :meth:`save` for ``tree``.

        ``algorithm`` and ``seed`` default to the checkpoint's and must match it
        when given; the speed options are not recorded in checkpoints (resuming
        with the same ones continues the run bit for bit).

        Raises
        ------
        ValueError
            A checkpoint for another game or layout, or a mismatched algorithm or seed.
        """
        saved = load_checkpoint(path, state=False)  # the state is read after the buffers exist
        for name, given in (("algorithm", algorithm), ("seed", seed)):
            if given is not None and given != saved[name]:
                raise ValueError(f"checkpoint {path} was written with {name}={saved[name]!r}, "
                                 f"not {given!r}; pass {name}={saved[name]!r} or omit it")
        if hasattr(tree, "infoset_num_actions"):
            check_checkpoint(saved, tree)  # the game, before the solver's buffers are allocated
        solver = cls(tree, saved["algorithm"], seed=saved["seed"], **options)
        check_checkpoint(saved, solver.tree)
        solver._rep.set_state(CheckpointState(path), saved["iterations"])
        solver.seconds = saved["seconds"]
        solver._curve = list(zip(saved["curve_iterations"].tolist(),
                                 saved["curve_seconds"].tolist(),
                                 saved["curve_exploitability"].tolist()))
        return solver

    @property
    def representation(self):
        """The representation iterating the tree (for diagnostics and profiling; not needed to solve)."""
        return self._rep

    @property
    def algorithm(self):
        """The algorithm's name."""
        return self.spec.name

    @property
    def iterations(self):
        """Completed iterations (resumed ones included)."""
        return self._rep.iterations

    @property
    def curve(self):
        """The recorded points ``(iteration, seconds, exploitability)`` (a copy)."""
        return list(self._curve)

    def step(self, n=1):
        """Run ``n`` iterations.

        Ctrl-C (``KeyboardInterrupt``) is re-raised after the last complete
        iteration: the state, :attr:`iterations` and :attr:`seconds` are then
        consistent, and the solver can be stepped, saved or turned into a
        result.

        Returns
        -------
        float
            Seconds spent.
        """
        n = int_arg("n", n, 0)
        self._check_not_spent()
        began = time.perf_counter()
        try:
            self._rep.iterate(n)
        finally:
            elapsed = time.perf_counter() - began
            self.seconds += elapsed
        return elapsed

    def evaluate(self):
        """``(exploitability, value of player 0)`` of the average policy (computed once per iteration)."""
        done = self.iterations
        if self._last is None or self._last[0] != done:
            br0, br1, ev0 = self._rep.evaluate()
            self._last = (done, exploitability_of(br0, br1, ev0), ev0)
        return self._last[1], self._last[2]

    def exploitability(self):
        """Exploitability of the average policy (OpenSpiel's ``NashConv / 2``)."""
        return self.evaluate()[0]

    def record(self):
        """Add ``(iterations, seconds, exploitability)`` to the curve (once per iteration).

        Recorded points are kept in checkpoints; returns the exploitability.
        """
        value = self.exploitability()
        if not self._curve or self._curve[-1][0] != self.iterations:
            self._curve.append((self.iterations, self.seconds, value))
        return value

    def average_policy(self):
        """The average policy: float64, ``num_actions``, aligned with ``tree.infoset_offset``."""
        return self._rep.average_policy()

    def current_policy(self):
        """The current (last iterate's) policy, flat, tree order."""
        return self._rep.current_policy()

    def save(self, path):
        """Write a checkpoint (state, recorded curve, algorithm, seed) to ``path``.

        The write is durable and Ctrl-C is held until it is complete
        (:func:`solvers.cfr.checkpoint.write_durably`); returns True if Ctrl-C came
        during it.
        """
        self._check_not_spent()
        curve = tuple(zip(*self._curve)) if self._curve else ((), (), ())
        return save_checkpoint(path, self.tree, self.spec.name, self.seed, self.iterations,
                        self.seconds, self._rep.get_state(), curve)

    def result(self, interrupted=False, *, last=False):
        """A :class:`~solvers.SolveResult`: the policies, the curve ending at the current iteration.

        Parameters
        ----------
        interrupted : bool
            Recorded in the result (:func:`solvers.solve` sets it after Ctrl-C).
        last : bool
            The solve ends here (:func:`solvers.solve` passes True after its last checkpoint): a
            representation that can (``hand_over``: pieces) makes the policies out of its own
            arrays instead of copies; the solver cannot step or save after it, whatever its
            representation.
        """
        value, ev0 = self.evaluate()
        hand_over = getattr(self._rep, "hand_over", None) if last else None
        self._spent = self._spent or bool(last)
        if hand_over is not None:
            average, current = hand_over()
        else:
            average, current = self.average_policy(), self.current_policy()
        done = self.iterations
        curve = list(self._curve)
        if not curve or curve[-1][0] != done:
            curve.append((done, self.seconds, value))
        tree = self.tree
        return SolveResult(
            game_id=tree.game_id, algorithm=self.spec.name, iterations=done, seed=self.seed,
            average_policy=average, current_policy=current,
            curve_iterations=np.array([p[0] for p in curve], np.int64),
            curve_seconds=np.array([p[1] for p in curve], np.float64),
            curve_exploitability=np.array([p[2] for p in curve], np.float64),
            game_value=np.array([ev0, -ev0]),
            infoset_num_actions=_read_only(tree.infoset_num_actions),
            infoset_actions=_read_only(tree.infoset_actions),
            seconds=self.seconds, options=dict(self.options), interrupted=bool(interrupted),
            tree=tree)

    def _check_not_spent(self):
        if self._spent:
            raise RuntimeError("this solver gave its state to its last result (result(last=True)); "
                               "resume its checkpoint to go on")

    def __repr__(self):
        return (f"Solver({self.tree!r}, {self.spec.name!r}, iterations={self.iterations}, "
                f"{', '.join(f'{k}={v!r}' for k, v in self.options.items())})")


def _read_only(a):
    """A read-only view of the tree's table ``a`` for a result: not a copy (a large tree's table takes
    gigabytes, at the moment when the solve's state and policies are all held)."""
    view = a.view()
    view.flags.writeable = False
    return view
