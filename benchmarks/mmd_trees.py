"""Magnetic Mirror Descent on the history tree and on the public tree of the same Coup game: seconds
per iteration, the step's scale ``max|A|``, the exploitability reached and the working memory.

Both trees run the same iterates (``tests/test_solvers_public_mmd.py``), so their exploitabilities
after the same iterations must agree; the first iteration (the compile, first run only) is not
timed. One thread, float64, the two-player card-selection setup.
"""

from __future__ import annotations

import time

from .common import bench_parser, load_average, machine_line, print_table, timed_main, write_csv


def _parser():
    parser = bench_parser("mmd_trees", __doc__, "turn limit 1 only")
    parser.add_argument("--iterations", type=int, default=50)
    parser.add_argument("--turn-limits", type=int, nargs="+", default=[2])
    return parser


def _timed(tree, spec, iterations):
    """``(solver, seconds per iteration)`` after ``iterations`` iterations, the first not timed."""
    import solvers

    solver = solvers.Solver(tree, spec)
    solver.step(1)
    t0 = time.perf_counter()
    solver.step(iterations - 1)
    return solver, (time.perf_counter() - t0) / max(1, iterations - 1)


def run(args, info):
    """Time both trees for ``mmd`` and ``mmd-qre``; print the table; returns the CSV's path."""
    import coupsolve
    from coupsolve.trees.classwalk.build import build_class_tree

    rows, csv_rows = [], []
    for k in [1] if args.quick else args.turn_limits:
        rules = coupsolve.Rules.two_player_selection(turn_limit=k)
        trees = {"history": coupsolve.build_coup_tree(rules).tree, "public": build_class_tree(rules).tree}
        for spec in ("mmd", "mmd-qre"):
            for name, tree in trees.items():
                solver, each = _timed(tree, spec, args.iterations)
                rep = solver.representation
                work = type(rep).estimate_bytes(tree, rep.spec, "float64", "simultaneous", 1)
                exploitability = solver.exploitability()
                rows.append([f"turn limit {k}", spec, name, f"{1e3 * each:.1f} ms", f"{rep.sf.scale:.6g}",
                             f"{exploitability:.6g}", f"{work / 2**20:.0f} MiB", f"{tree.nbytes / 2**20:.0f} MiB"])
                csv_rows.append(dict(turn_limit=k, spec=spec, tree=name, iterations=args.iterations,
                                     seconds=each, scale=rep.sf.scale, exploitability=exploitability,
                                     work_bytes=work, tree_bytes=tree.nbytes))
    print_table("MMD on the history tree and on the public tree (one thread, float64)",
                ["game", "run", "tree", "per iteration", "max|A|", "exploitability", "working memory",
                 "tree"], rows, note=f"{machine_line(info)}; load average {load_average():.2f}")
    return write_csv("mmd_trees", csv_rows, info)


def main(argv=None):
    timed_main(_parser(), argv, run)


if __name__ == "__main__":
    main()
