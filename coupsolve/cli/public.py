"""The public tree in the command line: which builder counts and builds it, its count and memory, and
its build in pieces when the whole tree does not fit (:class:`~coupsolve.trees.pieces.build.PiecesPlan`).

:mod:`coupsolve.cli.solve` chooses the tree (``choose_tree``) with these; the budget and the throttled
progress lines are shared with it.
"""

from __future__ import annotations

import functools
import os
import sys
import time

from coupsolve.cli.args import CliError, solve_precision


def _fmt(n):
    from solvers.memory import format_bytes

    return format_bytes(n)


def _every(seconds, report):
    """``report``, called through at most once every ``seconds`` (progress lines, not a flood)."""
    last = [time.perf_counter()]

    def throttled(*args):
        now = time.perf_counter()
        if now - last[0] >= seconds:
            last[0] = now
            report(*args)
    return throttled


def _budget(args):
    """``(bytes, what)``: the memory a solve may take (``--max-memory``, else what is available) and
    how to name it."""
    from solvers.memory import available_bytes

    if args.max_memory:
        return args.max_memory, "--max-memory"
    return available_bytes(), "available"


#: ``--representation auto`` tries the public tree only for history trees up to this size, a count
#: of minutes: ``publicbuild``'s, which steps every history; the class walk's (which steps none) up to
#: the larger: turn limit 4 of the card-selection setup (3 billion histories) counts in about 25
#: minutes on 2 threads and is then built in pieces; turn limit 5 (8e10) is refused with what a
#: count would take.
AUTO_PUBLIC_MAX_HISTORIES = 200_000_000
AUTO_CLASS_MAX_HISTORIES = 5_000_000_000
#: Public counts' paces per history of the history tree, measured here on the card-selection setup:
#: ``publicbuild`` at turn limit 4, the class walk at turn limit 3 (107 s, 17 of 56 million pairs stepped).
PUBLIC_WALK_SECONDS_PER_HISTORY = 1.7e-6
CLASS_WALK_SECONDS_PER_HISTORY = 1.04e-6
#: Parts of the class walk's count (:func:`coupsolve.trees.classwalk.count.count_by_parts`, cut at the first level
#: of 32 nodes per part: level 12 of the selection setup at turn limit 4, 19,693 nodes).
COUNT_PARTS = 400


def _parts(args):
    """Parts of the class walk's count by parts, and of a build in pieces (``--pieces``)."""
    return getattr(args, "pieces", None) or COUNT_PARTS


def public_builder(rules):
    """``(name, why)``: the builder of ``rules``' public tree (the one place that chooses it): the class
    walk whenever :func:`coupsolve.trees.classwalk.state.supported` takes the rules, else ``publicbuild``;
    ``why`` is the class walk's refusal ('' when it builds)."""
    from coupsolve.trees.classwalk.state import supported

    why = supported(rules)
    return ("publicbuild" if why else "classbuild"), why


def builder_of(size):
    """The name of the public builder a count is of, or None for the history tree's count."""
    from coupsolve.trees.classwalk.build import ClassSize
    from coupsolve.trees.pieces.build import PiecesPlan
    from coupsolve.trees.stepwalk.build import PublicSize

    return {ClassSize: "classbuild", PublicSize: "publicbuild",
            PiecesPlan: "classpieces"}.get(type(size))


def _public_hint(rules, histories=None):
    """What ``--representation public`` would do for ``rules`` (and, given the history tree's size
    ``histories``, how long its count would take at the measured pace)."""
    name, why = public_builder(rules)
    pace = CLASS_WALK_SECONDS_PER_HISTORY if name == "classbuild" else PUBLIC_WALK_SECONDS_PER_HISTORY
    when = "" if histories is None else (f" (about {histories * pace / 60:,.0f} minutes here at the pace "
                                         f"measured at turn limit {3 if name == 'classbuild' else 4})")
    if name == "classbuild":
        return (f"--representation public counts the public tree by the class walk{when}; at turn "
                "limit 4 of the card-selection setup it counts in about 25 minutes on 2 threads "
                "(2.6 GiB), a 15.3 GiB tree which is then built in pieces: 13.6 GiB of pieces and "
                "keys, and a float32 solve of 5.7 GiB more")
    return (f"--representation public counts the public tree stepping every history, since the class "
            f"walk does not take {why}{when}; that walk of the card-selection setup at turn limit 4 "
            "was measured to need more than 14.5 GiB")


