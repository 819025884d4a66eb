"""Per-iteration time, warm, of CFR+ in every library, side by side in one process.

For each game and solver: build the solver, run one iteration (numba
compiles or loads its cache here; compile time is measured separately in a
fresh process, see :mod:`benchmarks.probe`), pick a block of ``k``
iterations lasting about ``--block`` seconds, then time ``--repeats`` blocks.
The table gives the median, min and max seconds per iteration over the
blocks and the median's ratio to coupsolve's default (OpenSpiel-exact)
mode. OpenSpiel runs over the Python Coup game only where an iteration takes
seconds (turn limit 1); for turn limit 2 the expected time per iteration is
projected from turn limit 1 and the number of histories, and not run.
"""

from __future__ import annotations

import time

from . import adapters as A
from .common import (Stats, available_gib, fmt_ratio, fmt_seconds, load_average, print_table,
                     write_csv)

#: coupsolve modes timed on every game (precision, updates, threads).
MODES = (("float64", "alternating", 1), ("float32", "alternating", 1),
         ("float64", "simultaneous", 1), ("float32", "simultaneous", 1))
#: Added on trees of at least this many histories, where threads pay off.
PARALLEL_FROM = 1_000_000
PARALLEL_MODES = (("float64", "alternating", 2), ("float32", "alternating", 2))


def time_blocks(solver, repeats, block_seconds):
    """Warm up, choose a block size, time ``repeats`` blocks; returns (Stats, k, first)."""
    began = time.perf_counter()
    solver.step(1)
    first = time.perf_counter() - began
    began = time.perf_counter()
    solver.step(1)
    estimate = max(time.perf_counter() - began, 1e-9)
    k = max(1, int(block_seconds / estimate))
    per_iteration = []
    for _ in range(repeats):
        began = time.perf_counter()
        solver.step(k)
        per_iteration.append((time.perf_counter() - began) / k)
    return Stats(per_iteration), k, first


def _plan(game, options):
    """(library, options, note) rows to time for ``game``; note is set when not run."""
    plan = [(A.OURS, dict(precision=p, updates=u, threads=t), "") for p, u, t in MODES]
    tree_size = game.tree().num_nodes
    if tree_size >= PARALLEL_FROM and options.threads >= 2:
        plan += [(A.OURS, dict(precision=p, updates=u, threads=t), "")
                 for p, u, t in PARALLEL_MODES]
    big = game.is_coup and game.turn_limit >= 2
    for lib in (A.OS_CPP, A.OS_PY):
        plan.append((lib, {}, "not run: Python game too large (see projection)" if big else ""))
    ok, why = A.liteefg_available()
    if not ok:
        plan.append((A.LITEEFG, {}, f"not run: LiteEFG unavailable ({why})"))
    elif game.key == "coup3":
        plan.append((A.LITEEFG, {}, "not run: too large"))
    else:
        from_tree = big  # OpenSpielEnv's Python walk of 3M histories is too slow
        plan.append((A.LITEEFG, dict(threads=1, from_tree=from_tree), ""))
        if tree_size >= 100_000 and options.threads >= 2:
            plan.append((A.LITEEFG, dict(threads=2, from_tree=from_tree), ""))
    return plan


def run(games, options, info):
    """Time every solver on every game; print the table, write ``iteration.csv``."""
    rows, csv_rows = [], []
    per_history = {}  # (game, library) -> seconds per iteration per history (projections)
    for game in games:
        tree = game.tree()
        baseline = None
        for library, opts, note in _plan(game, options):
            row = dict(game=game.key, histories=tree.num_nodes, library=library,
                       algorithm="cfr+", mode=A.mode_label(**opts) if library == A.OURS else "",
                       load_before=round(load_average(), 2),
                       available_gib=round(available_gib(), 1))
            if note:
                projected = float("nan")
                ref = per_history.get(("coup1", library))
                if ref is not None and "projection" in note:
                    projected = ref * tree.num_nodes
                    note = f"not run: Python game; projected ~{fmt_seconds(projected)}/iteration"
                row.update(note=note, projected_seconds=projected)
                csv_rows.append(row)
                rows.append([game.key, f"{tree.num_nodes:,}", library, "cfr+", row["mode"],
                             "-", "-", "-", "-", "-", note])
                continue
            if library == A.LITEEFG and opts.get("from_tree"):
                note = "tree written from coupsolve (OpenSpielEnv's Python walk too slow)"
            began = time.perf_counter()
            try:
                solver = A.make(library, game, "cfr+", **opts)
            except MemoryError as exc:
                row.update(note=f"not run: {exc}")
                csv_rows.append(row)
                rows.append([game.key, f"{tree.num_nodes:,}", library, "cfr+", row["mode"],
                             "-", "-", "-", "-", "-", row["note"]])
                continue
            setup = time.perf_counter() - began
            if library != A.OURS and library != A.LITEEFG:
                row["mode"] = "-"
            elif library == A.LITEEFG:
                row["mode"] = solver.mode
            stats, k, first = time_blocks(solver, options.repeats, options.block)
            solver.close()
            del solver
            if library == A.OURS and row["mode"] == A.mode_label():
                baseline = stats.median
            if game.key == "coup1":
                per_history[(game.key, library)] = stats.median / tree.num_nodes
            ratio = stats.median / baseline if baseline else float("nan")
            row.update(iterations_per_block=k, repeats=stats.n, seconds_median=stats.median,
                       seconds_min=stats.min, seconds_max=stats.max, setup_seconds=setup,
                       first_iteration_seconds=first, ratio_to_coupsolve=ratio,
                       load_after=round(load_average(), 2), note=note)
            csv_rows.append(row)
            rows.append([game.key, f"{tree.num_nodes:,}", library, "cfr+", row["mode"],
                         fmt_seconds(stats.median), fmt_seconds(stats.min),
                         fmt_seconds(stats.max), f"{stats.n}x{k}",
                         "1x" if ratio == 1 else fmt_ratio(ratio), note])
        if game.key in ("coup2", "coup3"):
            game.drop_tree()
    print_table(
        "CFR+ seconds per iteration (warm)",
        ["game", "histories", "library", "alg.", "mode", "median", "min", "max",
         "blocks x iter.", "time / coupsolve", "note"], rows,
        note="mode: coupsolve precision / updates (alt: alternating, OpenSpiel-exact; sim: "
             "simultaneous) / threads; LiteEFG threads. `time / coupsolve` = median / "
             "coupsolve's median in its default mode (f64 alt 1T): how many times slower.")
    return write_csv("iteration", csv_rows, info), csv_rows
