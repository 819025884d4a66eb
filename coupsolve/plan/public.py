"""The public tree's size on a memory budget: counted by its builder (the class walk when it takes the
rules, by parts; else stepping every history), and planned in pieces when the whole tree does not
fit (:class:`~coupsolve.trees.pieces.build.PiecesPlan`)."""

from __future__ import annotations

import os

from coupsolve.plan.options import PlanError, budget, every, fmt, precision_for, silent

__all__ = ["AUTO_CLASS_MAX_HISTORIES", "AUTO_PUBLIC_MAX_HISTORIES", "COUNT_PARTS", "measure_public",
           "plan_pieces", "public_hint"]

#: ``representation="auto"`` tries the public tree only for history trees up to these sizes, whose
#: public count takes minutes, not hours (at the paces below): stepping every history, and the class
#: walk (which steps none; its larger trees are then built in pieces).
AUTO_PUBLIC_MAX_HISTORIES = 200_000_000
AUTO_CLASS_MAX_HISTORIES = 5_000_000_000
#: Seconds a public count takes per history of the history tree, by builder: the estimate behind the
#: time a message gives for a count (the measurements: benchmarks/ and the docs' research notes).
SECONDS_PER_HISTORY = {"publicbuild": 1.7e-6, "classbuild": 1.04e-6}
#: Parts of the class walk's count by parts (:func:`coupsolve.trees.classwalk.count.count_by_parts`),
#: and of a build in pieces: the cut is the first level of 32 nodes per part.
COUNT_PARTS = 400


def parts_of(options) -> int:
    """Parts of the class walk's count by parts, and of a build in pieces."""
    return options.parts or COUNT_PARTS


def _minutes(builder, histories) -> str:
    """`` (about N minutes here ...)``: the estimated time of a public count of a tree of ``histories``."""
    if histories is None:
        return ""
    minutes = histories * SECONDS_PER_HISTORY.get(builder.name, max(SECONDS_PER_HISTORY.values())) / 60
    return f" (about {minutes:,.0f} minutes here, estimated from its {histories:,} histories)"


def public_hint(rules, histories=None, options=None) -> str:
    """What ``--representation public`` would do for ``rules``: which builder counts the public tree,
    how long that count would take for a history tree of ``histories`` (estimated), and, when a count
    of it is cached, the memory of its build and solve, whole and in pieces (estimated from it)."""
    from coupsolve.plan.options import Options
    from coupsolve.trees import sizecache
    from coupsolve.trees.builders import public_builder

    options = options or Options()
    builder, why = public_builder(rules)
    when = _minutes(builder, histories)
    if builder.name != "classbuild":
        return (f"--representation public counts the public tree stepping every history, since the "
                f"class walk does not take {why}{when}; that walk holds every public node's entries "
                "while it counts")
    text = f"--representation public counts the public tree by the class walk{when}"
    size = sizecache.lookup_public(rules, parts_of(options), options.cache)
    if size is None:
        return text + "; it builds the tree whole when it fits the memory, else in pieces"
    whole = size.peak_bytes(precision_for(options, "public"), options.predictive)
    text += f"; its cached count: {fmt(whole)} at the peak of a build and solve whole"
    if size.parts:
        from coupsolve.trees.pieces.build import PiecesPlan

        plan = PiecesPlan.of(size, 1)
        text += (f", {fmt(plan.peak_bytes(precision_for(options, 'pieces'), options.predictive))} "
                 f"in pieces ({fmt(plan.tree_bytes())} of pieces and keys)")
    return text


def measure_public(rules, options, say=silent, known=False):
    """Count the public tree of ``rules`` with its builder (said in one line; progress, Ctrl-C) and say
    its size and memory. The class walk's count by parts is cached
    (:func:`coupsolve.trees.sizecache.lookup_public`: a count of this very code, unless
    ``options.cache`` is off): ``info`` then ``solve`` count it once. With ``known`` (``info``, which
    builds nothing), a count of the packaged table answers too.

    Returns
    -------
    (ClassSize or PublicSize, peak bytes of a build and solve, budget in bytes or None)
    """
    from coupsolve.trees import sizecache
    from coupsolve.trees.builders import public_builder

    builder, why = public_builder(rules)
    room, what = budget(options)
    cache = builder.name == "classbuild" and options.cache
    found = sizecache.lookup_public_source(rules, parts_of(options), cache, known)
    size = None if found is None else found[0]
    if size is not None:
        say("the public tree's count by the class walk: " + (
            f"a cached count (counted in {size.seconds:.1f} s on an earlier run)" if found[1] == sizecache.CACHED
            else f"a known count, packaged with coupsolve (counted in {size.seconds / 60:.0f} minutes)"))
    else:
        size = _count_public(rules, options, say, builder, why)
        if cache:
            sizecache.remember_public(rules, parts_of(options), size)
    peak = size.peak_bytes(precision_for(options, "public"), options.predictive)
    say(size.describe())
    if room is not None:
        verdict = "fits" if peak <= room else "does NOT fit"
        say(f"public tree memory: about {fmt(peak)} at the peak of a build and solve; {what}: "
            f"{fmt(room)}: it {verdict}")
    return size, peak, room


def _count_public(rules, options, say, builder, why):
    """Count the public tree by ``builder`` (the class walk: by parts, on the threads asked for), with
    progress lines."""
    if builder.name == "classbuild":
        say("counting the public tree by the class walk (no history is stepped; the first run compiles "
            "it; Ctrl-C stops) ...")
        report = every(5.0, lambda stage, done, total: say(
            f"  {stage}: {done:,} of {total:,}{' public nodes' if stage.startswith('level') else ''}"))
        # by parts: the same figures in far less memory, on the threads asked for
        kw = dict(split_depth="auto", parts=parts_of(options),
                  workers=options.threads or os.cpu_count() or 1)
    else:
        say(f"counting the public tree stepping every history (publicbuild; the class walk does not "
            f"take {why}; the first run compiles its walk; Ctrl-C stops) ...")
        report = every(5.0, lambda stage, done, total: say(f"  {done:,} histories walked"))
        kw = {}
    try:
        return builder.count(rules, progress=report, **kw)
    except MemoryError as e:
        raise PlanError(f"the public tree cannot even be counted here: {e}") from None


def plan_pieces(size, options, say=silent, room=None, whole=None):
    """The build in pieces of the count by parts ``size`` (two parts walked at a time when that fits),
    or a :class:`PlanError` with the figures."""
    from coupsolve.trees.classwalk.count import AUTO_NODES_PER_PART
    from coupsolve.trees.pieces.build import PiecesPlan

    precision = precision_for(options, "pieces")
    parts = parts_of(options)
    workers = max(1, min(options.threads or os.cpu_count() or 1, 2))
    if not size.parts:
        raise PlanError(f"no level of the public tree has {AUTO_NODES_PER_PART} x {parts} nodes to cut "
                        f"it into {parts} pieces at; try fewer --pieces")
    plan = PiecesPlan.of(size, workers)
    if room is not None and plan.peak_bytes(precision, options.predictive) > room:
        plan = plan._replace(workers=1)
    peak = plan.peak_bytes(precision, options.predictive)
    say(f"public tree {plan.describe()}; about {fmt(peak)} at the peak of a build and solve "
        f"(whole: {fmt(whole)})")
    if room is not None and peak > room:
        hint = "" if precision == "float32" else ", --precision float32"
        raise PlanError(f"the public tree's build and solve need about {fmt(peak)} in pieces "
                        f"({fmt(whole)} whole), more than the {fmt(room)} of memory; try a lower "
                        f"--turn-limit{hint}")
    return plan
