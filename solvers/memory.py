"""Memory estimates and the refuse-before-allocating check.

Every large allocation in :mod:`solvers` is preceded by an estimate of the
bytes it needs and a call to :func:`check_fits`, which compares that estimate
with the memory the operating system reports as available and raises
:class:`MemoryError` (naming both numbers) instead of letting the process be
killed half way through a build or a solve.

The bytes of a tree's arrays (layout in :mod:`solvers.trees.gametree`) are
:func:`estimate_tree_bytes`; the working memory of a solve is
:func:`estimate_solve_bytes` below.
"""

from __future__ import annotations

import ctypes
import functools
import gc
import os

import numpy as np

__all__ = [
    "available_bytes",
    "check_fits",
    "estimate_solve_bytes",
    "estimate_tree_bytes",
    "format_bytes",
    "release_free_memory",
    "releases_free_memory",
    "SOLVE_BYTES_PER_NODE",
    "SOLVE_BYTES_PER_INFOSET",
    "SOLVE_BYTES_PER_ACTION",
    "SOLVE_BYTES_PER_CHANCE_EDGE",
    "SOLVE_BYTES_PER_NONTERMINAL",
    "BYTES_PER_NODE",
    "BYTES_PER_INFOSET",
    "BYTES_PER_ACTION",
]

#: Bytes of a :class:`~solvers.trees.gametree.GameTree` per history: ``node_kind``,
#: ``node_player`` (int8), ``node_infoset`` (int32), ``child_start`` (int64),
#: ``num_children`` (int32), ``chance_prob``, ``payoff`` (float64).
BYTES_PER_NODE = 1 + 1 + 4 + 8 + 4 + 8 + 8
#: Per information set: ``infoset_player`` (int8), ``infoset_num_actions``
#: (int32), ``infoset_offset`` (int64).
BYTES_PER_INFOSET = 1 + 4 + 8
#: Per infoset action: ``infoset_actions`` (int32).
BYTES_PER_ACTION = 4


def _count(name, value):
    if int(value) != value or value < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    return int(value)


def estimate_tree_bytes(num_nodes, num_infosets, num_actions, depth=0):
    """Bytes the arrays of a :class:`~solvers.trees.gametree.GameTree` of this size occupy (keys not included).

    Parameters
    ----------
    num_nodes, num_infosets, num_actions : int
        Histories, information sets and (flat) infoset actions.
    depth : int
        Index of the deepest level (``level_start`` has ``depth + 2`` int64 entries).

    Returns
    -------
    int
        ``34 * num_nodes + 13 * num_infosets + 4 * num_actions + 8 * (depth + 2)``.
    """
    return (BYTES_PER_NODE * _count("num_nodes", num_nodes)
            + BYTES_PER_INFOSET * _count("num_infosets", num_infosets)
            + BYTES_PER_ACTION * _count("num_actions", num_actions)
            + 8 * (_count("depth", depth) + 2))

#: Working memory of a default solve (float64, alternating updates, one
#: thread) per history (node): the value buffer (float64, shared with the
#: exploitability evaluation) and the evaluation's reach and subtree-value
#: buffers (float64).
SOLVE_BYTES_PER_NODE = 3 * 8

#: Per non-terminal history: the solver layout (five uint32 indices: node,
#: first child, strategy or chance offset, parent slot, edge; see
#: :mod:`solvers.history.layout`), the counterfactual reach (float64) and the forward
#: pass's list of reached histories (uint32).
SOLVE_BYTES_PER_NONTERMINAL = 5 * 4 + 8 + 4

#: Per information set: the layout's first history, parent sequence (tree and
#: internal), history count, visiting order and internal offset, and their
#: copies in visiting order.
SOLVE_BYTES_PER_INFOSET = 6 * 8 + 3 * 4 + 8

#: Per action (flat): cumulative regret, cumulative (average-strategy)
#: weights, current strategy, the normalised average used for exploitability
#: checks, the best-response accumulator and the owner's sequence reach, all
#: float64, plus the layout's permutation (int64) and infoset of each action
#: (int32). Predictive algorithms add two float64 (regret terms, the strategy
#: just played) and parallel runs one float64 per thread (regret terms).
SOLVE_BYTES_PER_ACTION = 6 * 8 + 8 + 4

#: Bytes per chance edge (the layout's chance probabilities and their copy in
#: the solver's edge table).
SOLVE_BYTES_PER_CHANCE_EDGE = 16


def real_dtype(precision):
    """The NumPy type of a solve's reals (reach, values, regrets) in ``precision`` ('float64' or
    'float32'): the one place the bytes per real are decided."""
    return np.float32 if precision == "float32" else np.float64


