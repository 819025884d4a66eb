"""Solver seconds to reach exploitability 1e-3 and 1e-4, every algorithm of every library.

Every solver runs ``check_every`` iterations at a time and its average
strategy is evaluated with the library's own exploitability (OpenSpiel's
convention, NashConv / 2) between blocks; the clock only runs during the
iterations. A target counts as reached at the first check at or below it, so
every library is checked on the same schedule. Runs stop at the last target
or when the case's wall-clock budget (``--budget``, which also pays for the
checks) is spent. coupsolve's runs are repeated ``--repeats`` times (median,
min, max); a slower library's run is repeated only while the repeats fit in
the budget.

coupsolve's ``cfr`` and ``cfr+`` (default mode) reproduce OpenSpiel's
``CFRSolver``/``CFRPlusSolver`` iterates (and ``lcfr``/``dcfr`` OpenSpiel
Python's), so they need the same number of iterations; where OpenSpiel was
not run or ran out of budget, the table also gives the projection "our
iterations x OpenSpiel's measured seconds per iteration".
"""

from __future__ import annotations

import math
import time

from . import adapters as A
from .common import Deadline, Stats, fmt_seconds, load_average, print_table, write_csv

TARGETS = (1e-3, 1e-4)
CHECK_EVERY = {"kuhn": 10, "leduc": 10, "liars_dice": 10, "coup1": 10, "coup2": 20}
#: Exact-parity algorithms: (library, algorithm) -> our algorithm with the same iterates.
PARITY = {(A.OS_CPP, "cfr"): "cfr", (A.OS_CPP, "cfr+"): "cfr+", (A.OS_PY, "cfr"): "cfr",
          (A.OS_PY, "cfr+"): "cfr+", (A.OS_PY, "lcfr"): "lcfr", (A.OS_PY, "dcfr"): "dcfr"}
#: OpenSpiel over the Python Coup game: run only for projections' per-iteration time.
OPENSPIEL_SKIP = {"coup1", "coup2", "coup3"}
#: Their exploitability over the Python Coup game takes half a minute at turn limit 1.


def chase(solver, check_every, deadline, max_iterations=10 ** 9):
    """Run to the targets; returns ({target: (iterations, seconds)}, iterations, last value)."""
    seconds, done, reached, value = 0.0, 0, {}, float("nan")
    while True:
        began = time.perf_counter()
        solver.step(check_every)
        seconds += time.perf_counter() - began
        done += check_every
        value = solver.exploitability()
        for target in TARGETS:
            if target not in reached and value <= target:
                reached[target] = (done, seconds)
        if len(reached) == len(TARGETS) or deadline.expired or done >= max_iterations:
            return reached, done, value


def _cases(game, options):
    cases = [(A.OURS, alg, dict(A.DEFAULT_MODE)) for alg in A.ALGORITHMS[A.OURS]]
    cases.append((A.OURS, "cfr+", dict(precision="float32", updates="alternating", threads=1)))
    cases.append((A.OURS, "cfr+", dict(precision="float64", updates="simultaneous", threads=1)))
    cases.append((A.OURS, "pcfr+", dict(precision="float64", updates="simultaneous", threads=1)))
    if game.tree().num_nodes >= 1_000_000 and options.threads >= 2:
        cases.append((A.OURS, "cfr+", dict(precision="float64", updates="alternating",
                                           threads=2)))
        cases.append((A.OURS, "cfr+", dict(precision="float32", updates="alternating",
                                           threads=2)))
    if game.key not in OPENSPIEL_SKIP:
        cases += [(A.OS_CPP, alg, {}) for alg in A.ALGORITHMS[A.OS_CPP]]
        cases += [(A.OS_PY, alg, {}) for alg in A.ALGORITHMS[A.OS_PY]]
    ok, _ = A.liteefg_available()
    if ok and game.key != "coup3":
        from_tree = game.is_coup and game.turn_limit >= 2
        cases += [(A.LITEEFG, alg, dict(threads=1, from_tree=from_tree))
                  for alg in A.ALGORITHMS[A.LITEEFG]]
    return cases


def _repeats(game, library, algorithm, opts, mode, check_every, options):
    """Chase the targets up to ``options.repeats`` times within the budget.

    Returns ``(reached per run, (last iteration, last exploitability), mode label)``.
    """
    deadline = Deadline(options.budget)
    results = []
    final = (0, float("nan"))
    for _ in range(options.repeats):
        started = time.perf_counter()
        try:
            solver = A.make(library, game, algorithm, **opts)
        except MemoryError as exc:
            return results, (0, float("nan")), f"not run: {exc}"
        if library == A.LITEEFG:
            mode = solver.mode
        reached, done, value = chase(solver, check_every, deadline)
        solver.close()
        del solver
        results.append(reached)
        final = (done, value)
        spent = time.perf_counter() - started
        if deadline.left < spent or len(reached) < len(TARGETS):
            break
    return results, final, mode