def measure_public(rules, args, out):
    """Count the public tree of ``rules`` with its builder (:func:`public_builder`, said in one line;
    progress, Ctrl-C) and print its size and memory. The class walk's count by parts is cached
    (:func:`coupsolve.trees.sizecache.lookup_public`: a count of this very code, unless ``--no-cache``):
    turn limit 4's takes 25 minutes, and ``info`` then ``solve`` count it once.

    Returns
    -------
    (ClassSize or PublicSize, peak bytes of a build and solve, budget in bytes or None)
    """
    from coupsolve.trees import sizecache

    name, why = public_builder(rules)
    budget, what = _budget(args)
    cache = name == "classbuild" and not getattr(args, "no_cache", False)
    size = sizecache.lookup_public(rules, _parts(args), cache)
    if size is not None:
        print(f"the public tree's count by the class walk: a cached count (counted in {size.seconds:.1f} "
              "s on an earlier run)", file=out)
    else:
        size = _count_public(rules, args, out, name, why)
        if cache:
            sizecache.remember_public(rules, _parts(args), size)
    peak = size.peak_bytes(solve_precision(args, False), getattr(args, "algorithm", "") == "pcfr+")
    print(size.describe(), file=out)
    if budget is not None:
        verdict = "fits" if peak <= budget else "does NOT fit"
        print(f"public tree memory: about {_fmt(peak)} at the peak of a build and solve; {what}: "
              f"{_fmt(budget)}: it {verdict}", file=out)
    return size, peak, budget


def _count_public(rules, args, out, name, why):
    """Count the public tree by the builder ``name`` (the class walk: by parts, on the threads asked
    for), with progress lines."""
    from coupsolve.cli.strategy import public_functions

    count = public_functions(name)[0]
    if name == "classbuild":
        print("counting the public tree by the class walk (no history is stepped; the first run "
              "compiles it; Ctrl-C stops) ...", file=out, flush=True)
        report = _every(5.0, lambda stage, done, total: print(
            f"  {stage}: {done:,} of {total:,}{' public nodes' if stage.startswith('level') else ''}",
            file=out, flush=True))
        # by parts: the same figures in far less memory, on the threads asked for
        count = functools.partial(count, split_depth="auto", parts=_parts(args),
                                  workers=getattr(args, "threads", None) or os.cpu_count() or 1)
    else:
        print(f"counting the public tree stepping every history (publicbuild; the class walk does not "
              f"take {why}; the first run compiles its walk; Ctrl-C stops) ...", file=out, flush=True)
        report = _every(5.0, lambda stage, done, total: print(f"  {done:,} histories walked", file=out,
                                                              flush=True))
    try:
        return count(rules, progress=report)
    except MemoryError as e:
        raise CliError(f"the public tree cannot even be counted here: {e}") from None


def _plan_pieces(size, args, out, budget, whole):
    """The build in pieces of the count ``size`` (two parts walked at a time when that fits), or a
    refusal with the figures."""
    from coupsolve.trees.classwalk.count import AUTO_NODES_PER_PART
    from coupsolve.trees.pieces.build import PiecesPlan

    precision = solve_precision(args, True)
    pred = getattr(args, "algorithm", "") == "pcfr+"
    workers = max(1, min(getattr(args, "threads", None) or os.cpu_count() or 1, 2))
    if not size.parts:
        raise CliError(f"no level of the public tree has {AUTO_NODES_PER_PART} x {_parts(args)} "
                       f"nodes to cut it into {_parts(args)} pieces at; try fewer --pieces")
    plan = PiecesPlan.of(size, workers)
    if budget is not None and plan.peak_bytes(precision, pred) > budget:
        plan = plan._replace(workers=1)
    peak = plan.peak_bytes(precision, pred)
    print(f"public tree {plan.describe()}; about {_fmt(peak)} at the peak of a build and solve "
          f"(whole: {_fmt(whole)})", file=out)
    if budget is not None and peak > budget:
        hint = "" if precision == "float32" else ", --precision float32"
        raise CliError(f"the public tree's build and solve need about {_fmt(peak)} in pieces "
                       f"({_fmt(whole)} whole), more than the {_fmt(budget)} of memory; try a lower "
                       f"--turn-limit{hint}")
    return plan


def progress_lines(out=None):
    """A ``progress(stage, done, total)`` that prints ``  stage: done of total`` to ``out`` (standard
    output by default) at most every 5 seconds."""
    return _every(5.0, lambda stage, done, total: print(f"  {stage}: {done:,} of {total:,}",
                                                        file=out or sys.stdout, flush=True))


def _build_pieces(rules, plan, out):
    """``(PublicPieces, ClassPieces)``: the public tree built in pieces as ``plan`` says."""
    from solvers import PublicPieces

    from coupsolve.trees.pieces.build import build_class_pieces

    print(f"building the public tree in {len(plan.bounds) - 1} pieces by the class walk, "
          f"{plan.workers} at a time (Ctrl-C stops) ...", file=out, flush=True)
    report = progress_lines(out)
    # the hands, keys, action ids and contexts wait on disk, written part by part, for the analysis
    built = build_class_pieces(rules, plan.depth, bounds=plan.bounds, workers=plan.workers,
                               progress=report, spill=True)
    tree = PublicPieces(rules.game_string(), built.trunk, built.parts, built.infoset_actions)
    return tree, built._replace(trunk=None, parts=[])  # the pieces are the tree's alone
