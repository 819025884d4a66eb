"""Run the benchmarks: ``python -m benchmarks.run`` (what ``make bench`` calls).

Benchmarks (``--only`` selects some, in this order):

``bandwidth``   memory bandwidth of this machine (the floor of the scaling table)
``iteration``   CFR+ seconds per iteration, warm: coupsolve (each mode), OpenSpiel
                C++ ``CFRPlusSolver``, OpenSpiel Python ``cfr.CFRPlusSolver``,
                LiteEFG CFR+, on the same machine in this process
``target``      solver seconds to exploitability 1e-3 and 1e-4, every algorithm
``build``       Coup tree build time and bytes per history, turn limits 1-3
``scaling``     per-iteration time from Kuhn to Coup turn limit 3, ns per history
                per pass against the bandwidth floor, peak memory of a solve
``profile``     each phase of a pass timed alone on the Coup trees larger than
                the caches, against the bandwidth (profile evidence of the limit)
``compile``     numba compile time on a fresh machine, and with the cache
``public``      the public-tree solver against the history solver on Coup turn limits
                1-3: build, memory, bytes per information set, CFR+ iteration
                (:mod:`benchmarks.public`)
``distributed`` the public-tree solver on a local Ray cluster against one process on
                the same cores, Coup turn limits 2-3 (:mod:`benchmarks.distributed`)

Run apart (an hour and 14 GiB; not in ``run``): :mod:`benchmarks.parts_profile` (turn limit 4's parts
timed one by one), :mod:`benchmarks.part_sample` (a sample of turn limit 5's parts counted) and
:mod:`benchmarks.cluster_plan` (the plan for k machines computed from both).

Every table is printed (Markdown) and written to ``benchmarks/results/*.csv``.
``--quick`` shrinks repeats, blocks and budgets and leaves out turn limit 3
(a smoke test of the whole pipeline in a few minutes).
"""

from __future__ import annotations

import argparse
import os
import time

from . import bandwidth, distributed, iteration, public, scaling, target
from .common import available_gib, load_average, machine_info, print_table
from .games import ORDER, all_games

BENCHMARKS = ("bandwidth", "iteration", "target", "build", "scaling", "profile", "compile", "public",
              "distributed")


def parse(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.run",
        description="coupsolve against OpenSpiel and LiteEFG, side by side on this machine.")
    parser.add_argument("--only", default=",".join(BENCHMARKS),
                        help=f"comma-separated subset of {', '.join(BENCHMARKS)}")
    parser.add_argument("--games", default=",".join(ORDER),
                        help=f"comma-separated subset of {', '.join(ORDER)}")
    parser.add_argument("--quick", action="store_true",
                        help="fewer repeats, short blocks and budgets, no turn limit 3")
    parser.add_argument("--repeats", type=int, default=None,
                        help="timed repeats per measurement (default 5; quick 3)")
    parser.add_argument("--repeats-large", type=int, default=None,
                        help="repeats on Coup turn limit 3 (default: --repeats)")
    parser.add_argument("--block", type=float, default=None,
                        help="seconds per timed block of iterations (default 0.3; quick 0.05)")
    parser.add_argument("--budget", type=float, default=None,
                        help="wall seconds per solver and game in `target` and `iteration` "
                             "(default 60; quick 10)")
    parser.add_argument("--docs", "--readme", dest="readme", action="store_true",
                        help="write the summary of the CSV files into docs/benchmarks.md")
    parser.add_argument("--threads", type=int, default=None,
                        help="most threads to use (default: all cores numba sees)")
    args = parser.parse_args(argv)
    import numba

    args.only = [x for x in args.only.split(",") if x]
    args.games = [x for x in args.games.split(",") if x]
    for name in args.only:
        if name not in BENCHMARKS:
            parser.error(f"unknown benchmark {name!r}")
    for name in args.games:
        if name not in ORDER:
            parser.error(f"unknown game {name!r}")
    if args.quick and "coup3" in args.games and "--games" not in " ".join(argv or []):
        args.games.remove("coup3")
    args.repeats = args.repeats or (3 if args.quick else 5)
    args.repeats_large = args.repeats_large or args.repeats
    args.block = args.block or (0.05 if args.quick else 0.3)
    args.budget = args.budget or (10.0 if args.quick else 60.0)
    args.threads = min(args.threads or numba.config.NUMBA_NUM_THREADS,
                       numba.config.NUMBA_NUM_THREADS)
    return args


def main(argv=None):
    args = parse(argv)
    info = machine_info()
    games_all = all_games()
    games = [games_all[key] for key in ORDER if key in args.games]
    began = time.perf_counter()
    print("## coupsolve benchmarks")
    print()
    print(f"Machine: {info['cpu']}, {info['cores']} cores ({info['numba_threads']} numba "
          f"threads), {info['memory_gib']} GiB, {info['os']}; Python {info['python']}")
    print("Versions: " + ", ".join(f"{k} {info[k]}" for k in
                                   ("coupsolve", "numpy", "numba", "llvmlite", "open_spiel",
                                    "LiteEFG")))
    print(f"Load average at start: {load_average():.2f}; memory available: "
          f"{available_gib():.1f} GiB; options: repeats={args.repeats}, block={args.block} s, "
          f"budget={args.budget} s, threads={args.threads}"
          + (", quick" if args.quick else ""))
    written = []
    measured_bandwidth = None
    per_iteration = None
    small = [g for g in games if g.key != "coup3"]
    if "bandwidth" in args.only or "scaling" in args.only or "profile" in args.only:
        path, measured_bandwidth = bandwidth.run(args, info)
        written.append(path)
    if "iteration" in args.only:
        path, per_iteration = iteration.run(small, args, info)
        written.append(path)
    if "target" in args.only:
        written.append(target.run(small, args, info, per_iteration)[0])
    for game in games:
        game.drop_tree()
    if "build" in args.only:
        written.append(scaling.run_build(games, args, info))
    if "scaling" in args.only:
        written.append(scaling.run_scaling(games, args, info, measured_bandwidth))
    if "profile" in args.only:
        written.append(scaling.run_profile(games, args, info, measured_bandwidth))
    if "compile" in args.only:
        written.append(scaling.run_compile(args, info))
    if "public" in args.only:
        written.append(public.run((1, 2) if args.quick else (1, 2, 3), public.with_defaults(args), info))
    if "distributed" in args.only:
        args.workers = 2
        written.append(distributed.run((2,) if args.quick else (2, 3), args, info))
    print_table("Files", ["CSV"], [[p] for p in written])
    from . import summary

    print("### Summary (`python -m benchmarks.summary`; `--docs` writes it into docs/benchmarks.md)")
    print()
    command = "python -m benchmarks.run " + " ".join(argv) if argv else "make bench"
    print(summary.summary(command=command))
    print()
    print(summary.public_summary())
    if args.readme:  # each block from its own CSV files only (a partial run keeps the others')
        written = summary.write_readme(command=command)
        print()
        print(f"docs/benchmarks.md: updated {', '.join(written) or 'nothing (no CSV files)'}.")
    print(f"Load average at end: {load_average():.2f}; total {time.perf_counter() - began:.0f} s "
          f"(`python -m benchmarks.run {' '.join(argv) if argv else ''}`)".rstrip())


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