def _projections(game, num_nodes, speed, ours_iterations, rows, csv_rows):
    """Rows of OpenSpiel's solvers on a Coup game they are not run on: projected times only."""
    for library in (A.OS_CPP, A.OS_PY):
        for algorithm in A.ALGORITHMS[library]:
            ours_alg = PARITY.get((library, algorithm))
            per_it = speed.get((game.key, library))
            if per_it is None:
                coup1 = speed.get(("coup1", library))
                if coup1 is not None and game.key != "coup1":
                    per_it = coup1 * num_nodes / 63_973
            cells = []
            row = dict(game=game.key, histories=num_nodes, library=library,
                       algorithm=algorithm, mode="not run (Python game)", repeats=0)
            for target in TARGETS:
                its = ours_iterations.get(ours_alg, {}).get(target)
                key = f"{target:.0e}"
                if its is not None and per_it is not None:
                    row[f"projected_seconds_{key}"] = its * per_it
                    cells += [f"{its:,}", f"projected ~{fmt_seconds(its * per_it)}", "-"]
                else:
                    cells += ["-", "not run", "-"]
            csv_rows.append(row)
            rows.append([game.key, library, algorithm, "not run (Python game)", *cells, "0", "-"])


def run(games, options, info, per_iteration=None):
    """Chase the targets on every game; print the table, write ``target.csv``.

    ``per_iteration`` are the rows of :mod:`benchmarks.iteration` (for the
    projections of OpenSpiel's times).
    """
    speed = {}
    for row in per_iteration or ():
        if row.get("seconds_median") is not None and row["library"] in (A.OS_CPP, A.OS_PY):
            speed[(row["game"], row["library"])] = row["seconds_median"]
    rows, csv_rows = [], []
    for game in games:
        if game.key == "coup3":
            continue
        tree = game.tree()
        check_every = CHECK_EVERY.get(game.key, 20)
        ours_iterations = {}  # algorithm -> {target: iterations} (default mode)
        for library, algorithm, opts in _cases(game, options):
            mode = A.mode_label(**opts) if library == A.OURS else ""
            results, final, mode = _repeats(game, library, algorithm, opts, mode, check_every,
                                            options)
            if library == A.OURS and opts == A.DEFAULT_MODE and results:
                ours_iterations[algorithm] = {t: r[0] for t, r in results[0].items()}
            cells = []
            row = dict(game=game.key, histories=tree.num_nodes, library=library,
                       algorithm=algorithm, mode=mode, check_every=check_every,
                       repeats=len(results), final_iterations=final[0],
                       final_exploitability=final[1], load=round(load_average(), 2))
            for target in TARGETS:
                times = [r[target][1] for r in results if target in r]
                its = [r[target][0] for r in results if target in r]
                projected = float("nan")
                ours_alg = PARITY.get((library, algorithm))
                per_it = speed.get((game.key, library))
                if ours_alg and per_it and target in ours_iterations.get(ours_alg, {}):
                    projected = ours_iterations[ours_alg][target] * per_it
                key = f"{target:.0e}"
                if times:
                    stats = Stats(times)
                    row.update({f"iterations_{key}": its[0], f"seconds_{key}_median": stats.median,
                                f"seconds_{key}_min": stats.min, f"seconds_{key}_max": stats.max})
                    cells += [f"{its[0]:,}", fmt_seconds(stats.median),
                              f"{fmt_seconds(stats.min)} .. {fmt_seconds(stats.max)}"]
                else:
                    text = f"> {fmt_seconds(options.budget)} budget" if results else "not run"
                    if not math.isnan(projected):
                        text += f"; projected ~{fmt_seconds(projected)}"
                    cells += ["-", text, "-"]
                row[f"projected_seconds_{key}"] = projected
            csv_rows.append(row)
            rows.append([game.key, library, algorithm, mode, *cells, str(len(results)),
                         f"{final[1]:.2e} @ {final[0]:,}"])
        if game.key == "coup2":
            game.drop_tree()
        if game.key in OPENSPIEL_SKIP:  # OpenSpiel on Coup: projections only
            _projections(game, tree.num_nodes, speed, ours_iterations, rows, csv_rows)
    columns = ["game", "library", "alg.", "mode"]
    for target in TARGETS:
        columns += [f"iter. {target:.0e}", f"s to {target:.0e}", "min .. max"]
    columns += ["runs", "last expl. @ iter."]
    print_table("Solver seconds to reach exploitability 1e-3 and 1e-4", columns, rows,
                note="Exploitability = NashConv / 2 by each library's own evaluator, checked "
                     "every `check_every` iterations (10; 20 for coup2), check time excluded. "
                     "`projected` = iterations coupsolve's matching algorithm needed x the "
                     "library's measured seconds per iteration (exact for OpenSpiel Python, "
                     "whose iterates coupsolve reproduces; approximate for OpenSpiel C++, whose "
                     "CFR+ iterates differ slightly). LiteEFG averages the strategies after each "
                     "update (not the uniform first one), so its iteration counts differ.")
    return write_csv("target", csv_rows, info), csv_rows
