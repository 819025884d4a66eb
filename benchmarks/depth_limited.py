"""The depth-limited game against the plain turn-limit game of the same depth: histories, bytes and
seconds per CFR+ iteration, as ratios in one run.

The continuation choices are grafted onto the cut tree as decision nodes (``solvers.trees.leaves``):
``K + K**2`` histories per leaf, so the cost grows with the leaves and with K. The leaf values here
are exact, from a CFR+ strategy of the game one turn longer (their seconds are reported apart, as is
the compile: the first iteration is not timed).
"""

from __future__ import annotations

import sys
import time

from .common import bench_parser, load_average, machine_line, print_table, timed_main, write_csv


def _per_iteration(tree, iterations):
    import solvers

    solver = solvers.Solver(tree, "cfr+")
    solver.step(1)  # compiles (first run only): not timed
    t0 = time.perf_counter()
    solver.step(iterations)
    return (time.perf_counter() - t0) / iterations


def _parser():
    parser = bench_parser("depth_limited", __doc__, "turn limit 1 only")
    parser.add_argument("--iterations", type=int, default=20)
    return parser


def run(args, info):
    """Time each cut plain and with K = 1 and K = 4 leaves; print the table; returns the CSV's path."""
    import solvers

    import coupsolve
    from coupsolve import Rules, depth

    rows, csv_rows = [], []
    for k in (1,) if args.quick else (1, 2):
        cut = coupsolve.build_coup_tree(Rules.two_player_selection(turn_limit=k), leaves=True)
        longer = coupsolve.build_coup_tree(Rules.two_player_selection(turn_limit=k + 1))
        blueprint = solvers.solve(longer.tree, iterations=20, progress=False).average_policy
        where = depth.node_map(cut.tree, longer.tree)
        plain = _per_iteration(cut.tree, args.iterations)
        print(f"cut after turn {k}: {cut.tree.num_nodes:,} histories, {len(cut.leaf_node):,} leaves",
              file=sys.stderr, flush=True)
        for K in (1, 4):
            t0 = time.perf_counter()
            values = depth.values_from_longer_game(cut.tree, cut.leaf_node, longer, blueprint, K, where=where)
            game = depth.depth_limited_game(cut.rules, values, cut=cut)
            made = time.perf_counter() - t0
            each = _per_iteration(game.tree, args.iterations)
            node_ratio = game.tree.num_nodes / cut.tree.num_nodes
            byte_ratio = game.tree.nbytes / cut.tree.nbytes
            rows.append([f"cut after turn {k}", f"K = {K}", f"{game.tree.num_nodes:,}", f"{node_ratio:.2f}x",
                         f"{byte_ratio:.2f}x", f"{1e3 * plain:.1f} ms", f"{1e3 * each:.1f} ms",
                         f"{each / plain:.2f}x", f"{made:.1f} s"])
            csv_rows.append(dict(cut=k, continuations=K, histories=game.tree.num_nodes,
                                 plain_histories=cut.tree.num_nodes, node_ratio=node_ratio,
                                 byte_ratio=byte_ratio, plain_seconds=plain, seconds=each,
                                 time_ratio=each / plain, leaf_value_seconds=made))
    print_table("The depth-limited game against the plain cut (CFR+, one thread, float64)",
                ["game", "leaves", "histories", "histories ratio", "tree bytes ratio", "plain / it",
                 "depth-limited / it", "time ratio", "leaf values + graft"], rows,
                note=f"{machine_line(info)}; load average {load_average():.2f}")
    return write_csv("depth_limited", csv_rows, info)


def main(argv=None):
    timed_main(_parser(), argv, run)


if __name__ == "__main__":
    main()
