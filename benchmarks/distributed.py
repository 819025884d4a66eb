"""The public-tree solver on a local Ray cluster against one process, on the same Coup trees and cores.

For Coup turn limits 2 and 3 (``--quick``: 2), the public tree is built once and timed warm with
:func:`benchmarks.iteration.time_blocks` (CFR+, float64, alternating updates): in one process on 1 and
2 threads, cut into parts iterated in this process (the cost of cutting alone), and on a local Ray
cluster of ``--workers`` actors of one thread each on this machine's cores (the trunk in the driver).
The table gives seconds per iteration, the ratio to one process on as many threads as the cluster has
workers, the bytes sent per iteration (the parts' root reach down, values up; nothing else crosses),
the largest part's memory and the cut. Run alone: ``python -m benchmarks.distributed [--quick]``.
"""

from __future__ import annotations

from .common import (bench_parser, fmt_ratio, fmt_seconds, load_average, print_table, timed_main,
                     write_csv)
from .iteration import time_blocks


def _variants(tree, workers):
    """(name, threads, make solver) in the order timed."""
    from solvers import Solver
    from solvers.pieces.ray import RayBackend
    from solvers.pieces.parts import LocalBackend

    return [("one process", 1, lambda: Solver(tree, "cfr+")),
            ("one process", workers, lambda: Solver(tree, "cfr+", threads=workers)),
            ("parts, this process", 1, lambda: Solver(tree, "cfr+", backend=LocalBackend(workers))),
            (f"Ray, {workers} workers", workers,
             lambda: Solver(tree, "cfr+", backend=RayBackend(workers=workers, num_cpus=workers)))]


def _largest_part(rep):
    """Bytes the largest runner of a cut solve holds (its parts' arrays, per-action state and pass
    buffers: :func:`solvers.pieces.groups.group_bytes`); 0 for one process. A Ray actor runs a
    group of parts, :class:`~solvers.pieces.parts.LocalBackend` one part each."""
    from solvers.pieces.groups import Group, group, group_bytes

    if not hasattr(rep, "parts"):
        return 0
    return max(group_bytes(q if isinstance(q, Group) else group([q]), rep.params.predictive,
                           rep.precision) for q in rep.parts)


def run(turn_limits, options, info):
    """Time each variant; print the table, write ``distributed.csv``."""
    import ray

    from coupsolve import Rules
    from coupsolve.trees.stepwalk.build import build_public_tree
    rows, csv_rows = [], []
    for tl in turn_limits:
        tree = build_public_tree(Rules.two_player_selection(turn_limit=tl)).tree
        base = {}
        for name, threads, make in _variants(tree, options.workers):
            solver = make()
            stats, k, first = time_blocks(solver, options.repeats, options.block)
            rep = solver.representation
            traffic = 2 * rep.traffic() if hasattr(rep, "traffic") else 0
            part_mib = _largest_part(rep) / 2**20
            if hasattr(rep, "close"):
                rep.close()
            base.setdefault(threads, stats.median)
            ratio = stats.median / base[threads]
            row = dict(turn_limit=tl, variant=name, threads=threads, depth=getattr(rep, "depth", ""),
                       seconds_per_iteration=stats.median, ratio=ratio, bytes_per_iteration=traffic,
                       largest_part_mib=round(part_mib, 1), load=round(load_average(), 2))
            csv_rows.append(row)
            rows.append([f"TL{tl}", name, threads, fmt_seconds(stats.median), fmt_ratio(ratio),
                         f"{traffic / 2**10:,.0f} KiB" if traffic else "-",
                         f"{part_mib:,.0f} MiB" if part_mib else "-", row["depth"]])
            del solver
        del tree
    if ray.is_initialized():
        ray.shutdown()
    print_table("Public-tree CFR+ on a local Ray cluster against one process (float64, alternating; warm)",
                ["game", "run", "threads", "s/iteration", "vs one process", "sent/iteration",
                 "largest part", "cut level"], rows,
                note="ratios against one process on the same number of threads in this run; "
                     "sent: the parts' root reach and values, both passes")
    return write_csv("distributed", csv_rows, info)


def main(argv=None):
    parser = bench_parser("distributed", __doc__, "turn limit 2 only, short blocks")
    parser.add_argument("--workers", type=int, default=2, help="Ray workers (default 2)")
    timed_main(parser, argv, lambda args, info: run((2,) if args.quick else (2, 3), args, info))


if __name__ == "__main__":
    main()
