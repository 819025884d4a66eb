"""Public trees rooted mid-game (``coupsolve.trees.rooted``): what a re-solve's tree costs to make.

Full-length two-player card-selection games are played at random (seeded); at the first decision of
each turn the tree is rooted there with uniform ranges and cut ``k`` turns ahead (``k`` = 1 and 2,
the current turn included): the seconds to find the root's histories, to count and to fill the tree,
its size, and the seconds of a CFR+ iteration on it (one thread; the first iteration, which compiles,
is not timed). What a re-solving player pays per move before any solving is the first three.
"""

from __future__ import annotations

import sys
import time

import numpy as np

from .common import bench_parser, load_average, machine_line, print_table, timed_main, write_csv


def _turn_starts(game, seed, turns):
    """The histories at the first decision of turns 1 to ``turns`` of one random game."""
    rng = np.random.default_rng(seed)
    state, out, seen = game.new_initial_state(), [], set()
    while not state.is_terminal() and state.turn <= turns:
        if not state.is_chance_node() and state.turn >= 1 and state.turn not in seen:
            seen.add(state.turn)
            out.append(list(state.history()))
        moves = [a for a, _ in state.chance_outcomes()] if state.is_chance_node() else state.legal_actions()
        state.apply_action(int(moves[rng.integers(len(moves))]))
    return out


def _parser():
    parser = bench_parser("rooted", __doc__, "one game, lookahead 1 only")
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--turns", type=int, default=5, help="root at the start of turns 1 to this")
    parser.add_argument("--iterations", type=int, default=10)
    return parser


def _one(rules, root, iterations):
    """``(count s, fill s, tree, s per iteration)`` of the tree rooted at ``root`` with uniform ranges."""
    import solvers

    from coupsolve.trees.rooted import build_rooted_public_tree, count_rooted_public_tree

    r0, r1 = np.ones(root.num_private[0]), np.ones(root.num_private[1])
    t0 = time.perf_counter()
    size = count_rooted_public_tree(rules, root, r0, r1)
    t1 = time.perf_counter()
    built = build_rooted_public_tree(rules, root, r0, r1, size=size)
    t2 = time.perf_counter()
    solver = solvers.Solver(built.tree, "cfr+", threads=1)
    solver.step(1)  # compiles (first run only): not timed
    t3 = time.perf_counter()
    solver.step(iterations)
    return t1 - t0, t2 - t1, built.tree, (time.perf_counter() - t3) / iterations


def run(args, info):
    """Root at each turn's start of ``args.games`` random games; print the table; returns the CSV's path."""
    from coupsolve import Rules, load_game
    from coupsolve.trees.rooted import public_root

    full = Rules.two_player_selection(turn_limit=100)
    game = load_game(full)
    public_root(full, _turn_starts(game, 0, 1)[0])  # compiles the descent (first run only): not timed
    rows, csv_rows = [], []
    for seed in range(1 if args.quick else args.games):
        for history in _turn_starts(game, seed, args.turns):
            t0 = time.perf_counter()
            root = public_root(full, history)
            found = time.perf_counter() - t0
            for k in (1,) if args.quick else (1, 2):
                rules = full.replace(turn_limit=root.turn_limit_ahead(k))
                count, fill, tree, each = _one(rules, root, args.iterations)
                print(f"game {seed} turn {root.turn} k={k}: {tree.num_nodes:,} public nodes",
                      file=sys.stderr, flush=True)
                shape = f"{root.num_private[0]} x {root.num_private[1]}"
                rows.append([f"{seed}", f"{root.turn}", f"{k}", shape, f"{1e3 * found:.0f} ms",
                             f"{count:.2f} s", f"{fill:.2f} s", f"{tree.num_nodes:,}", f"{tree.num_entries:,}",
                             f"{1e3 * each:.1f} ms"])
                csv_rows.append(dict(game=seed, turn=root.turn, turns_ahead=k, private0=root.num_private[0],
                                     private1=root.num_private[1], root_seconds=found, count_seconds=count,
                                     fill_seconds=fill, nodes=tree.num_nodes, entries=tree.num_entries,
                                     infosets=tree.num_infosets, iteration_seconds=each))
    print_table("Trees rooted at a turn's start of full-length games (uniform ranges; one thread)",
                ["game", "turn", "turns ahead", "private states", "root", "count", "fill", "public nodes",
                 "entries", "CFR+ / it"], rows,
                note=f"{machine_line(info)}; load average {load_average():.2f}")
    return write_csv("rooted", csv_rows, info)


def main(argv=None):
    timed_main(_parser(), argv, run)


if __name__ == "__main__":
    main()
