"""Where a solve in pieces spends its time, stage by stage, beside the last run's figures.

The turn-limit-4 path of ``coupsolve solve`` (``docs/howto/turn-limit-4.md``): the class walk's
count by parts (never read from a cache here), the build of the trunk and parts, CFR+ iterations
over the pieces (the first, which compiles, apart), one exact exploitability check, the exact
analysis of the pieces. Each stage's seconds are printed beside those of the last run with the same
turn limit, parts and threads (kept in ``benchmarks/results/stages.json``; the file is local, as
every result here), with the ratio, so that a change's effect on each stage is read off one table.
The count and the build run on ``--workers`` processes of the pool, the solve's passes on
``--threads`` numba threads.

Turn limit 3 takes minutes; ``--turn-limits 4`` about an hour and 16 GiB.
"""

from __future__ import annotations

import json
import time

from .common import (RESULTS, bench_parser, fmt_ratio, fmt_seconds, load_average, machine_line,
                     print_table, timed_main, write_csv)

STAGES = ("count", "build", "compile", "iteration", "check", "analysis")


def _parser():
    parser = bench_parser("stages", __doc__, "turn limit 2 with 8 parts and 5 iterations")
    parser.add_argument("--turn-limits", default="3", help="comma-separated (default: %(default)s)")
    parser.add_argument("--parts", type=int, default=None, help="pieces (default: 400, 8 with --quick)")
    parser.add_argument("--threads", type=int, default=2, help="the solve's numba threads")
    parser.add_argument("--workers", type=int, default=2, help="the count's and the build's workers")
    parser.add_argument("--iterations", type=int, default=10, help="timed CFR+ iterations")
    return parser


def _timed(fn):
    began = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - began


def stages(rules, parts, workers, threads, iterations):
    """Seconds of each stage of :data:`STAGES` (``iteration``: the median of ``iterations``)."""
    import statistics

    import solvers
    from coupsolve.analysis import analyse
    from coupsolve.trees.classwalk.count import count_class_tree
    from coupsolve.trees.pieces.build import PiecesPlan, build_class_pieces

    size, count_s = _timed(lambda: count_class_tree(rules, split_depth="auto", parts=parts,
                                                    workers=workers))
    plan = PiecesPlan.of(size, workers=workers)
    built, build_s = _timed(lambda: build_class_pieces(rules, plan.depth, bounds=plan.bounds,
                                                       workers=plan.workers))
    tree = solvers.PublicPieces(f"coup tl{rules.turn_limit}", built.trunk, built.parts,
                                built.infoset_actions)
    solver = solvers.Solver(tree, "cfr+", precision="float32", threads=threads)
    _, first = _timed(lambda: solver.step(1))
    each = [_timed(lambda: solver.step(1))[1] for _ in range(iterations)]
    _, check = _timed(solver.exploitability)
    _, analysis = _timed(lambda: analyse((tree, built), solver.average_policy()))
    median = statistics.median(each)
    return dict(count=count_s, build=build_s, compile=max(0.0, first - median), iteration=median,
                check=check, analysis=analysis)


def _history():
    path = RESULTS / "stages.json"
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return []


def run(args, info):
    """Time every stage; print them beside the last run's; returns the CSV's path."""
    from coupsolve import Rules

    history = _history()
    rows, csv_rows = [], []
    for tl in (int(x) for x in args.turn_limits.split(",")):
        parts = args.parts or (8 if args.quick else 400)
        key = dict(turn_limit=tl, parts=parts, threads=args.threads, workers=args.workers)
        last = next((h for h in reversed(history) if h["key"] == key), None)
        figures = stages(Rules.two_player_selection(turn_limit=tl), parts, args.workers,
                         args.threads, 5 if args.quick else args.iterations)
        history.append(dict(key=key, seconds=figures, date=time.strftime("%Y-%m-%d %H:%M"),
                            load=round(load_average(), 2)))
        for stage in STAGES:
            was = last["seconds"][stage] if last else float("nan")
            now = figures[stage]
            rows.append([f"TL{tl}", stage, fmt_seconds(now), fmt_seconds(was),
                         fmt_ratio(now / was) if last and was > 0 else "-"])
            csv_rows.append(dict(key, stage=stage, seconds=now, last_seconds=was))
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "stages.json").write_text(json.dumps(history, indent=1))
    print_table("A solve in pieces, stage by stage", ["game", "stage", "seconds", "last run", "ratio"],
                rows, note=f"{machine_line(info)}; load average {load_average():.2f}; "
                           f"{args.threads} threads, {args.workers} workers; last run: "
                           f"{last['date'] if last else 'none'}")
    return write_csv("stages", csv_rows, info)


def main(argv=None):
    timed_main(_parser(), argv, run)


if __name__ == "__main__":
    main()
