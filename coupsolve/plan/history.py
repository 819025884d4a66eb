"""The history tree's size on a memory budget: known without counting when it can be, else counted
with a budget of histories, so that a tree that cannot fit is refused within seconds of passing the
budget, not after the whole count."""

from __future__ import annotations

from coupsolve.plan.options import PlanError, budget, every, fmt, precision_for, silent

__all__ = ["compile_needed", "measure_history", "say_compiling"]


def compile_needed() -> bool:
    """Whether the tree builder's kernel is compiled neither in this process nor in numba's disk cache."""
    from coupsolve.trees.history.builder import walk_compiled

    return not walk_compiled()


def say_compiling(say):
    """Say so before the tree builder's kernel is compiled (by a count, or by a build from a cached one)."""
    if compile_needed():
        say("compiling the tree builder (first run only, about a minute) ...")


def _too_large(at_least, room, what, source):
    from coupsolve.trees.history.size import MIN_BYTES_PER_HISTORY as least

    return PlanError(f"the tree has more than {at_least - 1:,} histories ({source}), so it needs more "
                     f"than {fmt(at_least * least)} (at least {least} bytes a history), more than the "
                     f"{fmt(room)} {what}; try a lower --turn-limit")


def _count(rules, max_nodes, cache, say):
    """Count the tree of ``rules`` with a budget of ``max_nodes`` histories (None: none), saying so first;
    the count, or the lower bound its budget proved (``TreeTooLarge``), goes into the cache if ``cache``."""
    from coupsolve.trees import sizecache
    from coupsolve.trees.builders import named
    from coupsolve.trees.history.size import TreeTooLarge

    say_compiling(say)
    say("counting the histories (Ctrl-C stops) ...")
    report = every(5.0, lambda n: n and say(f"  {n:,} histories so far"))
    try:
        size = named("history").count(rules, max_nodes=max_nodes, progress=report)
    except TreeTooLarge as e:
        if cache:
            sizecache.remember(rules, at_least=e.at_least)
        raise
    if cache:
        sizecache.remember(rules, size)
    return size


def _where(source, size):
    from coupsolve.trees import sizecache

    return {sizecache.COUNTED: f"counted in {size.seconds:.1f} s",
            sizecache.CACHED: f"a cached count (counted in {size.seconds:.1f} s on an earlier run)",
            sizecache.KNOWN: "a known size, packaged with coupsolve"}[source]


def measure_history(rules, options, say=silent, build=False):
    """Size the history tree of ``rules`` within the memory budget and say its size and memory.

    A size known without counting (:mod:`coupsolve.trees.sizecache`: a cached count, or the table of
    known sizes) answers at once, unless ``options.cache`` is off: a tree known to have more histories
    than the budget holds is refused before anything is counted. Otherwise the tree is counted with a
    budget, and the count (or the bound it proved) cached. With ``build``, the size returned is one the
    tree may be built from: a count of this very code (a cached or a fresh one), a known size of the
    table only when it does not fit (the caller then refuses it).

    Returns
    -------
    (TreeSize, (build, solve, peak) bytes, budget in bytes or None)

    Raises
    ------
    PlanError
        More histories than the budget holds.
    """
    from coupsolve.trees import sizecache
    from coupsolve.trees.history.size import MIN_BYTES_PER_HISTORY, TreeTooLarge, estimate_peak_bytes

    room, what = budget(options)
    max_nodes = None if room is None else room // MIN_BYTES_PER_HISTORY
    estimate = dict(precision=precision_for(options, "history"), predictive=options.predictive,
                    updates=options.updates, threads=options.threads or 1)
    say(f"rules: {rules}")
    known = sizecache.lookup(rules, options.cache)
    size, source = (None, None) if known is None else (known.size, known.source)
    if size is None and source is not None and max_nodes is not None and known.at_least > max_nodes:
        raise _too_large(known.at_least, room, what, source)
    if build and size is not None and source == sizecache.KNOWN and (
            room is None or estimate_peak_bytes(size, **estimate)[2] <= room):
        size = None  # it fits: built only from a count of this very code
    if size is None:
        try:
            size, source = _count(rules, max_nodes, options.cache, say), sizecache.COUNTED
        except TreeTooLarge as e:
            raise _too_large(e.at_least, room, what, "counted") from None
    need = estimate_peak_bytes(size, **estimate)
    say(f"tree ({_where(source, size)}): {size.describe()}; memory: about {fmt(need[0])} to build the "
        f"tree, {fmt(need[1])} for the solve, {fmt(need[2])} at the peak")
    if room is not None:
        verdict = "fits" if need[2] <= room else "does NOT fit"
        say(f"memory {what}: {fmt(room)}: a build and solve {verdict}")
    return size, need, room
