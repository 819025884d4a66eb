"""Hyperparameter schedules against the fixed ones: iterations and seconds to exploitability 1e-3 and
1e-4 for ``dcfr``, ``hs-dcfr``, ``pcfr+``, ``hs-pcfr+`` (and ``cfr+`` for reference), in one run.

Zhang, McAleer and Sandholm (2024), "Faster Game Solving via Hyperparameter Schedules",
arXiv:2404.09097. Every algorithm runs on the same history tree of each game, with alternating
updates in float64 on one thread, checked every ``CHECK_EVERY`` iterations (the clock runs only
during the iterations; a target counts at the first check at or below it). A case stops at the last
target, at ``--max-iterations`` or when its wall-clock budget is spent (``-`` in the table). The
public tree's iterates are the history tree's (``tests/test_solvers_public.py``), so its iteration
counts are the same: ``--tree public`` runs Coup on the public tree of the class walk instead
(turn limit 3 in a fraction of the history tree's time and memory), with ``--budget`` seconds per
case.
"""

from __future__ import annotations

import sys

from .common import Deadline, bench_parser, fmt_seconds, load_average, machine_info, print_table
from .common import machine_line, write_csv
from .games import all_games
from .target import TARGETS, chase

ALGORITHMS = ("dcfr", "hs-dcfr", "pcfr+", "hs-pcfr+", "cfr+")
GAMES = ("kuhn", "leduc", "liars_dice", "coup2")
CHECK_EVERY = {"kuhn": 10, "leduc": 10, "liars_dice": 10, "coup1": 10, "coup2": 20, "coup3": 20}


def _parser():
    parser = bench_parser("schedules", __doc__, "a 20 s budget per case instead of 60 s")
    parser.add_argument("--games", default=",".join(GAMES),
                        help=f"comma-separated, of {', '.join(CHECK_EVERY)} (default: %(default)s)")
    parser.add_argument("--max-iterations", type=int, default=20_000)
    parser.add_argument("--tree", choices=("history", "public"), default="history",
                        help="Coup's tree (the other games: always the history tree)")
    parser.add_argument("--budget", type=float, help="seconds per case (default: 60, 20 with --quick)")
    return parser


def _tree(game, kind):
    """The tree a case runs on: Coup's public tree of the class walk with ``kind == "public"``."""
    if kind == "history" or not game.is_coup:
        return game.tree()
    from coupsolve.trees.classwalk.build import build_class_tree
    from coupsolve.trees.classwalk.count import count_class_tree

    return build_class_tree(game.rules(), size=count_class_tree(game.rules())).tree


def _cell(reached, target):
    if target not in reached:
        return "-", "-"
    iterations, seconds = reached[target]
    return f"{iterations:,}", fmt_seconds(seconds)


def run(args, info):
    """Run every case; print the table; returns the CSV's path."""
    import solvers

    games = all_games()
    budget = args.budget or (20.0 if args.quick else 60.0)
    rows, csv_rows = [], []
    for key in args.games.split(","):
        game = games[key]
        tree = _tree(game, args.tree)
        print(f"{game.label}: {tree.num_nodes:,} {'histories' if args.tree == 'history' else 'nodes'}",
              file=sys.stderr, flush=True)
        for algorithm in ALGORITHMS:
            solver = solvers.Solver(tree, algorithm)
            solver.step(1)  # compiles (first run only): this first iteration is counted, not timed
            reached, done, value = chase(solver, CHECK_EVERY[key], Deadline(budget),
                                         args.max_iterations)
            reached = {t: (n + 1, s) for t, (n, s) in reached.items()}
            cells = [c for t in TARGETS for c in _cell(reached, t)]
            label = game.label + (" (public tree)" if args.tree == "public" and game.is_coup else "")
            rows.append([label, algorithm, *cells, f"{done + 1:,}", f"{value:.2e}"])
            csv_rows.append(dict(game=key, tree=args.tree, algorithm=algorithm, iterations_run=done + 1,
                                 final_exploitability=value,
                                 **{f"iterations_{t:g}": reached.get(t, ("",))[0] for t in TARGETS},
                                 **{f"seconds_{t:g}": reached.get(t, ("", ""))[1]
                                    for t in TARGETS}))
        game.drop_tree()
    columns = ["game", "algorithm"] + [f"{w} to {t:g}" for t in TARGETS
                                       for w in ("iterations", "seconds")]
    print_table("Iterations and seconds to exploitability 1e-3 and 1e-4",
                columns + ["iterations run", "last exploitability"], rows,
                note=f"{machine_line(info)}; load average {load_average():.2f}; "
                     f"budget {budget:.0f} s per case")
    return write_csv("schedules", csv_rows, info)


def main(argv=None):
    args = _parser().parse_args(argv)
    info = machine_info()
    print(f"load average at start {load_average():.2f}")
    print(f"written: {run(args, info)}")


if __name__ == "__main__":
    main()
