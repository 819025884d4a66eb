"""What a solve asks of the planner (:class:`Options`), the one rule of ``precision="auto"``, the
memory budget, and the throttle of progress lines its counts print through."""

from __future__ import annotations

import time
from dataclasses import dataclass

__all__ = ["ALGORITHM", "AUTO", "Options", "PlanError", "asked_precision", "budget", "every", "fmt", "precision_for",
           "progress_lines"]

#: The algorithm a Coup solve runs unless told: HS-DCFR, DCFR with the hyperparameter schedules of
#: Zhang, McAleer and Sandholm ("Faster game solving via hyperparameter schedules", arXiv:2404.09097),
#: which reaches a given exploitability in the fewest iterations on Coup at every turn limit measured
#: (docs/research/selection.md). ``solvers.solve`` keeps CFR+: on other games it is not the fastest.
ALGORITHM = "hs-dcfr"
#: ``precision="auto"``: float64 (OpenSpiel-exact), but float32 for a public tree held in pieces.
AUTO = "auto"
#: The trees a plan may choose (``representation``; ``auto`` chooses).
REPRESENTATIONS = ("auto", "history", "public", "pieces")


class PlanError(ValueError):
    """A tree that cannot be planned here (too large for the memory, or rules no builder takes): one
    line naming the figures and what to try."""


@dataclass(frozen=True)
class Options:
    """The options a plan is made from (the command line's, by name).

    Attributes
    ----------
    representation : {"auto", "history", "public", "pieces"}
        The tree asked for; ``auto``: the history tree when it fits, else the public tree, else its
        pieces.
    precision : {"auto", "float64", "float32"}
        The solve's reals; ``auto``: :func:`precision_for`.
    max_memory : int, optional
        Bytes the build and the solve may take (none: what is available now).
    threads : int, optional
        The solve's threads (none: the count by parts runs on every core, the estimates assume one).
    algorithm, updates : str
        The solve's algorithm (:data:`ALGORITHM` unless told; ``pcfr+`` keeps one more array) and
        updates.
    cache : bool
        Whether sizes known without counting are read and counts are remembered
        (:mod:`coupsolve.trees.sizecache`).
    parts : int, optional
        Parts of the class walk's count by parts and of a build in pieces (none: ``COUNT_PARTS``).
    ray : bool
        A solve on a Ray cluster: the public tree (whole or in pieces) unless pieces are asked for.
    """

    representation: str = "auto"
    precision: str = AUTO
    max_memory: int | None = None
    threads: int | None = None
    algorithm: str = ALGORITHM
    updates: str = "alternating"
    cache: bool = True
    parts: int | None = None
    ray: bool = False

    def __post_init__(self):
        if self.representation not in REPRESENTATIONS:
            raise PlanError(f"representation must be one of {', '.join(REPRESENTATIONS)}, got "
                            f"{self.representation!r}")
        if self.no_pieces and (self.representation == "pieces" or self.ray):
            what = "--ray" if self.ray else f"--representation {self.representation}"
            raise PlanError(f"--algorithm {self.algorithm} solves the history tree or the whole public "
                            f"tree (MMD has no representation in pieces): drop {what}")

    @property
    def no_pieces(self) -> bool:
        """Whether the algorithm solves no tree in pieces (MMD's family: the history tree and the whole
        public tree only)."""
        from solvers import ALGORITHMS

        return getattr(ALGORITHMS.get(self.algorithm), "family", None) == "mmd"

    @property
    def predictive(self) -> bool:
        """Whether the algorithm keeps a prediction (one more array per action): ``pcfr+`` and
        ``hs-pcfr+``, as its spec says."""
        from solvers import ALGORITHMS

        return bool(getattr(ALGORITHMS.get(self.algorithm), "predictive", False))


def precision_for(options: Options, tree: str) -> str:
    """The precision a solve of ``tree`` (``history``, ``public`` or ``pieces``) runs in: the one
    asked for, or under ``auto`` float64, and float32 for a tree held in pieces: that representation
    is the one memory decides, and float32 keeps every solve buffer in 4 bytes, still reaching
    exploitabilities far below 1e-3 (the figures: the docs' research notes). The one place ``auto``
    is resolved."""
    if options.precision != AUTO:
        return options.precision
    return "float32" if tree == "pieces" else "float64"


def asked_precision(options: Options) -> str:
    """The precision of the tree asked for, known before any count (what a warning up front names):
    the plan's own unless ``auto`` ends in pieces."""
    return precision_for(options, "pieces" if options.representation == "pieces" else "history")


def solve_threads(asked: int | None, ray: bool = False) -> tuple[int, str]:
    """The solve's threads and why: ``asked`` when given (``--threads`` wins), else one per core
    this process may run on (its CPU affinity), at most what numba has here and the history layout's
    parts. On a Ray cluster each worker takes one unless asked: the workers share the machine's cores.

    The public tree's iterates are the same on any number of threads; the history tree's sums in a
    thread-dependent order, so its figures move in the last digits with the threads (a solve is
    reproducible given its options, threads included).
    """
    if asked is not None:
        return int(asked), "--threads"
    if ray:
        return 1, "one per Ray worker"
    import os

    import numba
    from solvers.history.layout import PARTS

    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, min(cores, numba.config.NUMBA_NUM_THREADS, PARTS)), "the cores available"


def fmt(n) -> str:
    """Bytes as a short size (``1.50 GiB``)."""
    from solvers.memory import format_bytes

    return format_bytes(n)


def budget(options: Options) -> tuple:
    """``(bytes, what)``: the memory a solve may take (``max_memory``, else what is available) and how
    messages name it."""
    from solvers.memory import available_bytes

    if options.max_memory:
        return options.max_memory, "--max-memory"
    return available_bytes(), "available"


def every(seconds, report):
    """``report``, called through at most once every ``seconds`` (progress lines, not a flood)."""
    last = [time.perf_counter()]

    def throttled(*args):
        now = time.perf_counter()
        if now - last[0] >= seconds:
            last[0] = now
            report(*args)
    return throttled


def progress_lines(say):
    """A ``progress(stage, done, total)`` that says ``  stage: done of total`` at most every 5 s (``done``
    alone while the total is not known, as in a count)."""
    return every(5.0, lambda stage, done, total: say(f"  {stage}: {done:,}" + ("" if total is None else
                                                                              f" of {total:,}")))


def silent(line) -> None:
    """The default ``say``: nothing is said."""
    del line
