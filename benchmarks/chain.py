"""Exact leaf values: the shipped blueprint's chain over turn starts built on one thread and on two.

The chain (:mod:`coupsolve.depth.exact`) is found breadth first from the leaf states of the cut
after turn 1 of the card-selection game, under two continuations of the shipped blueprint, and
searched a few turns deep (``--turns``; the full game's chain is tens of millions of states and takes
most of an hour). Each row is one build and its sweeps: states, edges, seconds and states a second,
and the build's speed-up on two threads over one in the same run. The chain is the same whatever the
threads (a test checks it), so the values are too. The compile is timed apart, on one leaf state.
"""

from __future__ import annotations

import sys
import time

from .common import bench_parser, load_average, machine_line, print_table, timed_main, write_csv


def _parser():
    parser = bench_parser("chain", __doc__, "three turns deep instead of four")
    parser.add_argument("--turns", type=int, default=None, help="turns the chain is searched (default 4; quick 3)")
    return parser


def _inputs():
    """The cut's leaf states, the blueprint's features game and its table."""
    import coupsolve
    from coupsolve import Rules
    from coupsolve.depth.build import open_blueprint
    from coupsolve.depth.exact import leaf_game

    cut = coupsolve.build_coup_tree(Rules.two_player_selection(turn_limit=1), leaves=True)
    _, (_, solver, meta) = open_blueprint("blueprint", cut.rules)
    _, game, warm, (_, _, states, hashes, _) = leaf_game(cut, meta, 2)
    return game, solver.lookup_arrays(), warm > 0, states, hashes


def run(args, info):
    """Build the chain once per thread count; print the table; returns the CSV's path."""
    from coupsolve.depth.exact import chain_values

    turns = args.turns or (3 if args.quick else 4)
    game, table, prior, states, hashes = _inputs()
    t0 = time.perf_counter()
    chain_values(game, table, prior, states[:1], hashes[:1], 2, 2)  # compiles (first run only)
    compiled = time.perf_counter() - t0
    print(f"{len(states):,} leaf states; compile and a one-state chain {compiled:.1f} s", file=sys.stderr, flush=True)
    rows, csv_rows, first, values = [], [], None, None
    for threads in (1, 2):
        out, facts = chain_values(game, table, prior, states, hashes, turns, 2, threads=threads)
        assert values is None or (out == values).all(), "the chain depends on the threads"
        values, build = out, facts["build_seconds"]
        first = first or build
        rows.append([str(threads), f"{facts['states']:,}", f"{facts['edges']:,}", f"{build:.1f} s",
                     f"{facts['states'] / build:,.0f}", f"{first / build:.2f}x", f"{facts['sweep_seconds']:.1f} s"])
        csv_rows.append(dict(threads=threads, turns=turns, leaf_states=len(states), states=facts["states"],
                             edges=facts["edges"], build_seconds=build, states_per_second=facts["states"] / build,
                             speedup=first / build, sweep_seconds=facts["sweep_seconds"], compile_seconds=compiled))
    print_table(f"The blueprint's chain from the cut after turn 1, {turns} turns deep, two continuations",
                ["threads", "states", "edges", "build", "states / s", "build speed-up", "sweeps"], rows,
                note=f"{machine_line(info)}; load average {load_average():.2f}; compile {compiled:.1f} s apart")
    return write_csv("chain", csv_rows, info)


def main(argv=None):
    timed_main(_parser(), argv, run)


if __name__ == "__main__":
    main()
