"""The size of a Coup tree before it is built: :class:`TreeSize` (from :func:`coupsolve.count_tree`) and
the memory a build of that size holds (:func:`estimate_build_bytes`; see :mod:`coupsolve.trees.history.builder`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from solvers.memory import BYTES_PER_ACTION, BYTES_PER_NODE, SOLVE_BYTES_PER_NODE, estimate_tree_bytes

from coupsolve.rules import Rules

__all__ = ["INFOSET_BUILD_BYTES", "INFOSET_DICT_BYTES", "MIN_BYTES_PER_HISTORY", "SizeMismatch", "TreeSize",
           "TreeTooLarge", "check_size",
           "estimate_build_bytes", "estimate_peak_bytes"]

INFOSET_DICT_BYTES = 64  # numba typed dict entry (key, value, hash, index) with slack for growth
#: The walk's bookkeeping per information set: the dictionary entry, the second hash (8), the owner (1),
#: the number of actions (4) and the representative history (8).
INFOSET_BUILD_BYTES = INFOSET_DICT_BYTES + 8 + 1 + 4 + 8


class TreeSize(NamedTuple):
    """The exact size of a Coup tree, from one counting walk (:func:`count_tree`).

    Pass it to :func:`coupsolve.build_tree` (or :func:`coupsolve.build_coup_tree`) so the build does
    not count again. ``infosets`` and ``infoset_actions`` are estimates (:mod:`coupsolve.trees.history.sketch`, about
    2% off) that the memory estimates use; the other fields are exact.
    """

    rules: Rules
    nodes: int
    decision_nodes: int
    decision_children: int
    levels: np.ndarray  # int64: histories per level
    seconds: float  # of the counting walk
    infosets: int = 0  # estimated; 0: unknown (the memory estimates then take decision_nodes)
    infoset_actions: int = 0  # estimated; 0: unknown (then decision_children)
    chance_nodes: int = -1  # -1: unknown (the memory estimates then take nodes as an upper bound)
    chance_edges: int = -1

    def peak_bytes(self, precision: str = "float64", predictive: bool = False, **options) -> int:
        """The peak of :func:`estimate_peak_bytes` (``options``: its ``updates`` and ``threads``)."""
        return estimate_peak_bytes(self, precision=precision, predictive=predictive, **options)[2]

    def describe(self) -> str:
        """One line of the count's figures."""
        return (f"{self.nodes:,} histories ({self.decision_nodes:,} decisions) in {len(self.levels)} "
                f"levels, about {self.infosets:,} information sets")


class SizeMismatch(ValueError):
    """The size a build was given is not its tree's (a damaged size cache, a size of other code):
    the walk found more histories, decisions or actions than the size allots, or fewer."""


def check_size(size):
    """Refuse a size whose fields cannot describe a tree (before anything is allocated from it)."""
    levels = np.asarray(size.levels)
    numbers = (size.nodes, size.decision_nodes, size.decision_children)
    if not (levels.ndim == 1 and levels.dtype.kind in "iu" and levels.size >= 1 and int(levels[0]) == 1
            and bool(np.all(levels >= 0)) and all(isinstance(x, (int, np.integer)) for x in numbers)
            and int(levels.sum()) == size.nodes >= 1 and 0 <= size.decision_nodes <= size.nodes
            and size.decision_children >= 0):
        raise SizeMismatch(f"the size given for the tree of {size.rules} is not a tree's (levels "
                           "not adding up to the histories, a negative or missing count)")


class TreeTooLarge(MemoryError):
    """The counting walk passed its budget of histories (``at_least``: the histories it had counted)."""

    def __init__(self, message, at_least):
        super().__init__(message)
        self.at_least = at_least


def estimate_build_bytes(size: TreeSize, context: bool = False) -> int:
    """Bytes a build of a tree of this size holds at its peak (the estimate of the module docstring).

    Parameters
    ----------
    size : TreeSize
        From :func:`count_tree` (its estimated information sets and actions; the decision nodes and
        their children, upper bounds, when those are unknown).
    context : bool
        Whether the build records the node context (4 bytes per history).
    """
    i = size.infosets or size.decision_nodes
    a = size.infoset_actions or size.decision_children
    tree = estimate_tree_bytes(size.nodes, i, a, len(size.levels))
    return tree + i * INFOSET_BUILD_BYTES + BYTES_PER_ACTION * a + (4 * size.nodes if context else 0)


#: A lower bound of the bytes a solve from the command line takes per history, whatever its options:
#: the tree's node arrays, the node context and a solve's per-history buffers.
MIN_BYTES_PER_HISTORY = BYTES_PER_NODE + 4 + SOLVE_BYTES_PER_NODE


def estimate_peak_bytes(size: TreeSize, *, context: bool = True, predictive: bool = False,
                        precision: str = "float64", updates: str = "alternating",
                        threads: int = 1) -> tuple[int, int, int]:
    """``(build, solve, peak)``: the bytes a build, a solve's working memory and the whole run hold.

    The peak is the larger of the build's (:func:`estimate_build_bytes`) and the solve's (the tree,
    its node context and ``solvers.estimate_solve_bytes`` with the estimated information sets and
    actions). Within 25% of the measured peak (``tests/test_memory_estimate.py``).

    Parameters
    ----------
    size : TreeSize
    context : bool
        Whether the tree records the node context (the analysis needs it).
    predictive, precision, updates, threads
        The solve's options, as for ``solvers.estimate_solve_bytes``.
    """
    from solvers.memory import estimate_solve_bytes

    i = size.infosets or size.decision_nodes
    a = size.infoset_actions or size.decision_children
    build = estimate_build_bytes(size, context)
    tree = estimate_tree_bytes(size.nodes, i, a, len(size.levels)) + (4 * size.nodes if context else 0)
    known = size.chance_nodes >= 0
    solve = estimate_solve_bytes(size.nodes, i, a, predictive, precision=precision, updates=updates,
                                 threads=threads, chance_edges=size.chance_edges if known else None,
                                 nonterminals=size.decision_nodes + size.chance_nodes if known else None)
    return build, solve, max(build, tree + solve)