def estimate_solve_bytes(num_nodes, num_infosets, num_actions, predictive=False, *,
                         precision="float64", updates="alternating", threads=1,
                         chance_edges=None, nonterminals=None, layout=True):
    """Bytes of working memory a :func:`solvers.solve` call allocates.

    Parameters
    ----------
    num_nodes, num_infosets, num_actions : int
        Number of histories, information sets and (flat) infoset actions of
        the tree (``tree.num_nodes``, ``tree.num_infosets``,
        ``tree.num_actions``).
    predictive : bool
        Whether the algorithm is predictive (``pcfr+``).
    precision, updates, threads
        As for :func:`solvers.solve`. ``"float32"`` stores the reach and value
        buffers of the passes in 4 bytes, but the exploitability evaluation
        then keeps its own float64 value buffer; simultaneous updates add a
        second reach per non-terminal.
    chance_edges, nonterminals : int, optional
        Number of edges out of chance nodes and of non-terminal histories;
        when unknown, ``num_nodes`` (upper bounds).
    layout : bool
        Count the solver layout (built once per tree and cached, so a second
        solve of the same tree does not allocate it again). Building it also
        needs 12 transient bytes per history, not counted here.

    Returns
    -------
    int
        Bytes, not counting the tree itself nor the two policy arrays copied
        into the returned :class:`solvers.SolveResult` (``16 * num_actions``).
    """
    for name, value in (("num_nodes", num_nodes), ("num_infosets", num_infosets),
                        ("num_actions", num_actions), ("threads", threads)):
        _count(name, value)
    if precision not in ("float64", "float32"):
        raise ValueError(f"precision must be 'float64' or 'float32', got {precision!r}")
    if updates not in ("alternating", "simultaneous"):
        raise ValueError(f"updates must be 'alternating' or 'simultaneous', got {updates!r}")
    real = np.dtype(real_dtype(precision)).itemsize
    per_node = SOLVE_BYTES_PER_NODE + (real if precision == "float32" else 0)
    per_nonterminal = 4 + real * (2 if updates == "simultaneous" else 1)
    per_action = 6 * 8 + 8 * ((2 if predictive else 0) + (threads if threads > 1 else 0))
    per_infoset = 0
    per_edge = 8
    if layout:
        per_nonterminal += 5 * 4
        per_action += 8 + 4
        per_infoset += SOLVE_BYTES_PER_INFOSET
        per_edge += 8
    edges = int(num_nodes) if chance_edges is None else int(chance_edges)
    nt = int(num_nodes) if nonterminals is None else int(nonterminals)
    return (int(num_nodes) * per_node + nt * per_nonterminal + int(num_actions) * per_action
            + int(num_infosets) * per_infoset + edges * per_edge)


def available_bytes():
    """Memory available for new allocations, in bytes, or ``None`` if unknown.

    Reads ``MemAvailable`` from ``/proc/meminfo`` (Linux); falls back to
    ``os.sysconf`` (free physical pages times the page size).
    """
    try:
        with open("/proc/meminfo", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    fields = line.split()
                    scale = 1024 if len(fields) > 2 and fields[2].lower() == "kb" else 1
                    return int(fields[1]) * scale
    except (OSError, ValueError, IndexError):
        pass
    try:
        pages = os.sysconf("SC_AVPHYS_PAGES")
        page_size = os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, OSError, ValueError):
        return None
    if pages < 0 or page_size <= 0:
        return None
    return int(pages) * int(page_size)


def format_bytes(num_bytes):
    """Human-readable byte count, e.g. ``'1.50 GiB'``."""
    value = float(num_bytes)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(value) < 1024.0 or unit == "TiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.2f} {unit}"
        value /= 1024.0
    raise AssertionError("unreachable")


def check_fits(bytes_needed, what):
    """Raise :class:`MemoryError` if ``bytes_needed`` exceeds available memory.

    Parameters
    ----------
    bytes_needed : int
        Estimated size of the allocation.
    what : str
        Description used in the message, e.g. ``"the game tree"``.

    Raises
    ------
    MemoryError
        Naming the estimate and the memory available, when it will not fit.
        Nothing is raised when the available memory cannot be determined.
    """
    if int(bytes_needed) != bytes_needed or bytes_needed < 0:
        raise ValueError(f"bytes_needed must be a non-negative integer, got {bytes_needed!r}")
    available = available_bytes()
    if available is not None and bytes_needed > available:
        raise MemoryError(
            f"{what} needs an estimated {format_bytes(bytes_needed)} "
            f"({int(bytes_needed)} bytes) but only {format_bytes(available)} "
            f"({available} bytes) of memory is available"
        )


def release_free_memory():
    """Give the memory that the C allocator holds free back to the operating system; True if it did.

    A builder that walks hundreds of parts on threads frees its scratch arrays into glibc's
    per-thread heaps, where they stay resident: a public tree built in hundreds of pieces left about
    half its own size more resident than it holds (docs/research/design-measurements.md). ``malloc_trim(0)`` returns those
    pages. Garbage held by reference cycles is collected first, so what only a cycle kept is given
    back too (elsewhere than glibc, only that, and it returns False).
    """
    gc.collect()
    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return False
    return bool(trim(0))


def releases_free_memory(function):
    """Decorator: :func:`release_free_memory` once ``function`` has returned (its temporaries freed)."""
    @functools.wraps(function)
    def wrapped(*args, **kwargs):
        try:
            return function(*args, **kwargs)
        finally:
            release_free_memory()
    return wrapped
