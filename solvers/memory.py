"""Memory estimates and the refuse-before-allocating check.

Every large allocation in :mod:`solvers` is preceded by an estimate of the
bytes it needs and a call to :func:`check_fits`, which compares that estimate
with the memory the operating system reports as available and raises
:class:`MemoryError` (naming both numbers) instead of letting the process be
killed half way through a build or a solve.

The per-history / per-infoset / per-action byte counts of a tree are defined
next to the array layout in :mod:`solvers.tree`; the working memory of a solve
is :func:`estimate_solve_bytes` below.
"""

from __future__ import annotations

import os

__all__ = [
    "available_bytes",
    "check_fits",
    "estimate_solve_bytes",
    "format_bytes",
    "SOLVE_BYTES_PER_NODE",
    "SOLVE_BYTES_PER_INFOSET",
    "SOLVE_BYTES_PER_ACTION",
]

#: Working memory of a solve per history (node): reach of player 0, reach of
#: player 1, chance reach and the node value, all float64.  The exploitability
#: evaluation reuses these four buffers.
SOLVE_BYTES_PER_NODE = 4 * 8

#: Per information set: first-node index (int64) for the best response;
#: predictive algorithms add two more int64 (first node, parent sequence).
SOLVE_BYTES_PER_INFOSET = 8

#: Per action (flat, aligned with ``infoset_offset``): cumulative regret,
#: cumulative (average-strategy) weights, current strategy, the normalised
#: average used for exploitability checks and the best-response accumulator,
#: all float64; predictive algorithms add one more (the instantaneous regret).
SOLVE_BYTES_PER_ACTION = 5 * 8


def estimate_solve_bytes(num_nodes, num_infosets, num_actions, predictive=False):
    """Bytes of working memory a :func:`solvers.solve` call allocates.

    Parameters
    ----------
    num_nodes, num_infosets, num_actions : int
        Number of histories, information sets and (flat) infoset actions of
        the tree (``tree.num_nodes``, ``tree.num_infosets``,
        ``tree.num_actions``).
    predictive : bool
        Whether the algorithm is predictive (``pcfr+``).

    Returns
    -------
    int
        Bytes, not counting the tree itself nor the two policy arrays copied
        into the returned :class:`solvers.SolveResult` (``16 * num_actions``).
    """
    for name, value in (("num_nodes", num_nodes), ("num_infosets", num_infosets),
                        ("num_actions", num_actions)):
        if int(value) != value or value < 0:
            raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    per_action = SOLVE_BYTES_PER_ACTION + (8 if predictive else 0)
    per_infoset = SOLVE_BYTES_PER_INFOSET + (16 if predictive else 0)
    return (int(num_nodes) * SOLVE_BYTES_PER_NODE
            + int(num_infosets) * per_infoset
            + int(num_actions) * per_action)


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
