"""Coup's public tree in pieces on Ray: the parts built by the driver and shipped, or by the workers.

On a local Ray cluster, the same cut, cores and run; the workers build theirs from a recipe
(:class:`solvers.RemotePieces`).

For a turn limit (default 3; ``--quick``: 2) the tree is counted by parts once (the plan both runs
take). Then, each on ``--workers`` Ray actors of one thread: the driver builds every piece
(:func:`coupsolve.trees.pieces.build.build_class_pieces`) and the backend ships the parts; or the driver walks
only the trunk while each actor builds its own parts. The table gives the seconds from nothing to a
solver ready to step, what the driver holds of the tree (the pieces it built, or the trunk alone), the
largest actor's share as placement estimates it before anything is allocated and its process's
measured peak, and the warm CFR+ iteration (the same arithmetic both ways). Run alone: ``python -m
benchmarks.remote_build [--quick]``.
"""

from __future__ import annotations

import time

from .common import (bench_parser, fmt_ratio, fmt_seconds, load_average, print_table, timed_main,
                     write_csv)
from .iteration import time_blocks


def _driver_built(plan, workers):
    from coupsolve.trees.pieces.build import build_class_pieces
    from solvers import PublicPieces, Solver
    from solvers.pieces.ray import RayBackend

    built = build_class_pieces(plan.size.rules, plan.depth, bounds=plan.bounds, workers=1)
    tree = PublicPieces(plan.size.rules.game_string(), built.trunk, built.parts,
                        built.infoset_actions)
    held = tree.nbytes + built.infoset_hash.nbytes + built.infoset_context.nbytes
    return Solver(tree, "cfr+", backend=RayBackend(workers=workers)), held


def _workers_built(plan, workers):
    from coupsolve.trees.pieces.remote import ClassRecipe
    from solvers import RemotePieces, Solver
    from solvers.pieces.ray import RayBackend
    from solvers.pieces.split import piece_bytes

    solver = Solver(RemotePieces(ClassRecipe(plan)), "cfr+", backend=RayBackend(workers=workers))
    return solver, piece_bytes(solver.tree.trunk)


def run(turn_limit, options, info):
    import ray

    from coupsolve import Rules
    from coupsolve.trees.classwalk.count import count_class_tree
    from coupsolve.trees.pieces.build import PiecesPlan

    rules = Rules.two_player_selection(turn_limit=turn_limit, limit_payoff="influence")
    began = time.perf_counter()
    plan = PiecesPlan.of(count_class_tree(rules, split_depth=options.depth, parts=options.parts))
    count_s = time.perf_counter() - began
    ray.init(num_cpus=options.workers, include_dashboard=False, log_to_driver=False)
    rows, csv_rows, base = [], [], None
    for name, make in (("driver builds, ships parts", _driver_built),
                       ("workers build their parts", _workers_built)):
        began = time.perf_counter()
        solver, held = make(plan, options.workers)
        ready = time.perf_counter() - began
        stats, _, _ = time_blocks(solver, options.repeats, options.block)
        rep = solver.representation
        largest = max(rep._needs)
        peak = max(ray.get([h.peak_bytes.remote() for h in rep.handles]))
        rep.close()
        base = base or stats.median
        row = dict(turn_limit=turn_limit, variant=name, workers=options.workers, depth=plan.depth,
                   parts=len(plan.bounds) - 1, count_seconds=round(count_s, 2),
                   ready_seconds=round(ready, 2), driver_tree_mib=round(held / 2**20, 1),
                   largest_actor_mib=round(largest / 2**20, 1),
                   actor_peak_mib=round(peak / 2**20, 1),
                   seconds_per_iteration=stats.median, ratio=stats.median / base,
                   load=round(load_average(), 2))
        csv_rows.append(row)
        rows.append([f"TL{turn_limit}", name, f"{ready:.1f} s", f"{held / 2**20:,.1f} MiB",
                     f"{largest / 2**20:,.0f} MiB", f"{peak / 2**20:,.0f} MiB",
                     fmt_seconds(stats.median), fmt_ratio(row["ratio"])])
        del solver
    ray.shutdown()
    print_table(f"Pieces on a local Ray cluster of {options.workers} actors: who builds the parts "
                f"(cut at level {plan.depth} into {len(plan.bounds) - 1} parts; count by parts "
                f"{count_s:.1f} s, not included)",
                ["game", "run", "ready to step", "driver holds of the tree", "largest actor (est.)",
                 "actor peak (measured)", "s/iteration", "vs driver-built"], rows,
                note="ready: from the plan to a solver ready to step; warm CFR+, float64, alternating; "
                     "estimated: what placement reserves before anything is allocated; measured: "
                     "the actor process's peak resident memory, interpreter and kernels included")
    return write_csv("remote_build", csv_rows, info)


def main(argv=None):
    parser = bench_parser("remote_build", __doc__, "turn limit 2, short blocks")
    parser.add_argument("--workers", type=int, default=2, help="Ray actors (default 2)")
    parser.add_argument("--depth", type=int, default=8, help="the level to cut at (default 8)")
    parser.add_argument("--parts", type=int, default=16, help="parts (default 16)")
    timed_main(parser, argv, lambda args, info: run(2 if args.quick else 3, args, info))


if __name__ == "__main__":
    main()
